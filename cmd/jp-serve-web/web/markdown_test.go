package web

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	t.Parallel()
	link := func(href, text string) string {
		return `<a href="` + href + `" rel="noreferrer noopener" target="_blank">` + text + `</a>`
	}
	for _, tc := range []struct{ in, want string }{
		{"hello", "<p>hello</p>\n"},
		{"a\nb\n\nc", "<p>a<br>\nb</p>\n<p>c</p>\n"},
		{"<b>x</b> & y", "<p>&lt;b&gt;x&lt;/b&gt; &amp; y</p>\n"},
		{"use `a<b` and **bold** *it* ~~old~~", "<p>use <code>a&lt;b</code> and <strong>bold</strong> <em>it</em> <del>old</del></p>\n"},
		{"a ` lone", "<p>a ` lone</p>\n"},
		{"```go\nfunc main() {}\n  x := \"<\"\n```\nafter", `<div class="code"><div class="codehead"><span class="lang">go</span><button type="button" class="copy" title="Copy the code">Copy</button></div><pre><code>func main() {}` + "\n" + `  x := &quot;&lt;&quot;</code></pre></div>` + "\n<p>after</p>\n"},
		{"```\nunclosed\n", "<div class=\"code\"><div class=\"codehead\"><button type=\"button\" class=\"copy\" title=\"Copy the code\">Copy</button></div><pre><code>unclosed</code></pre></div>\n"},
		{"~~~~\n```\n~~~~", "<div class=\"code\"><div class=\"codehead\"><button type=\"button\" class=\"copy\" title=\"Copy the code\">Copy</button></div><pre><code>```</code></pre></div>\n"},
		{"# Title\n## Sub\n##### Five", "<h3>Title</h3>\n<h4>Sub</h4>\n<h6>Five</h6>\n"},
		{"- one\n- two\n  wrapped\n1. first", "<ul>\n<li>one</li>\n<li>two<br>\nwrapped</li>\n</ul>\n<ol>\n<li>first</li>\n</ol>\n"},
		{"> quoted\n> more", "<blockquote>\n<p>quoted<br>\nmore</p>\n</blockquote>\n"},
		{"[site](https://example.com/a?b=1&c=2)", "<p>" + link("https://example.com/a?b=1&amp;c=2", "site") + "</p>\n"},
		{"<https://x.y/z> <me@x.org>", "<p>" + link("https://x.y/z", "https://x.y/z") + " me@x.org</p>\n"},
		{"[x](javascript:alert(1)) [y](/relative) [z](mailto:a@b)", "<p>x y z</p>\n"},
		{`[x](https://e.com/"onmouseover="a)`, "<p>" + link("https://e.com/%22onmouseover=%22a", "x") + "</p>\n"},
		{"[ref][r] &amp; &copy; &#35;\n\n[r]: https://r.example", "<p>" + link("https://r.example", "ref") + " &amp; © #</p>\n"},
		{"![a cat](https://x/c.png) ![](data:image/png;base64,AA)", "<p>" + link("https://x/c.png", "a cat") + " image</p>\n"},
		{"<div onclick=x>\n<script>alert(1)</script>\n</div>", "<p>&lt;div onclick=x&gt;<br>\n&lt;script&gt;alert(1)&lt;/script&gt;<br>\n&lt;/div&gt;</p>\n"},
		{"| a | b |\n|:--|--:|\n| 1 | 2 |", "<table>\n<thead>\n<tr>\n<th align=\"left\">a</th>\n<th align=\"right\">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td align=\"left\">1</td>\n<td align=\"right\">2</td>\n</tr>\n</tbody>\n</table>\n"},
	} {
		if got := string(Markdown(tc.in)); got != tc.want {
			t.Errorf("Markdown(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestMarkdownNeverEmitsRawTags(t *testing.T) {
	t.Parallel()
	in := "<img src=x onerror=alert(1)>\n```\n<script>\n```\n- <i>\n> <iframe>\n# <h1>"
	out := string(Markdown(in))
	for _, bad := range []string{"<img", "<script", "<i>", "<iframe", "<h1>"} {
		if strings.Contains(out, bad) {
			t.Errorf("output contains %s: %s", bad, out)
		}
	}
}

// TestMarkdownCommonMarkSpec renders every CommonMark spec example (the
// copy beside the terminal renderer's tests) and holds each to the
// sanitiser's rules.
func TestMarkdownCommonMarkSpec(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../../adapters/terminal/testdata/commonmark-spec.json")
	if err != nil {
		t.Fatal(err)
	}
	var examples []struct {
		Markdown string `json:"markdown"`
	}
	if err := json.Unmarshal(b, &examples); err != nil {
		t.Fatal(err)
	}
	if len(examples) < 600 {
		t.Fatalf("only %d examples", len(examples))
	}
	for _, ex := range examples {
		checkSafeHTML(t, ex.Markdown, string(Markdown(ex.Markdown)))
	}
}
