package terminal

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/jpcli/jp/internal/safetext"
)

// specExample is one example of the CommonMark specification.
type specExample struct {
	Markdown string `json:"markdown"`
	HTML     string `json:"html"`
	Example  int    `json:"example"`
	Section  string `json:"section"`
}

// loadSpec reads the CommonMark spec examples (see testdata/README.md).
func loadSpec(t *testing.T) []specExample {
	t.Helper()
	b, err := os.ReadFile("testdata/commonmark-spec.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex []specExample
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex) < 600 {
		t.Fatalf("only %d spec examples", len(ex))
	}
	return ex
}

// markers drops the characters a theme without colours shows around
// emphasis and code.
var markers = strings.NewReplacer("*", "", "`", "", "~", "")

var htmlTagRE = regexp.MustCompile(`<[^>]*>`)

// specWords returns the words of the text the specification's HTML shows
// (entities decoded), as the terminal shows them. A tag separates words:
// the terminal shows a link's destination after its text, and raw HTML
// as text.
func specWords(h string) []string {
	return strings.Fields(safetext.String(html.UnescapeString(htmlTagRE.ReplaceAllString(h, " "))))
}

// TestCommonMarkSpec runs every CommonMark spec example through the
// terminal renderer, in every theme: it must not panic, must pass the
// output checks of the fuzz test, and every word of the text the
// specification's HTML shows must be on screen.
func TestCommonMarkSpec(t *testing.T) {
	t.Parallel()
	themes := map[string]*theme{"dark": newTheme("dark", false), "nocolor": newTheme("light", true), "plain": newTheme("notty", false)}
	missing := 0
	for _, ex := range loadSpec(t) {
		for name, th := range themes {
			var out string
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("example %d (%s), %s theme: panic %v\n%q", ex.Example, ex.Section, name, p, ex.Markdown)
					}
				}()
				out = renderMarkdown(ex.Markdown, 200, th)
			}()
			checkRendered(t, ex.Markdown, out)
			shown := sgrRE.ReplaceAllString(out, "")
			if name != "dark" {
				// These themes show emphasis and code by their markers.
				shown = markers.Replace(shown)
			}
			for _, w := range specWords(ex.HTML) {
				if name != "dark" {
					w = markers.Replace(w)
				}
				if !strings.Contains(shown, w) {
					missing++
					t.Errorf("example %d (%s), %s theme: %q not shown\nmarkdown %q\nshown:\n%s", ex.Example, ex.Section, name, w, ex.Markdown, shown)
					break
				}
			}
		}
	}
	if missing > 0 {
		fmt.Fprintf(os.Stderr, "%d examples with missing text\n", missing)
	}
}
