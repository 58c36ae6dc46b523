package memstore

import (
	"context"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestContract(t *testing.T) {
	storetest.RunConversationStoreSuite(t, func(t *testing.T) storetest.Stores {
		clock := storetest.NewClock(storetest.Start)
		s := New(clock)
		return storetest.Stores{
			Conversations: s,
			Drafts:        s,
			Registry:      s,
			Locker:        s,
			Clock:         clock,
			NewCheckout: func(t *testing.T, id workspace.ID) string {
				d := storetest.TempDir(t)
				if id != "" {
					s.SetWorkspaceDir(d, id)
				}
				return d
			},
			SeedProjection: func(t *testing.T, root string, id conversation.ID, meta conversation.Metadata, evs []conversation.Event) {
				s.SeedProjection(root, id, meta, evs)
			},
			LockPID: os.Getpid(),
		}
	})
}

func TestRemovedCheckoutIsNotLive(t *testing.T) {
	ctx := context.Background()
	s := New(storetest.NewClock(storetest.Start))
	a, err := s.Init(ctx, "/work/a")
	if err != nil {
		t.Fatal(err)
	}
	s.SetWorkspaceDir("/work/b", a.ID)
	for _, f := range []ports.Found{a, {ID: a.ID, Root: "/work/b"}} {
		if err := s.Register(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	s.RemoveWorkspaceDir("/work/b")
	k, err := s.Lookup(ctx, a.ID)
	if err != nil || len(k.Checkouts) != 2 {
		t.Fatalf("Lookup = %+v, %v; want both records kept", k, err)
	}
	for _, c := range k.Checkouts {
		if c.Live != (c.Path == "/work/a") {
			t.Errorf("checkout %s live = %v", c.Path, c.Live)
		}
	}
	if s.DataDir() != "" || s.DraftPath(workspace.Location{ID: a.ID}, "1") != "" {
		t.Errorf("an in-memory store reports file paths")
	}
	if n, err := s.CountConversations(ctx, a.ID); err != nil || n != 0 {
		t.Errorf("CountConversations = %d, %v", n, err)
	}
}
