package main

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// TestShowJSONStreamsTheDocument: jp conversation show --format json,
// written an event at a time as the store reads them, is byte for byte
// the indented document of the summary and all events (control bytes
// escaped), for a conversation with events and for an empty one.
func TestShowJSONStreamsTheDocument(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "proj")
	env := isolatedEnv(base, filepath.Join(base, "data"), filepath.Join(base, "config"))
	run := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if rc := Main(args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, env); rc != 0 {
			t.Fatalf("jp %v: %d %s", args, rc, errb.String())
		}
		return out.String()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	run("init")
	st, err := fsstore.New(filepath.Join(base, "data", "jp"), storetest.NewClock(storetest.Start))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f, err := st.Find(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	loc := workspace.Location{ID: f.ID, Root: f.Root}
	ev := storetest.NewEventMaker("s-", storetest.Start)
	full, err := st.Create(ctx, loc, ports.NewConversation{Title: "shown \u0085 whole"})
	if err != nil {
		t.Fatal(err)
	}
	evs := append(ev.Turn(f.Root, "a question \x7f with <html> & \u0085 C1", 2), ev.TurnStart(f.Root), ev.ChatRequest("cut"))
	if err := st.Append(ctx, loc, full, evs...); err != nil {
		t.Fatal(err)
	}
	empty, err := st.Create(ctx, loc, ports.NewConversation{Title: "empty"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []conversation.ID{full, empty} {
		s, err := st.Get(ctx, loc, id)
		if err != nil {
			t.Fatal(err)
		}
		all, err := st.Events(ctx, loc, id)
		if err != nil {
			t.Fatal(err)
		}
		if all == nil {
			all = []conversation.Event{}
		}
		var want bytes.Buffer
		if err := writeJSON(&want, struct {
			eventcodec.Summary
			Events []eventcodec.JSON `json:"events"`
		}{eventcodec.SummaryOf(s), eventcodec.Events(all)}); err != nil {
			t.Fatal(err)
		}
		got := run("conversation", "show", "--format", "json", string(id))
		if got != want.String() || !json.Valid([]byte(got)) {
			t.Fatalf("show --format json of %s:\n%s\nwant:\n%s", id, got, want.String())
		}
	}
}
