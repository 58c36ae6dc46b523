package fsstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// The default workspace (no checkout) lives in <data>/workspace/default-<id>
// and has an active conversation of its own.
func TestDefaultWorkspaceSiloAndActive(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	ctx := t.Context()
	loc := workspace.Default()
	id, err := s.Create(ctx, loc, ports.NewConversation{Title: "one-off"})
	if err != nil {
		t.Fatal(err)
	}
	silo := filepath.Join(s.dataDir, workspaceDir, "default-"+string(workspace.DefaultID))
	if _, err := os.Stat(filepath.Join(silo, convsDir, string(id), metadataFile)); err != nil {
		t.Fatalf("not in the default silo: %v", err)
	}
	if got, _ := s.Active(ctx, loc); got != "" {
		t.Fatalf("active before SetActive = %q", got)
	}
	if err := s.SetActive(ctx, loc, id); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Active(ctx, loc); err != nil || got != id {
		t.Fatalf("Active = %q, %v; want %s", got, err, id)
	}
}

// A conversation removed while its lock is held (jp q --tmp) leaves no
// lock file behind; a live conversation's lock file stays.
func TestLockOfRemovedConversationGoes(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t)
	ctx := t.Context()
	loc := workspace.Default()
	kept, err := s.Create(ctx, loc, ports.NewConversation{Title: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := s.Create(ctx, loc, ports.NewConversation{Title: "tmp"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{string(kept), string(gone)} {
		release, err := s.Lock(ctx, loc, conversation.ID(id), 0)
		if err != nil {
			t.Fatal(err)
		}
		if id == string(gone) {
			if err := s.Remove(ctx, loc, gone); err != nil {
				t.Fatal(err)
			}
		}
		if err := release(); err != nil {
			t.Fatal(err)
		}
	}
	locks := filepath.Join(s.dataDir, workspaceDir, "default-"+string(workspace.DefaultID), locksDir)
	if _, err := os.Stat(filepath.Join(locks, string(kept)+".lock")); err != nil {
		t.Errorf("the kept conversation's lock file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(locks, string(gone)+".lock")); !os.IsNotExist(err) {
		t.Errorf("the removed conversation's lock file is still there (%v)", err)
	}
}
