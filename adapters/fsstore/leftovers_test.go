package fsstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jpcli/jp/ports"
)

// A draft path that is a directory is not a draft jp wrote: deleting the
// draft leaves it, with what it holds, and is not an error.
func TestDeleteDraftLeavesWhatJPDidNotWrite(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	for _, inside := range []bool{true, false} {
		id := sc.create(t, ports.NewConversation{Title: "a"})
		dir := filepath.Join(sc.siloConv(t, id), draftFile)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if inside {
			if err := os.WriteFile(filepath.Join(dir, "notes"), []byte("mine"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := sc.s.DeleteDraft(t.Context(), sc.loc, id); err != nil {
			t.Fatalf("DeleteDraft: %v", err)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Fatalf("the directory at the draft path is gone: %v", err)
		}
		sc.clock.Advance(1e9)
	}
	// A draft jp wrote is still removed.
	id := sc.create(t, ports.NewConversation{Title: "b"})
	if _, err := sc.s.WriteDraft(t.Context(), sc.loc, id, "queued", ""); err != nil {
		t.Fatal(err)
	}
	if err := sc.s.DeleteDraft(t.Context(), sc.loc, id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(sc.siloConv(t, id), draftFile)); !os.IsNotExist(err) {
		t.Fatalf("draft still there: %v", err)
	}
}
