package attach

import (
	"context"
	"encoding/json"
	"os"

	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/builtintools"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/internal/gitignore/gitignoretest"
	"github.com/jpcli/jp/ports"
)

// attached is what `-a spec` attaches in the checkout dir, by source.
func attached(t *testing.T, dir, spec string) []string {
	t.Helper()
	atts, err := (&Attacher{}).Attach(context.Background(), ports.AttachRequest{Specs: []string{spec}, Dir: dir, Root: dir})
	if err != nil {
		t.Fatalf("-a %s: %v", spec, err)
	}
	var out []string
	for _, a := range atts {
		out = append(out, a.Source)
	}
	return out
}

// listFiles is what the model's fs_list_files lists in the checkout dir.
func listFiles(t *testing.T, dir, start string) []string {
	t.Helper()
	cfg := config.Default()
	cfg.Conversation.Tools.Named[builtintools.ListFiles] = config.Tool{}
	s := builtintools.New(cfg, dir)
	t.Cleanup(func() { _ = s.Close() })
	args, _ := json.Marshal(map[string]string{"path": start})
	r, err := s.Call(context.Background(), builtintools.ListFiles, args)
	if err != nil || r.IsError {
		t.Fatalf("fs_list_files %s: %v %s", start, err, r.Content)
	}
	if r.Content == "No files match.\n" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(r.Content, "\n"), "\n")
}

// attachable keeps what an attachment of start keeps of a listing: no
// name starting with a dot below start, no symbolic link (the two
// documented differences, docs/ignored-files.md).
func attachable(t *testing.T, dir, start string, list []string) []string {
	var out []string
	for _, p := range list {
		below := strings.TrimPrefix(p, start+"/")
		if start == "." {
			below = p
		}
		if strings.HasPrefix(below, ".") || strings.Contains(below, "/.") {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out = append(out, p)
	}
	return out
}

// TestDirectoryAgreesWithListFiles: on every tree of the walker's table,
// `-a DIR` attaches what fs_list_files lists for DIR, less the documented
// differences (dotfiles and symbolic links), and what the table says.
func TestDirectoryAgreesWithListFiles(t *testing.T) {
	t.Parallel()
	for _, c := range gitignoretest.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			dir := gitignoretest.MakeTree(t, c.Files, false)
			start := filepath.ToSlash(filepath.Clean("./" + c.Start))
			got := attached(t, dir, start)
			if list := attachable(t, dir, start, listFiles(t, dir, start)); !slices.Equal(got, list) {
				t.Errorf("-a %s attached\n  %q\nfs_list_files lists (less dotfiles and links)\n  %q", start, got, list)
			}
			if want := attachable(t, dir, start, c.Want); !slices.Equal(got, want) {
				t.Errorf("-a %s attached\n  %q\nthe table says\n  %q", start, got, want)
			}
		})
	}
}

// TestDirectoryDocExample: `-a .` attaches docs/ignored-files.md's
// example as the page says, and a subdirectory of the checkout obeys the
// root's .gitignore.
func TestDirectoryDocExample(t *testing.T) {
	t.Parallel()
	files, _, want := gitignoretest.DocExample(t, "../../docs/ignored-files.md")
	dir := gitignoretest.MakeTree(t, files, false)
	if got := attached(t, dir, "."); !slices.Equal(got, want) {
		t.Errorf("-a . attached %q, the page says %q", got, want)
	}
	// From inside docs/, -a . is docs/ with the root's rules: docs/notes.txt
	// stays (the root's /notes.txt is anchored), docs/debug.log would not.
	if err := os.WriteFile(filepath.Join(dir, "docs", "debug.log"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	atts, err := (&Attacher{}).Attach(context.Background(), ports.AttachRequest{Specs: []string{"."}, Dir: filepath.Join(dir, "docs"), Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := sources(atts); got != "keep.log,notes.txt" {
		t.Errorf("-a . in docs/ attached %s, want keep.log,notes.txt", got)
	}
}

// TestDirectoryRefusesGit: -a .git is one clear line.
func TestDirectoryRefusesGit(t *testing.T) {
	t.Parallel()
	dir := gitignoretest.MakeTree(t, map[string]string{".git/config": "[core]"}, false)
	_, err := (&Attacher{}).Attach(context.Background(), ports.AttachRequest{Specs: []string{".git"}, Dir: dir, Root: dir})
	if err == nil || err.Error() != ".git: is inside .git, which jp never attaches as a directory; attach a file in it by name" {
		t.Fatalf("err = %v", err)
	}
	if got := attached(t, dir, ".git/config"); !slices.Equal(got, []string{".git/config"}) {
		t.Fatalf("-a .git/config attached %q", got)
	}
}

// TestDirectorySymlinks: links inside an attached directory are left out
// (never followed), as before the shared walker; a named directory that
// is itself a link is walked, as a named path is opened.
func TestDirectorySymlinks(t *testing.T) {
	t.Parallel()
	outer := t.TempDir()
	if err := os.WriteFile(filepath.Join(outer, "secret.txt"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := gitignoretest.MakeTree(t, map[string]string{"a.txt": "a", "in-link": "-> a.txt"}, false)
	if err := os.Symlink(outer, filepath.Join(dir, "out-dir")); err != nil {
		t.Fatal(err)
	}
	if got := attached(t, dir, "."); !slices.Equal(got, []string{"a.txt"}) {
		t.Errorf("-a . attached %q, want [a.txt] (links left out)", got)
	}
	if got := attached(t, dir, "out-dir"); !slices.Equal(got, []string{"out-dir/secret.txt"}) {
		t.Errorf("-a out-dir attached %q, want [out-dir/secret.txt]", got)
	}
}
