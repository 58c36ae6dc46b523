package attach

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/ports"
)

func TestFileURLIsRelativeToTheCheckout(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"docs/a.md": "a", "docs/b.md": "b", "docs/sub/c.md": "c", "x.txt": "x"})
	sub := filepath.Join(root, "docs")
	for _, spec := range []string{"file:x.txt", "file:/x.txt", "file://x.txt", "file:///x.txt"} {
		atts, err := (&Attacher{}).Attach(context.Background(), ports.AttachRequest{Specs: []string{spec}, Dir: sub, Root: root})
		if err != nil || sources(atts) != "x.txt" || atts[0].Local {
			t.Fatalf("%s: %v %v", spec, sources(atts), err)
		}
	}
	atts, err := (&Attacher{}).Attach(context.Background(), ports.AttachRequest{Specs: []string{"file:docs/**/*.md", "file:docs/sub?exclude"}, Dir: sub, Root: root})
	if err != nil || sources(atts) != "docs/a.md,docs/b.md" {
		t.Fatalf("glob with exclude: %v %v", sources(atts), err)
	}
	atts, err = (&Attacher{}).Attach(context.Background(), ports.AttachRequest{Specs: []string{"file:docs", "file:docs/a.md?exclude"}, Dir: sub, Root: root})
	if err != nil || sources(atts) != "docs/b.md,docs/sub/c.md" {
		t.Fatalf("directory with exclude: %v %v", sources(atts), err)
	}
}

func TestFileURLConfinedAsAPath(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, outside, map[string]string{"secret.txt": "s"})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]string{
		"file:../x":      "leading out with ..",
		"file:link.txt":  "resolves outside the checkout",
		"file:?exclude":  "give a path inside the checkout",
		"file:a?bogus=1": `unknown parameter "bogus"`,
	} {
		_, err := (&Attacher{}).Attach(context.Background(), ports.AttachRequest{Specs: []string{spec}, Dir: root, Root: root, Confine: true})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	// Typed with -a (not confined), a link leading out is read and kept
	// local, as a plain path is.
	atts, err := (&Attacher{}).Attach(context.Background(), ports.AttachRequest{Specs: []string{"file:link.txt"}, Dir: root, Root: root})
	if err != nil || !atts[0].Local {
		t.Fatalf("typed link: %v %v", atts, err)
	}
}
