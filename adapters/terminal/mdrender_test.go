package terminal

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jpcli/jp/ports"
)

var sgrRE = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// visible strips SGR and trailing spaces (code block padding) from
// rendered text.
func visible(s string) string {
	lines := strings.Split(sgrRE.ReplaceAllString(s, ""), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// Escape sequences of the dark theme, as the tests expect them.
const (
	eBold   = "\x1b[1m"
	eItalic = "\x1b[3m"
	eStrike = "\x1b[9m"
	eDim    = "\x1b[2m"
	eH1     = "\x1b[1;38;5;212m"
	eH2     = "\x1b[1;38;5;39m"
	eCode   = "\x1b[38;5;203m"
	eLink   = "\x1b[4;38;5;75m"
	eBlock  = "\x1b[48;5;236m"
)

func TestRenderMarkdown(t *testing.T) {
	rule := strings.Repeat("─", 20)
	tests := []struct {
		name  string
		in    string
		width int // 0 means 20
		want  string
		// has are escape-sequence fragments the output must contain.
		has []string
	}{
		// Headings.
		{name: "h1", in: "# Title", want: "Title", has: []string{eH1 + "Title" + sgrReset}},
		{name: "h2", in: "## Sub title", want: "Sub title", has: []string{eH2 + "Sub title"}},
		{name: "h3 is bold", in: "### Small", want: "Small", has: []string{eBold + "Small"}},
		{name: "closing hashes", in: "## Foo ##  ", want: "Foo"},
		{name: "hash without space is text", in: "#hashtag", want: "#hashtag"},
		{name: "seven hashes is text", in: "####### x", want: "####### x"},
		{name: "heading wraps", in: "# one two three four five six", want: "one two three four\nfive six"},
		{name: "heading with code", in: "## Use `go test`", want: "Use go test", has: []string{"38;5;203mgo test" + sgrReset}},
		{name: "setext h1", in: "Title\n=====", want: "Title", has: []string{eH1}},
		{name: "setext h2", in: "Title\n---", want: "Title", has: []string{eH2}},
		{name: "heading then text", in: "# T\nbody", want: "T\nbody"},

		// Paragraphs.
		{name: "wrap", in: "aaa bbb ccc ddd eee fff ggg", want: "aaa bbb ccc ddd eee\nfff ggg"},
		{name: "exact width", in: "aaaaaaaaaa bbbbbbbbb c", want: "aaaaaaaaaa bbbbbbbbb\nc"},
		{name: "soft breaks join", in: "one\ntwo\n  three", want: "one two three"},
		{name: "spaces collapse", in: "a    b\t\tc", want: "a b c"},
		{name: "hard break spaces", in: "one  \ntwo", want: "one\ntwo"},
		{name: "hard break backslash", in: "one\\\ntwo", want: "one\ntwo"},
		{name: "long word is broken", in: "see https://example.com/abc", width: 10, want: "see https:\n//example.\ncom/abc"},
		{name: "wide runes break anywhere", in: "ab 漢字漢字漢字漢字漢字", width: 10, want: "ab 漢字漢\n字漢字漢字\n漢字"},
		{name: "wide rune in a narrow column", in: "漢字", width: 1, want: "漢字"},
		{name: "combining marks", in: "e\u0301e\u0301 " + strings.Repeat("x", 18), want: "e\u0301e\u0301\n" + strings.Repeat("x", 18)},

		// Emphasis.
		{name: "bold", in: "a **b** c", want: "a b c", has: []string{eBold + "b" + sgrReset}},
		{name: "bold underscores", in: "__b__", want: "b", has: []string{eBold + "b"}},
		{name: "italic", in: "*i* _j_", want: "i j", has: []string{eItalic + "i", eItalic + "j"}},
		{name: "bold italic", in: "***x***", want: "x", has: []string{"\x1b[1;3mx"}},
		{name: "nested", in: "**a *b* c**", want: "a b c", has: []string{eBold + "a ", "\x1b[1;3mb"}},
		{name: "strikethrough", in: "~~gone~~ ~1~", want: "gone 1", has: []string{eStrike + "gone", eStrike + "1"}}, // GitHub: one tilde strikes too
		{name: "three tildes are text", in: "a ~~~b~~~", want: "a ~~~b~~~"},
		{name: "intraword underscore", in: "snake_case_name", want: "snake_case_name"},
		{name: "intraword star", in: "un*frigging*believable", want: "unfriggingbelievable", has: []string{eItalic + "frigging"}},
		{name: "unmatched", in: "**open and * alone", want: "**open and * alone"},
		{name: "rule of three", in: "*foo**bar*", want: "foo**bar", has: []string{eItalic + "foo**bar"}},
		{name: "emphasis across lines", in: "**one\ntwo**", want: "one two", has: []string{eBold + "one two"}},
		{name: "escapes", in: `\*not\* \_em\_ \\`, want: `*not* _em_ \`},
		{name: "bold wraps", in: "aaaa **bbbb cccc dddd eeee**", want: "aaaa bbbb cccc dddd\neeee", has: []string{eBold + "bbbb cccc dddd" + sgrReset + "\n" + eBold + "eeee" + sgrReset}},

		// Code spans.
		{name: "code", in: "run `go test` now", want: "run go test now", has: []string{eCode + "go test" + sgrReset}},
		{name: "code with backtick", in: "`` a`b ``", want: "a`b"},
		{name: "code keeps markers literal", in: "`**x**`", want: "**x**"},
		{name: "unclosed backticks", in: "a `b", want: "a `b"},
		{name: "code across lines", in: "`a\nb`", want: "a b"},

		// Links.
		{name: "link", in: "[text](http://u)", want: "text (http://u)", has: []string{eLink + "text" + sgrReset, eDim + " (http://u)"}},
		{name: "link with title", in: `[a b](http://u "T")`, want: "a b (http://u)", has: []string{eLink + "a b"}},
		{name: "link same as text", in: "[http://u](http://u)", want: "http://u"},
		{name: "link with emphasis", in: "[**b**](u)", want: "b (u)", has: []string{"\x1b[1;4;38;5;75mb"}},
		{name: "link in emphasis", in: "*see [x](u)*", want: "see x (u)", has: []string{"\x1b[3;4;38;5;75mx"}},
		{name: "link parens in url", in: "[w](http://x/a_(b))", want: "w (http://x/a_(b))"},
		{name: "angle destination", in: "[w](<http://x y>)", want: "w (http://x y)"},
		{name: "autolink", in: "<https://x.y/z>", want: "https://x.y/z", has: []string{eLink + "https://x.y/z"}},
		{name: "email autolink", in: "<me@x.org>", want: "me@x.org"},
		{name: "image", in: "![a cat](cat.png)", want: "a cat (cat.png)"},
		{name: "image without alt", in: "![](c.png)", want: "image (c.png)"},
		{name: "not a link", in: "[text] (u) [x](", want: "[text] (u) [x]("},
		{name: "undefined reference link is text", in: "[a][b]", want: "[a][b]"},
		{name: "reference link", in: "see [a][b] and [b]\n\n[b]: http://u \"T\"", want: "see a (http://u) and\nb (http://u)", has: []string{eLink + "a" + sgrReset}},
		{name: "collapsed reference", in: "[x][]\n\n[X]: <http://x>", want: "x (http://x)"},

		// Entities and escapes.
		{name: "entities", in: "a &amp; b &lt;c&gt; &copy; &#35; &#x41;", want: "a & b <c> © # A"},
		{name: "escaped entity", in: `\&amp; &amp;amp;`, want: "&amp; &amp;"},
		{name: "unknown entity", in: "&nosuch; &", want: "&nosuch; &"},
		{name: "entity in link", in: "[a&amp;b](http://u?x=1&amp;y=2)", width: 40, want: "a&b (http://u?x=1&y=2)"},
		{name: "control character from a reference", in: "a&#27;[31mb &#x9b;c &#0;", want: "a^[[31mb M-^[c \ufffd"},
		{name: "entity in code is literal", in: "`&amp;`", want: "&amp;"},
		{name: "html is text", in: "<div>x</div> a<b", want: "<div>x</div> a<b"},

		// Code blocks.
		{name: "fence", in: "```go\nfunc f() {\n\treturn\n}\n```", want: "  func f() {\n      return\n  }", has: []string{eBlock + "  func f() {  " + sgrReset, eBlock + "  }           " + sgrReset}},
		{name: "tilde fence", in: "~~~\nx\n~~~", want: "  x"},
		{name: "longer fence", in: "````\n```\nx\n```\n````", want: "  ```\n  x\n  ```"},
		{name: "no wrapping in code", in: "```\n" + strings.Repeat("x", 30) + "\n```", want: "  " + strings.Repeat("x", 30)},
		{name: "code is verbatim", in: "```\n**a** `b` # c\n```", want: "  **a** `b` # c"},
		{name: "unclosed fence", in: "```\na\n\nb", want: "  a\n\n  b"},
		{name: "empty fence", in: "```\n```", want: ""},
		{name: "indented code", in: "    a\n      b\n\n    c", want: "  a\n    b\n\n  c"},
		{name: "text then fence", in: "Run:\n```sh\nls\n```\nDone.", want: "Run:\n  ls\nDone."},
		{name: "fence in list", in: "1. Run:\n   ```sh\n   ls\n   ```", want: "1. Run:\n     ls"},
		{name: "deep fence closed", in: "- a\n    ```\n    x\n    ```", want: "• a\n    x"}, // the fence is in the item: aligned with its text

		// Lists.
		{name: "bullets", in: "- a\n* b\n+ c", want: "• a\n• b\n• c"},
		{name: "numbered", in: "1. a\n2. b\n10) c", want: "1. a\n2. b\n10) c"},
		{name: "hanging indent", in: "- aaa bbb ccc ddd eee fff", want: "• aaa bbb ccc ddd\n  eee fff"},
		{name: "numbered hanging indent", in: "12. aaa bbb ccc ddd eee", want: "12. aaa bbb ccc ddd\n    eee"},
		{name: "nested", in: "- a\n  - b\n    - c\n- d", want: "• a\n  • b\n    • c\n• d"},
		{name: "nested wrap", in: "1. a\n   - bb cc dd ee ff gg", want: "1. a\n   • bb cc dd ee ff\n     gg"},
		{name: "lazy continuation", in: "- a\ncontinued\n- b", want: "• a continued\n• b"},
		{name: "empty item", in: "-\n- b", want: "•\n• b"},
		{name: "paragraph then list", in: "Steps:\n- a\n- b", want: "Steps:\n• a\n• b"},
		{name: "numbered list must start at 1 to interrupt", in: "The year\n2024. was", want: "The year 2024. was"},
		{name: "dash without space is text", in: "-a\n--b", want: "-a --b"},
		{name: "task items", in: "- [ ] todo\n- [x] done", want: "• [ ] todo\n• [x] done"},

		// Block quotes.
		{name: "quote", in: "> aaa bbb ccc ddd eee", want: "│ aaa bbb ccc ddd\n│ eee", has: []string{eDim + "│" + sgrReset}},
		{name: "quote paragraphs", in: "> a\n>\n> b", want: "│ a\n│\n│ b"},
		{name: "nested quote", in: "> a\n> > b", want: "│ a\n│ │ b"},
		{name: "lazy quote", in: "> a\nb", want: "│ a b"},
		{name: "quote with list and code", in: "> - x\n> ```\n> y\n> ```", want: "│ • x\n│   y"},
		{name: "quote ends at a block", in: "> a\n# H", want: "│ a\nH"},

		// Thematic breaks.
		{name: "rule", in: "---", want: rule, has: []string{eDim + rule + sgrReset}},
		{name: "rules", in: "***\n_ _ _\n- - -", want: rule + "\n" + rule + "\n" + rule},
		{name: "rule after text", in: "a\n***", want: "a\n" + rule},

		// Tables.
		{
			name: "table",
			in:   "| Name | Qty | Note |\n|:--|--:|:-:|\n| apple | 3 | ok |\n| kiwi | 12 | x |",
			want: "Name  │ Qty │ Note\n──────┼─────┼─────\napple │   3 │  ok\nkiwi  │  12 │  x",
			has:  []string{eBold + "Name" + sgrReset, eDim + " │ " + sgrReset, eDim + "──────┼─────┼─────" + sgrReset},
		},
		{name: "table without outer pipes", in: "a | b\n--|--\n1 | 2", want: "a │ b\n──┼──\n1 │ 2"},
		{name: "table cells", in: "| a | b |\n|---|---|\n| `x\\|y` | **z** |\n| only |", want: "a    │ b\n─────┼──\nx|y  │ z\nonly │", has: []string{eCode + "x|y"}},
		{
			name:  "table wraps cells",
			in:    "| k | description |\n|---|---|\n| a | one two three four five six seven |",
			width: 24,
			want:  "k │ description\n──┼" + strings.Repeat("─", 21) + "\na │ one two three four\n  │ five six seven",
		},
		{name: "table too narrow", in: "| a | b | c |\n|---|---|---|\n| xxxxxxxx | yyyyyyyy | zzzzzzzz |", width: 10, want: "| a | b | c |\n|---|---|---|\n| xxxxxxxx | yyyyyyyy | zzzzzzzz |"},
		{name: "not a table: counts differ", in: "a | b\n---|---|---", want: "a | b ---|---|---"},
		{name: "not a table: counts differ, with rows", in: "a | b\n---|---|---\n1 | 2", width: 40, want: "a | b ---|---|--- 1 | 2"},
		{name: "table after text", in: "Data:\n| a |\n|---|\n| 1 |", want: "Data:\na\n─\n1"},
		{name: "a line without pipe is a row", in: "| a |\n|---|\n| 1 |\nafter", want: "a\n─────\n1\nafter"}, // GitHub's table rules
		{name: "table ends at a blank line", in: "| a |\n|---|\n| 1 |\n\nafter", want: "a\n─\n1\n\nafter"},

		// Blank lines, raw text and control characters.
		{name: "blocks separated", in: "\n\n# A\n\n\nb\n\n", want: "A\n\nb"},
		{name: "blank", in: " \n\t\n", want: ""},
		{name: "control characters", in: "a\x1b[31mb\x07\r\x7f\u009b", want: "a^[[31mb^G^M^?M-^["},
		{name: "control characters in code", in: "```\n\x1b]0;x\x07\n```", want: "  ^[]0;x^G"},
		{name: "invalid utf-8", in: "a\xffb \xe6\xbc", want: "a\xffb \xe6\xbc"},
		{name: "tabs", in: "-\ta\tb", want: "• a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			width := tt.width
			if width == 0 {
				width = 20
			}
			if tt.width == 0 && width < minWrap {
				t.Fatal("bad width")
			}
			out := renderMarkdown(tt.in, width, newTheme("dark", false))
			if out != "" && !strings.HasSuffix(out, "\n") {
				t.Errorf("output does not end with a newline: %q", out)
			}
			if got := strings.TrimSuffix(visible(out), "\n"); got != tt.want {
				t.Errorf("render(%q):\n%s\nwant:\n%s\nraw: %q", tt.in, got, tt.want, out)
			}
			for _, h := range tt.has {
				if !strings.Contains(out, h) {
					t.Errorf("render(%q) = %q, lacks %q", tt.in, out, h)
				}
			}
		})
	}
}

// TestRenderMarkdownWidthClamp checks that a tiny width is raised to
// minWrap rather than wrapping a word per line.
func TestRenderMarkdownWidthClamp(t *testing.T) {
	got := visible(renderMarkdown("aa bb cc dd ee", 3, newTheme("dark", false)))
	if got != "aa bb cc\ndd ee\n" {
		t.Errorf("got %q", got)
	}
}

func TestRenderMarkdownPlain(t *testing.T) {
	tests := []struct{ in, want string }{
		{"# Title\n\n**bold** *it* `code` ~~s~~ [l](u)", "# Title\n\n**bold** *it* `code` ~~s~~ l (u)\n"},
		{"### H *x*", "### H *x*\n"},
		{"- a\n> q\n\n```\nc\n```", "• a\n│ q\n\n    c\n"},
		{"| a | b |\n|---|--:|\n| 1 | 22 |", "a │  b\n──┼───\n1 │ 22\n"},
		{"---", strings.Repeat("─", 40) + "\n"},
	}
	for _, th := range []*theme{newTheme("notty", false), newTheme("ascii", true)} {
		for _, tt := range tests {
			got := renderMarkdown(tt.in, 40, th)
			if got != tt.want {
				t.Errorf("plain render(%q) = %q, want %q", tt.in, got, tt.want)
			}
		}
	}
}

func TestRenderMarkdownNoColor(t *testing.T) {
	th := newTheme("dark", true)
	got := renderMarkdown("# T\n## U\n**b** *i* `c` [l](u)\n```\nx\n```", 40, th)
	want := "\x1b[1;4mT\x1b[0m\n\x1b[1mU\x1b[0m\n\x1b[1mb\x1b[0m \x1b[3mi\x1b[0m `c` \x1b[4ml\x1b[0m\x1b[2m (u)\x1b[0m\n    x\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestRenderMarkdownLight(t *testing.T) {
	got := renderMarkdown("# T `c`", 40, newTheme("light", false))
	if !strings.Contains(got, "38;5;162") || !strings.Contains(got, "38;5;160") {
		t.Errorf("light theme colours missing: %q", got)
	}
}

func TestRenderMarkdownListContext(t *testing.T) {
	th := newTheme("dark", false)
	// A block following a list: indented text continues the list.
	out, inList := th.render("   more text\n   - nested", 40, true)
	if visible(out) != "   more text\n   • nested\n" || !inList {
		t.Errorf("after a list: %q, %v", out, inList)
	}
	out, inList = th.render("    code", 40, false)
	if visible(out) != "  code\n" || inList {
		t.Errorf("not after a list: %q, %v", out, inList)
	}
	if _, inList = th.render("- a\n\ntext", 40, false); inList {
		t.Error("a list followed by a flush-left paragraph still counts as a list")
	}
}

// checkRendered fails unless out is empty or ends with a newline, has no
// control characters other than newline and the SGR sequences of the
// theme, and resets the style at the end of every line that sets one.
func checkRendered(t *testing.T, in, out string) {
	t.Helper()
	if out != "" && !strings.HasSuffix(out, "\n") {
		t.Fatalf("render(%q) = %q: no final newline", in, out)
	}
	for _, line := range strings.Split(out, "\n") {
		seqs := sgrRE.FindAllString(line, -1)
		if len(seqs) > 0 && seqs[len(seqs)-1] != sgrReset {
			t.Fatalf("render(%q): line %q leaves a style on", in, line)
		}
		rest := sgrRE.ReplaceAllString(line, "")
		for i := 0; i < len(rest); i++ {
			if c := rest[i]; c < 0x20 || c == 0x7f {
				t.Fatalf("render(%q): control character %#x in line %q", in, c, line)
			}
		}
	}
}

func FuzzRenderMarkdown(f *testing.F) {
	f.Add(benchDoc, uint8(60))
	for _, s := range []string{
		"# h\n**b** _i_ `c` [l](u) <http://a>", "```\n\x1b[2J\n", "> > - [x](<y>)\n>\n| a |\n|---|\n| \x07 |",
		"***a**b*c_d_~~e~~", "- a\n  1. b\n     ```\n\tx\n```", "![](\x00)", "\\\n[[[]]](((", "漢字\u0301 \xff\xfe",
		"| a | b |\n|:-:|--:|\n| 1 |", "a  \nb\\\nc", "    code\n\n    more", "Title\n===\n---\n***",
	} {
		f.Add(s, uint8(20))
	}
	f.Fuzz(func(t *testing.T, in string, width uint8) {
		for _, th := range []*theme{newTheme("dark", false), newTheme("light", true), newTheme("notty", false)} {
			out := renderMarkdown(in, int(width), th)
			checkRendered(t, in, out)
			if !utf8.ValidString(in) {
				continue
			}
			if !utf8.ValidString(out) {
				t.Fatalf("render(%q) = %q: invalid UTF-8 from valid input", in, out)
			}
		}
		// Through the streaming printer, in two deltas.
		p, v := ttyPrinter(max(int(width), 1), 10)
		cut := len(in) / 2
		p.Write(ports.ChannelContent, in[:cut])
		p.Write(ports.ChannelContent, in[cut:])
		p.EndBlock(ports.ChannelContent)
		for _, r := range v.String() {
			if r < 0x20 && r != '\n' || r >= 0x7f && r < 0xa0 {
				t.Fatalf("control character %#x on screen for %q", r, in)
			}
		}
	})
}

// benchDoc is a ~2 KB answer mixing every construct.
const benchDoc = "# Migrating the config loader\n\n" +
	"The loader reads `config.toml` from the **workspace** first and then from the *user* directory; " +
	"values in the workspace win. See [the spec](https://example.com/spec#loader) for the full order, " +
	"and note that ~~YAML~~ is no longer supported.\n\n" +
	"## Steps\n\n" +
	"1. Move the old file:\n" +
	"   ```sh\n" +
	"   mv ~/.jp.yaml ~/.config/jp/config.toml\n" +
	"   ```\n" +
	"2. Convert the keys. Most map one to one, but `model` becomes a table with a `name` and a `provider`, " +
	"and the *temperature* moves under it.\n" +
	"   - `model = \"x\"` becomes `[model] name = \"x\"`\n" +
	"   - `max_tokens` keeps its name\n" +
	"3. Run `jp config check` and fix what it reports.\n\n" +
	"> **Note:** the check is strict: unknown keys are errors, not warnings, so that typos do not go unnoticed " +
	"for weeks.\n\n" +
	"| Key | Old | New | Default |\n" +
	"|:----|:----|:----|--------:|\n" +
	"| model | `model` | `model.name` | claude |\n" +
	"| temperature | `temp` | `model.temperature` | 1.0 |\n" +
	"| max tokens | `max_tokens` | `model.max_tokens` | 4096 |\n\n" +
	"---\n\n" +
	"```go\n" +
	"func Load(dir string) (*Config, error) {\n" +
	"\tb, err := os.ReadFile(filepath.Join(dir, \"config.toml\"))\n" +
	"\tif err != nil {\n" +
	"\t\treturn nil, fmt.Errorf(\"read config: %w\", err)\n" +
	"\t}\n" +
	"\tvar c Config\n" +
	"\treturn &c, toml.Unmarshal(b, &c)\n" +
	"}\n" +
	"```\n\n" +
	"If the old file had comments, they are lost: TOML keeps them, but the converter cannot know where " +
	"each one belonged. Copy them over by hand where they still matter, or drop them.\n\n" +
	"### Troubleshooting\n\n" +
	"- **`unknown key`**: a typo, or a key from an older release; `jp config check --explain` says which.\n" +
	"- **permission denied**: the directory is not yours (see [issue 42](https://example.com/issues/42)).\n\n" +
	"> The loader never writes the file, so running the check is always safe.\n" +
	"> Nested:\n> > even this works.\n\n" +
	"That is all: *three* steps, one command, and the old file can go. If something breaks, " +
	"run with `--debug` and open an issue at <https://example.com/issues> with the output; " +
	"**do not** paste your API keys.\n\n" +
	"- first point with **bold**, *italic* and `code`\n" +
	"- second point, long enough to wrap onto a second line with a hanging indent under the bullet\n" +
	"  - nested point\n"

// BenchmarkRenderMarkdown renders a ~2 KB mixed document, one block at a
// time as the printer hands them over, at 80 columns.
func BenchmarkRenderMarkdown(b *testing.B) {
	th := newTheme("dark", false)
	blocks := splitBlocks(benchDoc)
	b.SetBytes(int64(len(benchDoc)))
	b.ReportAllocs()
	for b.Loop() {
		inList := false
		for _, blk := range blocks {
			_, inList = th.render(blk, 80, inList)
		}
	}
}

// splitBlocks splits a document into blocks with the printer's boundary
// logic.
func splitBlocks(doc string) []string {
	m := &markdown{buf: []byte(doc)}
	var blocks []string
	for {
		m.dropLeadingBlankLines()
		end := m.boundary()
		if end < 0 {
			break
		}
		blocks = append(blocks, string(m.buf[:end]))
		m.buf = m.buf[end:]
		m.reset()
	}
	if strings.TrimSpace(string(m.buf)) != "" {
		blocks = append(blocks, string(m.buf))
	}
	return blocks
}

func TestSplitBlocks(t *testing.T) {
	blocks := splitBlocks(benchDoc)
	if len(benchDoc) < 1800 || len(benchDoc) > 2600 || len(blocks) < 10 {
		t.Errorf("benchDoc is %d bytes in %d blocks", len(benchDoc), len(blocks))
	}
}

// renderMarkdown renders one markdown block to width columns; the result
// is empty or ends with a newline.
func renderMarkdown(src string, width int, t *theme) string {
	out, _ := t.render(src, width, false)
	return out
}
