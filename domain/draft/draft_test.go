package draft

import (
	"strings"
	"testing"
)

const cut = CutLine

func TestParse(t *testing.T) {
	tests := []struct {
		name      string
		doc       string
		query     string
		meta      string
		config    string
		hasMeta   bool
		escapedOK bool
	}{
		{name: "empty", doc: "", query: ""},
		{name: "query only", doc: "hello\n", query: "hello\n"},
		{name: "no trailing newline", doc: "hello", query: "hello"},
		{name: "cut line only", doc: cut + "\n", meta: cut + "\n", hasMeta: true},
		{name: "cut line without newline", doc: cut, meta: cut, hasMeta: true},
		{name: "empty query", doc: cut + "\n```toml\na = 1\n```\n", meta: cut + "\n```toml\na = 1\n```\n", config: "a = 1\n", hasMeta: true},
		{
			name:    "query and config",
			doc:     "hi there\n" + cut + "\n\n```toml\nx = \"y\"\n```\n\nexcerpt\n",
			query:   "hi there",
			meta:    cut + "\n\n```toml\nx = \"y\"\n```\n\nexcerpt\n",
			config:  "x = \"y\"\n",
			hasMeta: true,
		},
		{
			name:    "blank line before cut",
			doc:     "hi\n\n" + cut + "\n",
			query:   "hi\n",
			meta:    cut + "\n",
			hasMeta: true,
		},
		{
			name:    "crlf",
			doc:     "line one\r\nline two\r\n" + cut + "\r\n\r\n```toml\r\na = 1\r\n```\r\n",
			query:   "line one\r\nline two",
			meta:    cut + "\r\n\r\n```toml\r\na = 1\r\n```\r\n",
			config:  "a = 1\r\n",
			hasMeta: true,
		},
		{
			name:    "cut line twice",
			doc:     "q\n" + cut + "\nmiddle\n" + cut + "\nend",
			query:   "q",
			meta:    cut + "\nmiddle\n" + cut + "\nend",
			hasMeta: true,
		},
		{
			name:    "cut line with trailing spaces",
			doc:     "q\n" + cut + "  \t\nrest",
			query:   "q",
			meta:    cut + "  \t\nrest",
			hasMeta: true,
		},
		{name: "cut text not alone on its line", doc: "see: " + cut + "\n", query: "see: " + cut + "\n"},
		{name: "indented cut text is not a cut line", doc: " " + cut + "\n", query: " " + cut + "\n"},
		{name: "escaped cut line is query", doc: `\` + cut + "\n", query: `\` + cut + "\n"},
		{
			name:    "unclosed fence: meta verbatim, no config",
			doc:     "q\n" + cut + "\n```toml\na = 1\n",
			query:   "q",
			meta:    cut + "\n```toml\na = 1\n",
			hasMeta: true,
		},
		{
			name:    "text before fence: no config",
			doc:     "q\n" + cut + "\nnotes\n```toml\na = 1\n```\n",
			query:   "q",
			meta:    cut + "\nnotes\n```toml\na = 1\n```\n",
			hasMeta: true,
		},
		{
			name:    "non-toml fence: no config",
			doc:     "q\n" + cut + "\n```json\n{}\n```\n",
			query:   "q",
			meta:    cut + "\n```json\n{}\n```\n",
			hasMeta: true,
		},
		{
			name:    "empty config block",
			doc:     "q\n" + cut + "\n```toml\n```\n",
			query:   "q",
			meta:    cut + "\n```toml\n```\n",
			hasMeta: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Parse(tt.doc)
			if got := d.Query(); got != tt.query {
				t.Errorf("Query() = %q, want %q", got, tt.query)
			}
			if got := d.Meta(); got != tt.meta {
				t.Errorf("Meta() = %q, want %q", got, tt.meta)
			}
			if got := d.Config(); got != tt.config {
				t.Errorf("Config() = %q, want %q", got, tt.config)
			}
			if got := d.HasMeta(); got != tt.hasMeta {
				t.Errorf("HasMeta() = %v, want %v", got, tt.hasMeta)
			}
			if got := d.Render(); got != tt.doc {
				t.Errorf("Render() = %q, want %q", got, tt.doc)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	docs := []string{
		"",
		"\n",
		"\r\n",
		"\r",
		"no newline at all",
		"trailing newline\n",
		"crlf\r\nlines\r\n",
		cut,
		cut + "\n",
		"\n" + cut,
		"\r\n" + cut + "\r\n",
		"a\r" + cut,
		"a\r\n\n" + cut + "\n",
		cut + "\n" + cut + "\n" + cut,
		"x\n" + cut + "\n```toml\nunterminated = [\n",
		"\x00\xff\xfe invalid utf8\n" + cut + "\n\xff",
		strings.Repeat("long line ", 1000) + "\n" + cut + "\n",
	}
	for _, doc := range docs {
		if got := Parse(doc).Render(); got != doc {
			t.Errorf("Render(Parse(%q)) = %q", doc, got)
		}
	}
}

func TestWithQuery(t *testing.T) {
	meta := cut + "\n\n```toml\na = 1\n```\n\n> excerpt\n"
	crlfMeta := cut + "\r\n```toml\r\na = 1\r\n```\r\n"
	tests := []struct {
		name   string
		doc    string
		text   string
		render string
		query  string // what Parse reads back; defaults to text
	}{
		{name: "no meta", doc: "old", text: "new", render: "new"},
		{name: "no meta, empty", doc: "old\n", text: "", render: ""},
		{name: "with meta", doc: "old\n" + meta, text: "new", render: "new\n" + meta},
		{name: "with meta, trailing newline kept", doc: "old\n" + meta, text: "new\n", render: "new\n\n" + meta},
		{name: "with meta, empty query", doc: "old\n" + meta, text: "", render: meta},
		{name: "empty query doc gets text", doc: meta, text: "hi", render: "hi\n" + meta},
		{name: "crlf meta", doc: "old\r\n" + crlfMeta, text: "a\r\nb", render: "a\r\nb\r\n" + crlfMeta},
		{name: "text ending in CR", doc: "old\n" + meta, text: "a\r", render: "a\r\r\n" + meta},
		{name: "text ending in LF, crlf meta", doc: crlfMeta, text: "a\n", render: "a\n\r\n" + crlfMeta},
		{
			name:   "cut line in text is escaped",
			doc:    "old\n" + meta,
			text:   "a\n" + cut + "\nb\n" + cut,
			render: "a\n\\" + cut + "\nb\n\\" + cut + "\n" + meta,
			query:  "a\n\\" + cut + "\nb\n\\" + cut,
		},
		{
			name:   "cut line in text without meta is escaped",
			doc:    "",
			text:   cut + "\n",
			render: "\\" + cut + "\n",
			query:  "\\" + cut + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := Parse(tt.doc)
			d := before.WithQuery(tt.text)
			if got := d.Render(); got != tt.render {
				t.Errorf("Render() = %q, want %q", got, tt.render)
			}
			if d.Meta() != before.Meta() {
				t.Errorf("Meta() changed: %q -> %q", before.Meta(), d.Meta())
			}
			want := tt.query
			if want == "" {
				want = escapeCutLines(tt.text)
			}
			back := Parse(d.Render())
			if back.Query() != want {
				t.Errorf("Parse(Render()).Query() = %q, want %q", back.Query(), want)
			}
			if back.Meta() != before.Meta() {
				t.Errorf("Parse(Render()).Meta() = %q, want %q", back.Meta(), before.Meta())
			}
		})
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name                   string
		query, config, excerpt string
		want                   string
	}{
		{
			name:  "all parts",
			query: "Explain this.", config: "assistant.model.id = \"demo/echo\"", excerpt: "> user: hi\n> assistant: hello",
			want: "Explain this.\n" + cut + "\n\n```toml\nassistant.model.id = \"demo/echo\"\n```\n\n> user: hi\n> assistant: hello\n",
		},
		{name: "no config", query: "q", excerpt: "ex\n", want: "q\n" + cut + "\n\nex\n"},
		{name: "no excerpt", query: "q", config: "a = 1\n", want: "q\n" + cut + "\n\n```toml\na = 1\n```\n"},
		{name: "only cut line", want: cut + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := New(tt.query, tt.config, tt.excerpt)
			if got := d.Render(); got != tt.want {
				t.Errorf("Render() = %q, want %q", got, tt.want)
			}
			p := Parse(d.Render())
			if p.Query() != tt.query {
				t.Errorf("Query() = %q, want %q", p.Query(), tt.query)
			}
			wantConfig := tt.config
			if wantConfig != "" && !strings.HasSuffix(wantConfig, "\n") {
				wantConfig += "\n"
			}
			if p.Config() != wantConfig {
				t.Errorf("Config() = %q, want %q", p.Config(), wantConfig)
			}
		})
	}
}

func TestZeroDocument(t *testing.T) {
	var d Document
	if d.Render() != "" || d.Query() != "" || d.Meta() != "" || d.Config() != "" || d.HasMeta() {
		t.Fatalf("zero Document is not empty: %#v", d)
	}
}

func FuzzRoundTrip(f *testing.F) {
	seeds := []string{"", "q", "q\n", "q\r\n" + cut + "\r\n", cut, "a\n" + cut + "\n```toml\nb = 2\n```\n" + cut, "\r" + cut}
	for _, s := range seeds {
		f.Add(s, "new text")
		f.Add(s, "")
		f.Add(s, "x\r")
		f.Add(s, cut)
	}
	f.Fuzz(func(t *testing.T, doc, text string) {
		d := Parse(doc)
		if got := d.Render(); got != doc {
			t.Fatalf("Render(Parse(%q)) = %q", doc, got)
		}
		if d.HasMeta() && !isCutLine(firstLine(d.Meta())) {
			t.Fatalf("Meta() of %q does not start with a cut line: %q", doc, d.Meta())
		}
		if strings.Contains(d.Query()+d.sep, "\n") && findCutLine(d.Query()+d.sep) >= 0 {
			t.Fatalf("Query() of %q contains a cut line", doc)
		}
		_ = d.Config()
		w := d.WithQuery(text)
		if w.Meta() != d.Meta() {
			t.Fatalf("WithQuery changed meta: %q -> %q", d.Meta(), w.Meta())
		}
		back := Parse(w.Render())
		if back.Meta() != d.Meta() {
			t.Fatalf("meta not preserved through render: %q -> %q", d.Meta(), back.Meta())
		}
		if want := escapeCutLines(text); back.Query() != want {
			t.Fatalf("query %q read back as %q (want %q)", text, back.Query(), want)
		}
		if back.Render() != w.Render() {
			t.Fatalf("not stable: %q vs %q", back.Render(), w.Render())
		}
	})
}
