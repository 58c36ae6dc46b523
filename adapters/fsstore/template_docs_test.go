package fsstore

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestInitTemplateMatchesToolsDoc: the default set of built-in tools that
// docs/tools.md shows is the one jp init writes (and the end-to-end
// scenarios run turns with it).
func TestInitTemplateMatchesToolsDoc(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- jp-init-tools:[^>]*-->\n```toml\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/tools.md has no jp-init-tools block")
	}
	if !strings.HasSuffix(configTemplate, "\n"+string(m[1])) {
		t.Fatalf("jp init's config does not end with the block of docs/tools.md:\n%s", m[1])
	}
}
