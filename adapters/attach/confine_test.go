package attach

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// linkedCheckout is a checkout with src/a.go, src/key.go linking to a
// secret outside it, and out-dir linking to the directory holding the
// secret. It returns the checkout and the secret's path.
func linkedCheckout(t *testing.T) (root, secret string) {
	t.Helper()
	outer := t.TempDir()
	secret = filepath.Join(outer, "id_rsa")
	write(t, outer, map[string]string{"id_rsa": "PRIVATE KEY"})
	root = t.TempDir()
	write(t, root, map[string]string{"src/a.go": "package a\n", "notes.txt": "notes"})
	if err := os.Symlink(secret, filepath.Join(root, "src", "key.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outer, filepath.Join(root, "out-dir")); err != nil {
		t.Fatal(err)
	}
	return root, secret
}

// attach runs one request and returns what it attached and the notes.
func attach(t *testing.T, req ports.AttachRequest) ([]conversation.Attachment, []string, error) {
	t.Helper()
	var notes []string
	req.Note = func(line string) { notes = append(notes, line) }
	atts, err := (&Attacher{}).Attach(context.Background(), req)
	return atts, notes, err
}

// TestGlobLeavesOutLinksOut: -a 'src/*.go' with src/key.go linking to a
// key outside the checkout attaches src/a.go alone, and says in one line
// that src/key.go was left out; -a src notes it too.
func TestGlobLeavesOutLinksOut(t *testing.T) {
	t.Parallel()
	root, _ := linkedCheckout(t)
	for _, spec := range []string{"src/*.go", "src/**", "src"} {
		atts, notes, err := attach(t, ports.AttachRequest{Specs: []string{spec}, Dir: root, Root: root})
		if err != nil {
			t.Fatalf("-a %s: %v", spec, err)
		}
		if got := sources(atts); got != "src/a.go" {
			t.Errorf("-a %s attached %s, want src/a.go alone", spec, got)
		}
		for _, a := range atts {
			if strings.Contains(a.Content, "PRIVATE KEY") {
				t.Errorf("-a %s attached the key", spec)
			}
		}
		if len(notes) != 1 || !strings.Contains(notes[0], "src/key.go") || !strings.Contains(notes[0], "outside the checkout") {
			t.Errorf("-a %s notes = %q, want one line naming src/key.go", spec, notes)
		}
	}
}

// TestOutsideIsLocal: a file the user names outside the checkout (or a
// link to one) is attached, marked Local; a command's output and a file
// of the checkout are marked and not marked.
func TestOutsideIsLocal(t *testing.T) {
	t.Parallel()
	root, secret := linkedCheckout(t)
	for spec, local := range map[string]bool{
		secret:           true,
		"src/key.go":     true,
		"out-dir":        true,
		"out-dir/id_rsa": true,
		"src/a.go":       false,
		"src":            false,
		"cmd:echo hi":    true,
	} {
		atts, _, err := attach(t, ports.AttachRequest{Specs: []string{spec}, Dir: root, Root: root})
		if err != nil {
			t.Fatalf("-a %s: %v", spec, err)
		}
		for _, a := range atts {
			if a.Local != local {
				t.Errorf("-a %s: %s Local = %v, want %v", spec, a.Source, a.Local, local)
			}
		}
	}
}

// TestConfinedRefusals: configured attachments (Confine) stay inside the
// checkout: absolute paths, "..", and links out (a file, a directory, a
// glob's match) are refused in one line naming the path and why.
func TestConfinedRefusals(t *testing.T) {
	t.Parallel()
	root, secret := linkedCheckout(t)
	for spec, want := range map[string]string{
		secret:         secret + ": refused: an absolute path",
		"../x.txt":     "../x.txt: refused: an absolute path or one leading out with ..",
		"../*":         "../*: refused: an absolute path or one leading out with ..",
		"src/key.go":   "src/key.go: refused: it resolves outside the checkout through a symbolic link",
		"out-dir":      "out-dir: refused: it resolves outside the checkout",
		"out-dir/*":    "out-dir/id_rsa: refused: it resolves outside the checkout",
		"src/*.go":     "src/key.go: refused: it resolves outside the checkout",
		"src/../../*":  "refused: an absolute path or one leading out with ..",
		"src/../a.txt": "src/../a.txt: no such file",
	} {
		_, _, err := attach(t, ports.AttachRequest{Specs: []string{spec}, Dir: root, Root: root, Confine: true})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want %q", spec, err, want)
		}
	}
	atts, _, err := attach(t, ports.AttachRequest{Specs: []string{"src/a.go", "notes.txt", "src"}, Dir: root, Root: root, Confine: true})
	if err != nil || sources(atts) != "src/a.go,notes.txt,src/a.go" {
		t.Fatalf("confined paths inside the checkout: %s, %v", sources(atts), err)
	}
}

// Confined without a checkout (a plugin's query in the default workspace):
// no path is read, not even one in the directory jp runs in.
func TestConfinedWithoutCheckoutReadsNoPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := attach(t, ports.AttachRequest{Specs: []string{"secret.txt"}, Dir: dir, Confine: true})
	if err == nil || !strings.Contains(err.Error(), "secret.txt: refused: there is no checkout to attach paths from") {
		t.Errorf("err = %v", err)
	}
}
