package terminal

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/jpcli/jp/ports"
)

func press(m *composerModel, keys ...tea.KeyMsg) {
	for _, k := range keys {
		m.Update(k)
	}
}

func typeText(m *composerModel, s string) {
	for _, r := range s {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

var (
	teaUp    = tea.KeyMsg{Type: tea.KeyUp}
	teaDown  = tea.KeyMsg{Type: tea.KeyDown}
	teaTab   = tea.KeyMsg{Type: tea.KeyTab}
	teaEnter = tea.KeyMsg{Type: tea.KeyEnter}
	teaCtrlC = tea.KeyMsg{Type: tea.KeyCtrlC}
	teaCtrlD = tea.KeyMsg{Type: tea.KeyCtrlD}
)

func TestComposerHistoryUpDown(t *testing.T) {
	m := newComposerModel(ports.ComposeRequest{Session: true, History: []string{"older", "newer"}})
	typeText(m, "draft")
	press(m, teaUp)
	if got := m.ta.Value(); got != "newer" {
		t.Fatalf("Up: %q", got)
	}
	press(m, teaUp, teaUp) // stops at the oldest
	if got := m.ta.Value(); got != "older" {
		t.Fatalf("Up Up Up: %q", got)
	}
	press(m, teaDown, teaDown)
	if got := m.ta.Value(); got != "draft" {
		t.Fatalf("Down past the newest gives back the text typed: %q", got)
	}
}

func TestComposerCtrlCClearsThenLeaves(t *testing.T) {
	m := newComposerModel(ports.ComposeRequest{Session: true})
	typeText(m, "keep me")
	press(m, teaCtrlC)
	if m.ta.Value() != "" || m.left || m.cleared != "keep me" {
		t.Fatalf("first Ctrl-C: value %q left %v cleared %q", m.ta.Value(), m.left, m.cleared)
	}
	if !strings.Contains(m.View(), "Ctrl-C again leaves") {
		t.Errorf("no note after the first Ctrl-C:\n%s", m.View())
	}
	press(m, teaCtrlC)
	if !m.left {
		t.Fatal("a second Ctrl-C in a row does not leave")
	}
	// A key between two Ctrl-C disarms the second.
	m = newComposerModel(ports.ComposeRequest{Session: true})
	press(m, teaCtrlC)
	typeText(m, "x")
	press(m, teaCtrlC)
	if m.left {
		t.Fatal("Ctrl-C, a key, Ctrl-C left")
	}
	press(m, teaCtrlD)
	if !m.ended {
		t.Fatal("Ctrl-D does not end")
	}
}

func TestComposerSlashCompletion(t *testing.T) {
	m := newComposerModel(ports.ComposeRequest{Session: true, Commands: []ports.SlashCommand{{Name: "model", Args: "[ID]", Help: "switch"}, {Name: "new"}}})
	typeText(m, "/mo")
	if !slices.Equal(m.matches, []string{"/model"}) {
		t.Fatalf("matches = %q", m.matches)
	}
	if v := m.View(); !strings.Contains(v, "› /model") || !strings.Contains(v, "switch") {
		t.Errorf("view lacks the completion:\n%s", v)
	}
	press(m, teaTab)
	if got := m.ta.Value(); got != "/model " {
		t.Fatalf("Tab: %q", got)
	}
	typeText(m, "x")
	press(m, teaEnter)
	if !m.submitted || m.ta.Value() != "/model x" {
		t.Fatalf("Enter: submitted %v, %q", m.submitted, m.ta.Value())
	}
	// Not the first word: no command completion.
	m = newComposerModel(ports.ComposeRequest{Session: true, Commands: []ports.SlashCommand{{Name: "model"}}})
	typeText(m, "see /mo")
	if len(m.matches) != 0 {
		t.Fatalf("matches mid-text = %q", m.matches)
	}
}

func TestComposerAtCompletionFollowsIgnoreRules(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{
		"src/greet.txt": "x", "build/out.bin": "x", "notes.log": "x", ".gitignore": "build/\n*.log\n", ".git/config": "x",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	files := checkoutFiles(root)
	slices.Sort(files)
	if want := []string{".gitignore", "src/greet.txt"}; !slices.Equal(files, want) {
		t.Fatalf("checkoutFiles = %q, want %q (ignored, .git and links left out)", files, want)
	}
	m := newComposerModel(ports.ComposeRequest{Session: true, Root: root})
	typeText(m, "read @gre")
	if !slices.Equal(m.matches, []string{"src/greet.txt"}) {
		t.Fatalf("matches = %q", m.matches)
	}
	press(m, teaEnter) // Enter takes the completion, it does not send
	if m.submitted || m.ta.Value() != "read @src/greet.txt " {
		t.Fatalf("after Enter on a completion: submitted %v, %q", m.submitted, m.ta.Value())
	}
}

func TestComposerHeaderIsSafe(t *testing.T) {
	m := newComposerModel(ports.ComposeRequest{Session: true, Header: "title\x1b]0;evil\x07 · 123 · demo/echo"})
	if v := m.View(); strings.Contains(v, "\x1b]0;") || strings.Contains(v, "\x07") {
		t.Fatalf("control characters of the header reach the terminal: %q", v)
	}
}
