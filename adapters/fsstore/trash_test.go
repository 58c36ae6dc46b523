package fsstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestTrashRustWorkspace: in a Rust jp workspace a trashed conversation
// (projection-only, with the Rust jp's slugged directory name and its
// base_config.json; and one in the Rust jp's .archive/) comes back under
// the same names, byte for byte, in the projection the Rust jp reads.
func TestTrashRustWorkspace(t *testing.T) {
	s, _, loc := rustScene(t)
	ctx := context.Background()
	convs := filepath.Join(loc.Root, ".jp", "conversations")
	for _, rel := range []string{rustConvDir, filepath.Join(".archive", "17300000000-old-idea")} {
		id := rustConv
		if rel != rustConvDir {
			id = rustArchived
		}
		var before [][]byte
		names := []string{"metadata.json", "events.json"}
		if rel == rustConvDir {
			names = append(names, "base_config.json")
		}
		for _, n := range names {
			before = append(before, readFile(t, filepath.Join(convs, rel, n)))
		}
		if err := s.Trash(ctx, loc, id); err != nil {
			t.Fatalf("Trash %s: %v", rel, err)
		}
		if ok, _ := exists(filepath.Join(convs, rel, "metadata.json")); ok {
			t.Fatalf("%s still projected after Trash", rel)
		}
		if err := s.Restore(ctx, loc, id); err != nil {
			t.Fatalf("Restore %s: %v", rel, err)
		}
		for i, n := range names {
			if got := readFile(t, filepath.Join(convs, rel, n)); !bytes.Equal(got, before[i]) && !sameJSON(got, before[i]) {
				t.Errorf("%s/%s changed by trash and restore:\n%s\nwant\n%s", rel, n, got, before[i])
			}
		}
		got, err := s.Get(ctx, loc, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.Metadata.Archived() != (id == rustArchived) {
			t.Errorf("%s archived = %v after restore", id, got.Metadata.Archived())
		}
	}
	silo, _ := s.siloDir(loc.ID)
	if names, err := os.ReadDir(filepath.Join(silo, trashDir)); err != nil || len(names) != 0 {
		t.Errorf("trash after the restores = %v, %v; want empty", names, err)
	}
}
