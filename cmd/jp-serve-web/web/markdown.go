package web

import (
	"html"
	"html/template"
	"regexp"
	"strings"
)

// Markdown renders the subset of Markdown assistants write most: fenced
// code blocks (with a language label), headings, bullet and numbered
// lists, block quotes, paragraphs, and inline code, bold and links to
// http(s) URLs. Everything else is text. All text is escaped: the output
// is safe to put in a page whatever the model wrote.
func Markdown(src string) template.HTML {
	var b strings.Builder
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var para []string
	var list []string
	listTag := ""
	flushPara := func() {
		if len(para) > 0 {
			b.WriteString("<p>")
			for i, l := range para {
				if i > 0 {
					b.WriteString("<br>")
				}
				b.WriteString(inline(l))
			}
			b.WriteString("</p>\n")
			para = nil
		}
	}
	flushList := func() {
		if len(list) > 0 {
			b.WriteString("<" + listTag + ">")
			for _, it := range list {
				b.WriteString("<li>" + inline(it) + "</li>")
			}
			b.WriteString("</" + listTag + ">\n")
			list, listTag = nil, ""
		}
	}
	flush := func() { flushPara(); flushList() }
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if fence, lang, ok := fenceOpen(trimmed); ok {
			flush()
			var code []string
			i++
			for ; i < len(lines); i++ {
				if closesFence(strings.TrimSpace(lines[i]), fence) {
					break
				}
				code = append(code, lines[i])
			}
			b.WriteString(`<div class="code">`)
			if lang != "" {
				b.WriteString(`<span class="lang">` + html.EscapeString(lang) + `</span>`)
			}
			b.WriteString("<pre><code>" + html.EscapeString(strings.Join(code, "\n")) + "</code></pre></div>\n")
			continue
		}
		switch {
		case trimmed == "":
			flush()
		case headingRE.MatchString(trimmed):
			flush()
			m := headingRE.FindStringSubmatch(trimmed)
			n := len(m[1]) + 2 // # is h3: the page has its own h1 and h2
			if n > 6 {
				n = 6
			}
			tag := "h" + string(rune('0'+n))
			b.WriteString("<" + tag + ">" + inline(m[2]) + "</" + tag + ">\n")
		case bulletRE.MatchString(line):
			flushPara()
			if listTag == "ol" {
				flushList()
			}
			listTag = "ul"
			list = append(list, bulletRE.FindStringSubmatch(line)[1])
		case numberRE.MatchString(line):
			flushPara()
			if listTag == "ul" {
				flushList()
			}
			listTag = "ol"
			list = append(list, numberRE.FindStringSubmatch(line)[1])
		case strings.HasPrefix(trimmed, ">"):
			flush()
			var quote []string
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), ">"); i++ {
				quote = append(quote, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), ">")))
			}
			i--
			b.WriteString("<blockquote>" + string(Markdown(strings.Join(quote, "\n"))) + "</blockquote>\n")
		case len(list) > 0 && (strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "\t")):
			list[len(list)-1] += " " + trimmed // a wrapped list item
		default:
			flushList()
			para = append(para, trimmed)
		}
	}
	flush()
	return template.HTML(b.String())
}

var (
	headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*$`)
	bulletRE  = regexp.MustCompile(`^\s{0,3}[-*+]\s+(.*)$`)
	numberRE  = regexp.MustCompile(`^\s{0,3}\d{1,9}[.)]\s+(.*)$`)
	boldRE    = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	linkRE    = regexp.MustCompile(`\[([^\]]+)\]\((https?://[^\s)]+)\)`)
)

// fenceOpen recognizes ``` or ~~~ (three or more) with an optional
// language word.
func fenceOpen(s string) (fence, lang string, ok bool) {
	for _, c := range []string{"`", "~"} {
		n := 0
		for n < len(s) && s[n:n+1] == c {
			n++
		}
		if n >= 3 {
			lang = strings.TrimSpace(s[n:])
			if strings.Contains(lang, c) {
				return "", "", false
			}
			if f := strings.Fields(lang); len(f) > 0 {
				lang = f[0]
			}
			return s[:n], lang, true
		}
	}
	return "", "", false
}

// closesFence reports whether a trimmed line closes a block opened by
// fence: the same character, at least as many times, and nothing else.
func closesFence(s, fence string) bool {
	return len(s) >= len(fence) && strings.Trim(s, fence[:1]) == ""
}

// inline escapes a line and renders `code`, **bold** and links.
func inline(s string) string {
	var b strings.Builder
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 { // an unmatched backtick is text
		parts[len(parts)-2] += "`" + parts[len(parts)-1]
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
			continue
		}
		t := html.EscapeString(p)
		t = boldRE.ReplaceAllString(t, "<strong>$1</strong>")
		t = linkRE.ReplaceAllStringFunc(t, func(m string) string {
			sm := linkRE.FindStringSubmatch(m)
			return `<a href="` + sm[2] + `" rel="noreferrer noopener" target="_blank">` + sm[1] + `</a>`
		})
		b.WriteString(t)
	}
	return b.String()
}
