package web

import (
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"hello", "<p>hello</p>\n"},
		{"a\nb\n\nc", "<p>a<br>b</p>\n<p>c</p>\n"},
		{"<b>x</b> & y", "<p>&lt;b&gt;x&lt;/b&gt; &amp; y</p>\n"},
		{"use `a<b` and **bold**", "<p>use <code>a&lt;b</code> and <strong>bold</strong></p>\n"},
		{"a ` lone", "<p>a ` lone</p>\n"},
		{"```go\nfunc main() {}\n  x := \"<\"\n```\nafter", `<div class="code"><span class="lang">go</span><pre><code>func main() {}` + "\n" + `  x := &#34;&lt;&#34;</code></pre></div>` + "\n<p>after</p>\n"},
		{"```\nunclosed\n", "<div class=\"code\"><pre><code>unclosed\n</code></pre></div>\n"},
		{"~~~~\n```\n~~~~", "<div class=\"code\"><pre><code>```</code></pre></div>\n"},
		{"# Title\n## Sub", "<h3>Title</h3>\n<h4>Sub</h4>\n"},
		{"- one\n- two\n  wrapped\n1. first", "<ul><li>one</li><li>two wrapped</li></ul>\n<ol><li>first</li></ol>\n"},
		{"> quoted\n> more", "<blockquote><p>quoted<br>more</p>\n</blockquote>\n"},
		{"[site](https://example.com/a?b=1&c=2)", `<p><a href="https://example.com/a?b=1&amp;c=2" rel="noreferrer noopener" target="_blank">site</a></p>` + "\n"},
		{"[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>\n"},
		{`[x](https://e.com/"onmouseover="a)`, `<p><a href="https://e.com/&#34;onmouseover=&#34;a" rel="noreferrer noopener" target="_blank">x</a></p>` + "\n"},
	} {
		if got := string(Markdown(tc.in)); got != tc.want {
			t.Errorf("Markdown(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestMarkdownNeverEmitsRawTags(t *testing.T) {
	in := "<img src=x onerror=alert(1)>\n```\n<script>\n```\n- <i>\n> <iframe>\n# <h1>"
	out := string(Markdown(in))
	for _, bad := range []string{"<img", "<script", "<i>", "<iframe", "<h1>"} {
		if strings.Contains(out, bad) {
			t.Errorf("output contains %s: %s", bad, out)
		}
	}
}
