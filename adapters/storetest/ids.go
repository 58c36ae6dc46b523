package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// call is one port method applied to a conversation ID.
type call struct {
	name string
	fn   func(e *env, loc workspace.Location, id conversation.ID) error
}

func conversationCalls() []call {
	return []call{
		{"Get", func(e *env, loc workspace.Location, id conversation.ID) error {
			_, err := e.Conversations.Get(e.ctx, loc, id)
			return err
		}},
		{"Events", func(e *env, loc workspace.Location, id conversation.ID) error {
			_, err := e.Conversations.Events(e.ctx, loc, id)
			return err
		}},
		{"Append", func(e *env, loc workspace.Location, id conversation.ID) error {
			return e.Conversations.Append(e.ctx, loc, id, e.ev.TurnStart(loc.Root))
		}},
		{"UpdateMetadata", func(e *env, loc workspace.Location, id conversation.ID) error {
			return e.Conversations.UpdateMetadata(e.ctx, loc, id, func(*conversation.Metadata) error { return nil })
		}},
		{"LocalMetadata", func(e *env, loc workspace.Location, id conversation.ID) error {
			_, err := e.Conversations.LocalMetadata(e.ctx, loc, id)
			return err
		}},
		{"UpdateLocalMetadata", func(e *env, loc workspace.Location, id conversation.ID) error {
			return e.Conversations.UpdateLocalMetadata(e.ctx, loc, id, func(*conversation.LocalMetadata) error { return nil })
		}},
		{"Remove", func(e *env, loc workspace.Location, id conversation.ID) error {
			return e.Conversations.Remove(e.ctx, loc, id)
		}},
		{"ReadDraft", func(e *env, loc workspace.Location, id conversation.ID) error {
			_, err := e.Drafts.ReadDraft(e.ctx, loc, id)
			return err
		}},
		{"WriteDraft", func(e *env, loc workspace.Location, id conversation.ID) error {
			_, err := e.Drafts.WriteDraft(e.ctx, loc, id, "x", "")
			return err
		}},
		{"DeleteDraft", func(e *env, loc workspace.Location, id conversation.ID) error {
			return e.Drafts.DeleteDraft(e.ctx, loc, id)
		}},
	}
}

func testUnknownConversation(t *testing.T, e *env) {
	e.create(t, e.loc, ports.NewConversation{})
	unknown := conversation.ID("12345")
	for _, c := range conversationCalls() {
		t.Run(c.name, func(t *testing.T) {
			err := c.fn(e, e.loc, unknown)
			var nf *ports.NotFoundError
			if !errors.As(err, &nf) {
				t.Fatalf("%s(unknown) = %v, want *ports.NotFoundError", c.name, err)
			}
			if nf.What != "conversation 12345" || nf.Hint != "list conversations with jp conversation ls" {
				t.Fatalf("%s(unknown) = %+v, want What %q with the ls hint", c.name, nf, "conversation 12345")
			}
		})
	}
	if l := e.list(t, e.loc); len(l) != 1 {
		t.Fatalf("calls on an unknown ID changed the listing: %+v", l)
	}
}

func testInvalidIDs(t *testing.T, e *env) {
	calls := append(conversationCalls(), call{"Lock", func(e *env, loc workspace.Location, id conversation.ID) error {
		release, err := e.Locker.Lock(e.ctx, loc, id, 0)
		if err == nil {
			_ = release()
		}
		return err
	}})
	for _, bad := range []conversation.ID{"", "../../etc", "12a", "1/2", "123456789012345678901"} {
		for _, c := range calls {
			if err := c.fn(e, e.loc, bad); !errors.Is(err, conversation.ErrInvalidID) {
				t.Errorf("%s(%q) = %v, want an error wrapping conversation.ErrInvalidID", c.name, bad, err)
			}
		}
		if p := e.Drafts.DraftPath(e.loc, bad); p != "" {
			t.Errorf("DraftPath(%q) = %q, want empty", bad, p)
		}
	}
	id := e.create(t, e.loc, ports.NewConversation{})
	for _, ws := range []workspace.ID{"", "ABCDEFG", "../../x", "abc"} {
		loc := workspace.Location{ID: ws, Root: e.root}
		if _, err := e.Conversations.List(e.ctx, loc); !errors.Is(err, workspace.ErrInvalidID) {
			t.Errorf("List(workspace %q) = %v, want workspace.ErrInvalidID", ws, err)
		}
		if _, err := e.Conversations.Create(e.ctx, loc, ports.NewConversation{}); !errors.Is(err, workspace.ErrInvalidID) {
			t.Errorf("Create(workspace %q) = %v, want workspace.ErrInvalidID", ws, err)
		}
		for _, c := range calls {
			if err := c.fn(e, loc, id); !errors.Is(err, workspace.ErrInvalidID) {
				t.Errorf("%s(workspace %q) = %v, want workspace.ErrInvalidID", c.name, ws, err)
			}
		}
	}
	if _, err := e.Conversations.List(e.ctx, workspace.Location{ID: e.ws.ID, Root: "relative/path"}); err == nil {
		t.Errorf("List with a relative root succeeded, want an error")
	}
}

func testDrafts(t *testing.T, e *env) {
	id := e.create(t, e.loc, ports.NewConversation{})
	if _, err := e.Drafts.ReadDraft(e.ctx, e.loc, id); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("ReadDraft without a draft = %v, want ErrNotFound", err)
	}
	if err := e.Drafts.DeleteDraft(e.ctx, e.loc, id); err != nil {
		t.Fatalf("DeleteDraft without a draft = %v, want nil", err)
	}
	if _, err := e.Drafts.WriteDraft(e.ctx, e.loc, id, "x", "made-up"); !errors.Is(err, ports.ErrRevisionMismatch) {
		t.Fatalf("WriteDraft(ifRevision) without a draft = %v, want ErrRevisionMismatch", err)
	}
	r1, err := e.Drafts.WriteDraft(e.ctx, e.loc, id, "first reply\n", "")
	if err != nil || r1 == "" {
		t.Fatalf("WriteDraft = %q, %v", r1, err)
	}
	d, err := e.Drafts.ReadDraft(e.ctx, e.loc, id)
	if err != nil || d.Text != "first reply\n" || d.Revision != r1 {
		t.Fatalf("ReadDraft = %+v, %v; want the text with revision %s", d, err, r1)
	}
	r2, err := e.Drafts.WriteDraft(e.ctx, e.loc, id, "second\n", r1)
	if err != nil || r2 == r1 {
		t.Fatalf("WriteDraft(ifRevision current) = %q, %v; want a new revision", r2, err)
	}
	if _, err := e.Drafts.WriteDraft(e.ctx, e.loc, id, "lost update\n", r1); !errors.Is(err, ports.ErrRevisionMismatch) {
		t.Fatalf("WriteDraft(stale revision) = %v, want ErrRevisionMismatch", err)
	}
	if d, _ := e.Drafts.ReadDraft(e.ctx, e.loc, id); d.Text != "second\n" || d.Revision != r2 {
		t.Fatalf("after a rejected write the draft is %+v, want second at %s", d, r2)
	}
	r3, err := e.Drafts.WriteDraft(e.ctx, e.loc, id, "second\n", r2)
	if err != nil || r3 == r2 {
		t.Fatalf("rewriting the same text = %q, %v; want a new revision", r3, err)
	}
	if err := e.Drafts.DeleteDraft(e.ctx, e.loc, id); err != nil {
		t.Fatalf("DeleteDraft: %v", err)
	}
	if _, err := e.Drafts.ReadDraft(e.ctx, e.loc, id); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("ReadDraft after delete = %v, want ErrNotFound", err)
	}
	if _, err := e.Drafts.WriteDraft(e.ctx, e.loc, id, "x", r3); !errors.Is(err, ports.ErrRevisionMismatch) {
		t.Fatalf("WriteDraft(ifRevision) after delete = %v, want ErrRevisionMismatch", err)
	}
	// Drafts are per conversation.
	other := e.create(t, e.loc, ports.NewConversation{})
	if _, err := e.Drafts.ReadDraft(e.ctx, e.loc, other); !errors.Is(err, ports.ErrNotFound) {
		t.Fatalf("ReadDraft of another conversation = %v, want ErrNotFound", err)
	}
}

func testLock(t *testing.T, e *env) {
	id := e.create(t, e.loc, ports.NewConversation{})
	release, err := e.Locker.Lock(e.ctx, e.loc, id, 0)
	if err != nil {
		t.Fatalf("Lock: %v", err)
	}
	for _, wait := range []time.Duration{0, 50 * time.Millisecond} {
		_, err = e.Locker.Lock(e.ctx, e.loc, id, wait)
		var le *ports.LockedError
		if !errors.As(err, &le) || !errors.Is(err, ports.ErrLocked) {
			t.Fatalf("second Lock (wait %v) = %v, want *ports.LockedError", wait, err)
		}
		if le.Conversation != string(id) || (e.LockPID != 0 && le.PID != e.LockPID) {
			t.Fatalf("LockedError = %+v, want conversation %s and pid %d", le, id, e.LockPID)
		}
	}
	other := e.create(t, e.loc, ports.NewConversation{})
	releaseOther, err := e.Locker.Lock(e.ctx, e.loc, other, 0)
	if err != nil {
		t.Fatalf("Lock of another conversation while the first is held: %v", err)
	}
	if err := releaseOther(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if _, err := e.Locker.Lock(ctx, e.loc, id, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock with a cancelled context = %v, want context.Canceled", err)
	}
	if err := release(); err != nil {
		t.Fatalf("release: %v", err)
	}
	if err := release(); err != nil {
		t.Fatalf("second release = %v, want nil (idempotent)", err)
	}
	again, err := e.Locker.Lock(e.ctx, e.loc, id, 0)
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	if err := again(); err != nil {
		t.Fatal(err)
	}
}

func testLockWaits(t *testing.T, e *env) {
	id := e.create(t, e.loc, ports.NewConversation{})
	release, err := e.Locker.Lock(e.ctx, e.loc, id, 0)
	if err != nil {
		t.Fatalf("Lock: %v", err)
	}
	type result struct {
		release func() error
		err     error
	}
	done := make(chan result, 1)
	go func() {
		r, err := e.Locker.Lock(e.ctx, e.loc, id, time.Minute)
		done <- result{r, err}
	}()
	if err := release(); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("waiting Lock = %v, want the lock once released", r.err)
	}
	if err := r.release(); err != nil {
		t.Fatal(err)
	}
}
