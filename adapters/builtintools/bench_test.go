package builtintools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// benchTree is a 10,000-file tree (100 directories of 100 files of 40
// lines each), one line in 1,000 files holding the needle.
var benchTree = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "jp-grep-bench-")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for d := range 100 {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return "", err
		}
		for f := range 100 {
			b.Reset()
			for l := range 40 {
				if l == 20 && f%10 == 0 {
					fmt.Fprintf(&b, "\tneedle := compute(%d, %d) // the line to find\n", d, f)
					continue
				}
				fmt.Fprintf(&b, "\tvalue%d := strings.Repeat(\"x\", %d) // filler line\n", l, l)
			}
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%03d.go", f)), []byte(b.String()), 0o644); err != nil {
				return "", err
			}
		}
	}
	return dir, nil
})

func benchDir(b *testing.B) string {
	dir, err := benchTree()
	if err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkGrepFiles is fs_grep_files over the 10,000-file tree; compare
// it with BenchmarkGrepRN, grep -rn on the same tree.
func BenchmarkGrepFiles(b *testing.B) {
	dir := benchDir(b)
	cfg := benchConfig()
	args := json.RawMessage(`{"pattern":"needle := compute\\(","max_matches":2000}`)
	for b.Loop() {
		s := New(cfg, dir)
		r, err := s.Call(context.Background(), GrepFiles, args)
		if err != nil || r.IsError || strings.Count(r.Content, "\n") != 1000 {
			b.Fatalf("grep: %v %v %d lines", err, r.IsError, strings.Count(r.Content, "\n"))
		}
		_ = s.Close()
	}
}

// BenchmarkGrepRN is grep -rn on the same tree, the yardstick.
func BenchmarkGrepRN(b *testing.B) {
	dir := benchDir(b)
	if _, err := exec.LookPath("grep"); err != nil {
		b.Skip("grep is not installed")
	}
	for b.Loop() {
		out, err := exec.Command("grep", "-rn", "needle := compute(", dir).Output()
		if err != nil || strings.Count(string(out), "\n") != 1000 {
			b.Fatalf("grep -rn: %v", err)
		}
	}
}
