package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// TestSIGKILLOnALongConversation kills jp q on a conversation of 20,000
// events (2 MB of events.json: long enough that the fold and the
// checkout-copy sync take a while, short enough for the suite) at several
// points of a turn, each reached by polling the files jp writes (the
// readiness signal): a turn_start in events.log, a block streaming into
// events.partial, a tool call in events.log, and the temp file of the
// fold or of the checkout copy's replacement. After every kill both
// events.json parse and hold the whole history, the checkout copy is a
// complete JSON array (what the Rust jp reads), every metadata file
// parses, and the stream is valid: nothing is lost but the turn in flight.
func TestSIGKILLOnALongConversation(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills processes on a long conversation")
	}
	e := newJPEnv(t)
	e.run("init")
	e.write(".jp/config.toml", `
[providers.demo]
script = "script.json"
[conversation.tools.slow]
command = ["sh", "-c", "cat"]
description = "Echoes its arguments."
run = "unattended"
`)

	store, loc := e.store(storetest.NewClock(storetest.Start))
	ctx := context.Background()
	id, history := seedLongConversation(t, store, loc, 20000)
	// The demo model plays the response of the call's index: the
	// history's calls are padding, the kills' turns get tool calls.
	pad := strings.Repeat(`{"events": [{"text": "x"}]},`, turn.ProviderSteps(history))
	e.write("script.json", strings.Replace(multiToolScript(400), `{"responses": [`, `{"responses": [`+pad, 1))
	silo := siloConv(store, loc, id)
	checkout := filepath.Join(e.dir, ".jp", "conversations", string(id))

	// Each kill point: a file jp writes at that point of the turn, and
	// what it must hold.
	points := []struct {
		name  string
		ready func() bool
	}{
		{"turn started", func() bool { return fileHas(filepath.Join(silo, "events.log"), `"turn_start"`) }},
		{"block streaming", func() bool { return fileHas(filepath.Join(silo, "events.partial"), "") }},
		{"tool call recorded", func() bool { return fileHas(filepath.Join(silo, "events.log"), `"tool_call_request"`) }},
		{"fold or checkout copy", func() bool {
			for _, d := range []string{silo, checkout} {
				if m, _ := filepath.Glob(filepath.Join(d, ".events.json.tmp-*")); len(m) > 0 {
					return true
				}
			}
			return false
		}},
	}
	hits := map[string]int{}
	for i := 0; i < 3*len(points); i++ {
		p := points[i%len(points)]
		cmd := e.command(ctx, "q", "-i", string(id), fmt.Sprintf("go %d", i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		hit := false
	poll:
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
			select {
			case <-done:
				break poll // the turn ended before the point was seen
			default:
			}
			if p.ready() {
				hit = cmd.Process.Signal(syscall.SIGKILL) == nil
				<-done
				break
			}
			time.Sleep(time.Millisecond) // polling the files, the readiness signal
		}
		if hit {
			hits[p.name]++
		}
		checkLongConversation(t, store, loc, id, silo, checkout, history, fmt.Sprintf("kill %d (%s, killed %v)", i, p.name, hit))
	}
	t.Logf("kills that landed, by point: %v", hits)
	// The first two points last long enough to be caught every time; the
	// others are short windows, caught most of the time.
	for _, p := range points[:2] {
		if hits[p.name] == 0 {
			t.Errorf("no kill landed at %q", p.name)
		}
	}
	if hits[points[2].name]+hits[points[3].name] == 0 {
		t.Errorf("no kill landed at %q or %q", points[2].name, points[3].name)
	}
	// After the kills a normal turn completes.
	e.run("q", "-i", string(id), "--cfg", "providers.demo.script=", "final words")
	checkLongConversation(t, store, loc, id, silo, checkout, history, "final turn")
}

// seedLongConversation stores a conversation of at least n events (turns
// of two tool calls) and returns it and its events.
func seedLongConversation(t *testing.T, store *fsstore.Store, loc workspace.Location, n int) (conversation.ID, []conversation.Event) {
	t.Helper()
	ctx := context.Background()
	id, err := store.Create(ctx, loc, ports.NewConversation{Title: "long"})
	if err != nil {
		t.Fatal(err)
	}
	ev := storetest.NewEventMaker("gen-", storetest.Start)
	var history []conversation.Event
	for i := 0; len(history) < n; i++ {
		history = append(history, ev.Turn(loc.Root, fmt.Sprintf("question %d about the code", i), 2)...)
	}
	if err := store.Append(ctx, loc, id, history...); err != nil {
		t.Fatal(err)
	}
	return id, history
}

// fileHas reports whether the file at path exists and holds s.
func fileHas(path, s string) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Contains(b, []byte(s))
}

// checkLongConversation checks the files of a conversation after a kill.
func checkLongConversation(t *testing.T, store *fsstore.Store, loc workspace.Location, id conversation.ID, silo, checkout string, history []conversation.Event, when string) {
	t.Helper()
	counts, evs := checkKilledFiles(t, store, loc, id, silo, checkout, when)
	for i, n := range counts {
		if n < len(history) {
			t.Fatalf("%s: events.json copy %d holds %d events of the %d of the history", when, i, n, len(history))
		}
	}
	for i, h := range history {
		if evs[i].ID != h.ID {
			t.Fatalf("%s: event %d is %q, the history had %q", when, i, evs[i].ID, h.ID)
		}
	}
}
