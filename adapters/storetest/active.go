package storetest

import (
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// testActive: the active conversation is recorded per checkout of a
// workspace, starts empty, and is replaced by the next SetActive.
func testActive(t *testing.T, e *env) {
	if id, err := e.Conversations.Active(e.ctx, e.loc); err != nil || id != "" {
		t.Fatalf("Active before any SetActive = %q, %v; want empty", id, err)
	}
	one := e.create(t, e.loc, ports.NewConversation{Title: "one"})
	two := e.create(t, e.loc, ports.NewConversation{Title: "two"})
	for _, id := range []conversation.ID{one, two} {
		if err := e.Conversations.SetActive(e.ctx, e.loc, id); err != nil {
			t.Fatalf("SetActive(%s): %v", id, err)
		}
		if got, err := e.Conversations.Active(e.ctx, e.loc); err != nil || got != id {
			t.Fatalf("Active = %q, %v; want %s", got, err, id)
		}
	}
	// Another checkout of the same workspace has its own.
	locB := e.loc
	locB.Root = e.NewCheckout(t, e.ws.ID)
	if got, err := e.Conversations.Active(e.ctx, locB); err != nil || got != "" {
		t.Fatalf("Active in checkout B = %q, %v; want empty", got, err)
	}
	if err := e.Conversations.SetActive(e.ctx, locB, one); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.Conversations.Active(e.ctx, e.loc); got != two {
		t.Fatalf("Active in A after B's SetActive = %q, want %s", got, two)
	}
	if err := e.Conversations.SetActive(e.ctx, e.loc, "../x"); err == nil {
		t.Fatal("SetActive with a path for an ID succeeded")
	}
}
