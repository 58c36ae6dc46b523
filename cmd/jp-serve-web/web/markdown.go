package web

import (
	"bytes"
	"html/template"
	"strings"
	"sync"

	"github.com/jpcli/jp/internal/gfm"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// Markdown renders what a model wrote as HTML for the page: CommonMark
// and GitHub's tables and strikethrough, parsed and rendered by goldmark.
// The output is safe to put in a page whatever the model wrote: raw HTML
// is shown as text (goldmark's raw HTML is off), links and images become
// links only to http(s) URLs that goldmark's dangerous-URL filter passes
// (anything else is shown as its text), and images are links rather than
// pictures, so nothing is fetched from an address a model chose.
// Headings start at h3: the page has its own h1 and h2.
func Markdown(src string) template.HTML {
	var b bytes.Buffer
	if err := webMarkdown().Convert([]byte(src), &b); err != nil {
		// goldmark's HTML renderer fails only when its writer does;
		// a bytes.Buffer does not.
		return template.HTML("<p>" + template.HTMLEscapeString(src) + "</p>\n")
	}
	return template.HTML(b.String()) //nolint:gosec // built from escaped text and checked URLs
}

// webMarkdown is the goldmark instance of the page, built on first use.
var webMarkdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(
			gfm.Strikethrough,
			gfm.NewTable(gfm.WithTableCellAlignMethod(gfm.TableCellAlignAttribute)),
		),
		goldmark.WithRendererOptions(
			html.WithHardWraps(),
			renderer.WithNodeRenderers(util.Prioritized(pageRenderer{}, 100)),
		),
	)
})

// pageRenderer replaces goldmark's renderers of the nodes whose HTML the
// page wants otherwise.
type pageRenderer struct{}

func (pageRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHeading, renderHeading)
	reg.Register(ast.KindFencedCodeBlock, renderFencedCode)
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
	reg.Register(ast.KindImage, renderImage)
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
}

func renderHeading(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	level := min(node.(*ast.Heading).Level+2, 6)
	if entering {
		_, _ = w.WriteString("<h" + string(rune('0'+level)) + ">")
	} else {
		_, _ = w.WriteString("</h" + string(rune('0'+level)) + ">\n")
	}
	return ast.WalkContinue, nil
}

// renderFencedCode writes a code block under a bar with its language
// and a copy button.
func renderFencedCode(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.FencedCodeBlock)
	_, _ = w.WriteString(`<div class="code"><div class="codehead">`)
	if lang := n.Language(source); len(lang) > 0 {
		_, _ = w.WriteString(`<span class="lang">`)
		_, _ = w.Write(util.EscapeHTML(lang))
		_, _ = w.WriteString(`</span>`)
	}
	// The button is wired by page.js (the page runs no inline script).
	_, _ = w.WriteString(`<button type="button" class="copy" title="Copy the code">Copy</button></div><pre><code>`)
	var code []byte
	for i := range n.Lines().Len() {
		seg := n.Lines().At(i)
		code = append(code, seg.Value(source)...)
	}
	_, _ = w.Write(util.EscapeHTML(bytes.TrimSuffix(code, []byte("\n"))))
	_, _ = w.WriteString("</code></pre></div>\n")
	return ast.WalkSkipChildren, nil
}

// webURL returns the escaped URL if it may be a link target: http(s),
// and passed by goldmark's dangerous-URL filter.
func webURL(dest []byte) ([]byte, bool) {
	u := util.URLEscape(dest, true)
	lower := strings.ToLower(string(u))
	if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") || html.IsDangerousURL(u) {
		return nil, false
	}
	return util.EscapeHTML(u), true
}

func openLink(w util.BufWriter, href []byte) {
	_, _ = w.WriteString(`<a href="`)
	_, _ = w.Write(href)
	_, _ = w.WriteString(`" rel="noreferrer noopener" target="_blank">`)
}

// renderLink writes a link to an http(s) URL; any other link is its text.
func renderLink(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	href, ok := webURL(node.(*ast.Link).Destination)
	if !ok {
		return ast.WalkContinue, nil
	}
	if entering {
		openLink(w, href)
	} else {
		_, _ = w.WriteString("</a>")
	}
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	label := util.EscapeHTML(n.Label(source))
	if href, ok := webURL(n.URL(source)); ok && n.AutoLinkType == ast.AutoLinkURL {
		openLink(w, href)
		_, _ = w.Write(label)
		_, _ = w.WriteString("</a>")
	} else {
		_, _ = w.Write(label)
	}
	return ast.WalkContinue, nil
}

// renderImage writes an image as a link to it, labelled with its
// alternative text ("image" if it has none).
func renderImage(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	alt := plainText(n, source)
	if len(bytes.TrimSpace(alt)) == 0 {
		alt = []byte("image")
	}
	href, ok := webURL(n.Destination)
	if ok {
		openLink(w, href)
	}
	_, _ = w.Write(util.EscapeHTML(alt))
	if ok {
		_, _ = w.WriteString("</a>")
	}
	return ast.WalkSkipChildren, nil
}

// plainText is the text of the inline nodes under n, without markup.
func plainText(n ast.Node, source []byte) []byte {
	var b []byte
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b = append(b, c.Segment.Value(source)...)
			if c.SoftLineBreak() || c.HardLineBreak() {
				b = append(b, ' ')
			}
		case *ast.String:
			b = append(b, c.Value...)
		case *ast.AutoLink:
			b = append(b, c.Label(source)...)
		}
		return ast.WalkContinue, nil
	})
	return b
}

// renderRawHTML shows inline HTML as the text the model wrote.
func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		segs := node.(*ast.RawHTML).Segments
		for i := range segs.Len() {
			seg := segs.At(i)
			_, _ = w.Write(util.EscapeHTML(seg.Value(source)))
		}
	}
	return ast.WalkSkipChildren, nil
}

// renderHTMLBlock shows an HTML block as the text the model wrote, one
// source line a line.
func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	var lines [][]byte
	for i := range n.Lines().Len() {
		seg := n.Lines().At(i)
		lines = append(lines, seg.Value(source))
	}
	if n.HasClosure() {
		lines = append(lines, n.ClosureLine.Value(source))
	}
	_, _ = w.WriteString("<p>")
	for i, l := range lines {
		if i > 0 {
			_, _ = w.WriteString("<br>\n")
		}
		_, _ = w.Write(util.EscapeHTML(bytes.TrimRight(l, "\r\n")))
	}
	_, _ = w.WriteString("</p>\n")
	return ast.WalkSkipChildren, nil
}
