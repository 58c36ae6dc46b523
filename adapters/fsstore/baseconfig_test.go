package fsstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// A Rust jp conversation's base_config.json is read, and said to be in the
// checkout; a --local conversation has none and is the user's own. A
// config_delta appended in a Rust workspace reads back as one.
func TestBaseConfig(t *testing.T) {
	s, clock, loc := rustScene(t)
	ctx := context.Background()
	b, inCheckout, err := s.BaseConfig(ctx, loc, "17400000000")
	if err != nil {
		t.Fatal(err)
	}
	if !inCheckout || !strings.Contains(string(b), `"anthropic/claude-sonnet-4"`) {
		t.Fatalf("base config %q, in checkout %v", b, inCheckout)
	}
	id, err := s.Create(ctx, loc, ports.NewConversation{Title: "mine", Local: true})
	if err != nil {
		t.Fatal(err)
	}
	b, inCheckout, err = s.BaseConfig(ctx, loc, id)
	if err != nil || b != nil || inCheckout {
		t.Fatalf("local: %q %v %v", b, inCheckout, err)
	}
	ev, err := conversation.NewConfigDelta("d1", clock.Now().Add(time.Second), []byte(`{"assistant":{"name":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, loc, "17400000000", ev); err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events(ctx, loc, "17400000000")
	if err != nil {
		t.Fatal(err)
	}
	ds := conversation.ConfigDeltas(evs)
	if len(ds) < 2 || string(ds[len(ds)-1].Delta) != `{"assistant":{"name":"x"}}` || ds[len(ds)-1].ID != "d1" {
		t.Fatalf("deltas: %+v", ds)
	}
	if _, _, err := s.BaseConfig(ctx, loc, "19999999999"); err == nil {
		t.Fatal("unknown conversation: no error")
	}
}
