package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

func TestRestoreResolvesTheTrash(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	trash := []ports.TrashedConversation{
		{ID: "17960000002", Title: "second", RemovedAt: now},
		{ID: "17960000001", Title: "first", RemovedAt: now.Add(-time.Minute)},
		{ID: "18000000000", Title: "other", RemovedAt: now.Add(-time.Hour)},
	}
	var restored []conversation.ID
	store := &mocks.ConversationStoreMock{
		TrashedFunc: func(context.Context, workspace.Location) ([]ports.TrashedConversation, error) { return trash, nil },
		RestoreFunc: func(_ context.Context, _ workspace.Location, id conversation.ID) error {
			restored = append(restored, id)
			if id == "18000000000" {
				return ports.ErrExists
			}
			return nil
		},
	}
	locker := &mocks.LockerMock{LockFunc: func(context.Context, workspace.Location, conversation.ID, time.Duration) (func() error, error) {
		return func() error { return nil }, nil
	}}
	c := NewConversations(store, locker, nil)
	loc := workspace.Location{ID: "abc1234", Root: "/p"}
	ctx := t.Context()
	for _, tc := range []struct {
		raw, want, err string
	}{
		{"", "17960000002", ""}, // the one removed last
		{"1796000000", "", "matches 2 conversations in the trash: 17960000002 (second), 17960000001 (first); give more digits"},
		{"17960000001", "17960000001", ""},
		{"999", "", "conversation 999 is not in the trash"},
		{"18", "", "exists again in this workspace; remove it (jp conversation rm 18000000000)"},
	} {
		got, err := c.Restore(ctx, loc, tc.raw)
		if tc.err != "" {
			var ue *UserError
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &ue) {
				t.Errorf("Restore(%q) = %v, want a user error containing %q", tc.raw, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("Restore(%q) = %q, %v; want %s", tc.raw, got, err, tc.want)
		}
	}
	if len(restored) != 3 {
		t.Errorf("store.Restore called for %v; want the two resolved IDs and 18000000000", restored)
	}
	store.TrashedFunc = func(context.Context, workspace.Location) ([]ports.TrashedConversation, error) { return nil, nil }
	if _, err := c.Restore(ctx, loc, ""); err == nil || !strings.Contains(err.Error(), "the trash is empty") {
		t.Errorf("Restore with an empty trash = %v", err)
	}
}
