package history

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestAddRecentBoundedAnd0600(t *testing.T) {
	dir := t.TempDir()
	h := New(dir)
	h.Max = 3
	ctx := context.Background()
	for _, m := range []string{"one", "two", "two", "  ", "three", "four"} {
		if err := h.Add(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := h.Recent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"two", "three", "four"}; !slices.Equal(got, want) {
		t.Fatalf("Recent = %q, want %q", got, want)
	}
	fi, err := os.Stat(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("debris left beside the file: %v", entries)
	}
}

func TestUnknownFieldsSurviveAndBadLinesSkipped(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "history.jsonl")
	old := `{"text":"kept","at":"2026-01-01T00:00:00Z","future":{"x":1}}` + "\nnot json\n"
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	h := New(dir)
	if err := h.Add(context.Background(), "new"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if !strings.Contains(string(b), `"future":{"x":1}`) {
		t.Fatalf("unknown field lost:\n%s", b)
	}
	got, _ := h.Recent(context.Background())
	if !slices.Equal(got, []string{"kept", "new"}) {
		t.Fatalf("Recent = %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v after a rewrite, want 0600", fi.Mode().Perm())
	}
}

func TestTooLongAndNoDataDir(t *testing.T) {
	h := New(t.TempDir())
	h.MaxBytes = 10
	if err := h.Add(context.Background(), strings.Repeat("x", 11)); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.Recent(context.Background()); len(got) != 0 {
		t.Fatalf("a message over MaxBytes was recorded: %q", got)
	}
	none := New("")
	if err := none.Add(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	if got, err := none.Recent(context.Background()); err != nil || len(got) != 0 {
		t.Fatalf("no data dir: %q %v", got, err)
	}
}
