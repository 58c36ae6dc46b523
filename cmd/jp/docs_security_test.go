package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSecurityDocNamesRealTests checks the attack table of
// docs/security.md: every test it names exists in the repository (a Go
// test function, or a scenario under testdata/script), so the page
// cannot claim a guarantee no test holds.
func TestSecurityDocNamesRealTests(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(doc), "\n") {
		if regexp.MustCompile(`^\| \d+ \|`).MatchString(line) {
			rows = append(rows, line)
		}
	}
	if len(rows) != 13 {
		t.Fatalf("docs/security.md has %d attack rows, want 13", len(rows))
	}
	names := regexp.MustCompile("`([A-Za-z0-9_/.-]+)`")
	for _, row := range rows {
		cells := strings.Split(row, "|")
		testCell := cells[len(cells)-2]
		found := 0
		for _, m := range names.FindAllStringSubmatch(testCell, -1) {
			name := m[1]
			found++
			if strings.HasSuffix(name, ".txtar") {
				if _, err := os.Stat(filepath.Join("testdata", "script", filepath.Base(name))); err != nil {
					t.Errorf("docs/security.md names %s, which is not a scenario: %v", name, err)
				}
				continue
			}
			fn := strings.SplitN(name, "/", 2)[0]
			out, err := exec.Command("git", "-C", filepath.Join("..", ".."), "grep", "-l", "-E", `^func `+fn+`\(t \*testing\.T\)`, "--", "*_test.go").Output()
			if err != nil || len(strings.TrimSpace(string(out))) == 0 {
				t.Errorf("docs/security.md names test %s, which no _test.go file defines", fn)
			}
		}
		if found == 0 {
			t.Errorf("attack row names no test: %s", row)
		}
	}
}
