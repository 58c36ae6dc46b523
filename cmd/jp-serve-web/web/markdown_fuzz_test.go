package web

import (
	"regexp"
	"strings"
	"testing"
)

var (
	// tagRE is any tag in the output; a "<" that does not start one is a
	// bug too (text is escaped).
	tagRE  = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-z-]+="[^"<>]*")*)\s*>`)
	attrRE = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)
	// allowedTags are the elements Markdown writes, with the attributes
	// each may carry.
	allowedTags = map[string]map[string]bool{
		"p": {}, "br": {}, "strong": {}, "em": {}, "del": {}, "code": {}, "pre": {}, "blockquote": {}, "hr": {},
		"ul": {}, "ol": {"start": true}, "li": {}, "h1": {}, "h2": {}, "h3": {}, "h4": {}, "h5": {}, "h6": {},
		"table": {}, "thead": {}, "tbody": {}, "tr": {}, "th": {"align": true}, "td": {"align": true},
		"div":  {"class": true},
		"span": {"class": true},
		// A code block's copy button: page.js wires it, by its class.
		"button": {"type": true, "class": true, "title": true},
		"a":      {"href": true, "rel": true, "target": true},
	}
)

// FuzzMarkdown renders whatever a model may write: the HTML holds only
// the allowed tags and attributes, links go to http(s) only, and no
// other "<" survives (everything else is escaped text).
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{
		"# h\n**b** `c` [l](https://example.com/x?a=1&b=2) <http://a>",
		"```go\n<script>alert(1)</script>\n```", "- a\n- b\n\n1. c\n2. d", "> quote\n> <iframe src=x>",
		"<img src=x onerror=alert(1)>", "[x](javascript:alert(1))", `[x](https://a" onmouseover="alert(1))`,
		"**<b>**", "`<i>`", "\x00\x1b]0;t\x07", "<!-- c -->", "<<<>>>", "[a](<b>)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkSafeHTML(t, in, string(Markdown(in)))
	})
}

// checkSafeHTML fails unless out, the HTML of in, holds only the allowed
// tags and attributes, links to http(s) only, and has no other "<".
func checkSafeHTML(t *testing.T, in, out string) {
	t.Helper()
	rest := tagRE.ReplaceAllStringFunc(out, func(tag string) string {
		m := tagRE.FindStringSubmatch(tag)
		attrs, ok := allowedTags[strings.ToLower(m[2])]
		if !ok {
			t.Fatalf("Markdown(%q) writes <%s>: %s", in, m[2], out)
		}
		for _, a := range attrRE.FindAllStringSubmatch(m[3], -1) {
			if !attrs[a[1]] {
				t.Fatalf("Markdown(%q) writes %s on <%s>: %s", in, a[1], m[2], out)
			}
			if a[1] == "href" && !strings.HasPrefix(a[2], "http://") && !strings.HasPrefix(a[2], "https://") {
				t.Fatalf("Markdown(%q) links to %q", in, a[2])
			}
		}
		return ""
	})
	if strings.ContainsAny(rest, "<>") {
		t.Fatalf("Markdown(%q) leaves a raw < or > outside its tags: %q", in, out)
	}
}
