package fsstore

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// killedRemoval leaves what a removal killed between trashing the copy
// and removing the checkout copy leaves (as an older jp ordered it): a
// complete trash entry, and the checkout copy in place. A conversation in
// the silo is moved into the entry; a checkout-only one is copied.
func killedRemoval(t *testing.T, sc *scene, id conversation.ID) {
	t.Helper()
	now := sc.clock.Now().UTC()
	entry := filepath.Join(sc.silo(t), trashDir, string(id)+"-"+strconv.FormatInt(now.UnixNano(), 10))
	if err := os.MkdirAll(entry, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := sc.s.writeJSON(filepath.Join(entry, trashInfoFile), trashInfo{ID: id, Name: string(id), RemovedAt: now}, 0o600); err != nil {
		t.Fatal(err)
	}
	conv := filepath.Join(sc.silo(t), convsDir, string(id))
	if ok, _ := exists(conv); ok {
		if err := os.Rename(conv, filepath.Join(entry, trashConvDir)); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := sc.s.copyProjection(filepath.Join(sc.root, dotJP, convsDir, string(id)), filepath.Join(entry, trashConvDir)); err != nil {
		t.Fatal(err)
	}
}

// TestInterruptedRemovalIsCompleted: after a removal killed between
// trashing the conversation and removing its checkout copy (listed and in
// the trash at once), a second removal removes the checkout copy without
// a second trash entry, and a restore brings the trashed copy back.
func TestInterruptedRemovalIsCompleted(t *testing.T) {
	for _, checkoutOnly := range []bool{false, true} {
		for _, retry := range []string{"rm", "restore"} {
			name := "silo-" + retry
			if checkoutOnly {
				name = "checkout-only-" + retry
			}
			t.Run(name, func(t *testing.T) {
				sc := newScene(t)
				var id conversation.ID
				if checkoutOnly {
					id = "17000000000"
					seedProjection(t, sc.root, id, conversation.Metadata{Title: "theirs"}, sc.ev.Turn(sc.root, "q", 0))
					if _, err := sc.s.ensureSilo(sc.loc.ID, sc.root); err != nil {
						t.Fatal(err)
					}
				} else {
					id = sc.create(t, ports.NewConversation{})
					sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 1)...)
				}
				want, err := sc.s.Events(bg, sc.loc, id)
				if err != nil {
					t.Fatal(err)
				}
				killedRemoval(t, sc, id)
				sc.clock.Advance(time.Minute) // the retry comes later
				if list, err := sc.s.List(bg, sc.loc); err != nil || len(list) != 1 {
					t.Fatalf("List after the kill = %v, %v", list, err)
				}
				proj := filepath.Join(sc.root, dotJP, convsDir, string(id))
				switch retry {
				case "rm":
					if err := sc.s.Trash(bg, sc.loc, id); err != nil {
						t.Fatalf("Trash again: %v", err)
					}
					if ok, _ := exists(filepath.Join(proj, metadataFile)); ok {
						t.Fatal("the checkout copy is still there")
					}
					if list, err := sc.s.List(bg, sc.loc); err != nil || len(list) != 0 {
						t.Fatalf("List = %v, %v; want none", list, err)
					}
					trashed, err := sc.s.Trashed(bg, sc.loc)
					if err != nil || len(trashed) != 1 {
						t.Fatalf("Trashed = %v, %v; want the one entry", trashed, err)
					}
					if err := sc.s.Restore(bg, sc.loc, id); err != nil {
						t.Fatalf("Restore: %v", err)
					}
				case "restore":
					if err := sc.s.Restore(bg, sc.loc, id); err != nil {
						t.Fatalf("Restore: %v", err)
					}
					if trashed, err := sc.s.Trashed(bg, sc.loc); err != nil || len(trashed) != 0 {
						t.Fatalf("Trashed = %v, %v; want none", trashed, err)
					}
				}
				got, err := sc.s.Events(bg, sc.loc, id)
				if err != nil || len(got) != len(want) {
					t.Fatalf("Events after = %d, %v; want %d", len(got), err, len(want))
				}
				if ok, _ := exists(filepath.Join(proj, metadataFile)); !ok {
					t.Fatal("restored without its checkout copy")
				}
			})
		}
	}
}

// TestRemovalOfAnotherCheckoutCopyStillRefusesRestore: a checkout copy
// that differs from the trashed one is a conversation of its own: a
// restore still refuses to replace it.
func TestRemovalOfAnotherCheckoutCopyStillRefusesRestore(t *testing.T) {
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 1)...)
	killedRemoval(t, sc, id)
	meta := filepath.Join(sc.root, dotJP, convsDir, string(id), metadataFile)
	writeFile(t, meta, []byte(`{"title": "changed by a pull"}`))
	if err := sc.s.Restore(bg, sc.loc, id); !errors.Is(err, ports.ErrExists) {
		t.Fatalf("Restore = %v, want it to refuse", err)
	}
}
