package attach

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sources(atts []conversation.Attachment) string {
	s := make([]string, len(atts))
	for i, a := range atts {
		s[i] = a.Source
	}
	return strings.Join(s, ",")
}

func TestDirectoryHonoursNestedGitignore(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		".gitignore":       "*.log\n/top-only.txt\n",
		"a.txt":            "a",
		"top-only.txt":     "ignored at the root",
		"x.log":            "ignored",
		".env":             "SECRET=1",
		".git/config":      "[core]",
		"sub/.gitignore":   "gen/\n!keep.log\n",
		"sub/b.txt":        "b",
		"sub/keep.log":     "kept by negation",
		"sub/gen/c.txt":    "ignored dir",
		"sub/top-only.txt": "anchored pattern does not apply here",
		"sub/bin.dat":      "bin\x00ary",
		"other/gen/d.txt":  "gen/ only ignored under sub",
		"other/big.txt":    strings.Repeat("x", MaxFileBytes+1),
		"other/pic.png":    "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 16),
	})
	atts, err := (&Attacher{}).Attach(context.Background(), ports.AttachRequest{Specs: []string{"."}, Dir: dir, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := "a.txt,other/gen/d.txt,other/pic.png,sub/b.txt,sub/keep.log,sub/top-only.txt"
	if got := sources(atts); got != want {
		t.Errorf("attached %s\nwant      %s", got, want)
	}
	for _, a := range atts {
		if a.Source == "other/pic.png" && (a.MediaType != "image/png" || len(a.Data) == 0 || a.Content != "") {
			t.Errorf("image = %+v", a)
		}
		if a.Source == "a.txt" && (a.Content != "a" || a.Size != 1 || a.SHA256 != "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb") {
			t.Errorf("text = %+v", a)
		}
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"bin.dat": "a\x00b", "big.txt": strings.Repeat("x", MaxFileBytes+1), "bad.txt": "\xff\xfe"})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, strings.Repeat("y", MaxFileBytes+10))
	}))
	defer srv.Close()
	for spec, want := range map[string]string{
		"bin.dat":            "bin.dat: binary file (not text, and not a png, jpeg, gif or webp image): jp attaches text and images only",
		"bad.txt":            "bad.txt: binary file",
		"big.txt":            "big.txt: 1 MiB is over the 1 MiB limit for an attached file",
		"none.txt":           "none.txt: no such file or directory",
		"*.none":             "*.none: no file matches",
		"cmd:":               "cmd: needs a command",
		"cmd:echo x; exit 2": "cmd:echo x; exit 2: exit status 2: x",
		srv.URL + "/big":     "the response is over the 1 MiB limit for an attached page",
	} {
		_, err := (&Attacher{}).Attach(context.Background(), ports.AttachRequest{Specs: []string{spec}, Dir: dir, Root: dir})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want %q", spec, err, want)
		}
	}
}

func TestCommandRunsInRoot(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"marker": "here"})
	atts, err := (&Attacher{}).Attach(context.Background(), ports.AttachRequest{Specs: []string{"cmd:cat marker; echo err >&2"}, Dir: t.TempDir(), Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(atts) != 1 || atts[0].Content != "hereerr\n" || atts[0].Source != "cmd:cat marker; echo err >&2" {
		t.Errorf("atts = %+v", atts)
	}
}

// BenchmarkDirectory1000Files attaches a directory of 1,000 files (10 MB),
// the part of a query's time to its provider request that attachments add.
func BenchmarkDirectory1000Files(b *testing.B) {
	dir := b.TempDir()
	body := strings.Repeat("0123456789abcdef\n", 10000/17)
	files := map[string]string{}
	for i := range 1000 {
		files[fmt.Sprintf("d%02d/f%04d.txt", i%20, i)] = body
	}
	write(b, dir, files)
	a := &Attacher{}
	b.ResetTimer()
	for b.Loop() {
		atts, err := a.Attach(context.Background(), ports.AttachRequest{Specs: []string{"."}, Dir: dir, Root: dir})
		if err != nil || len(atts) != 1000 {
			b.Fatalf("%d attachments, %v", len(atts), err)
		}
	}
}
