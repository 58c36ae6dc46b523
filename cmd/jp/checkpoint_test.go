package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/sysclock"
	"github.com/jpcli/jp/domain/conversation"
)

// TestSIGKILLKeepsTheBlockInFlight kills jp q with SIGKILL in the middle
// of a long answer. The text streamed up to the last checkpoint is in the
// conversation afterwards: jp conversation show shows it, and the next
// jp q folds it into events.json as the cut turn's chat_response.
func TestSIGKILLKeepsTheBlockInFlight(t *testing.T) {
	t.Parallel()
	e := newJPEnv(t)
	e.run("init")
	// A long, slow block: 3,000 pieces 10 ms apart.
	e.write("slow.json", `{"responses": [{"events": [{"text": "tick ", "repeat": 3000, "sleep_ms": 10}]}]}`)
	ctx := context.Background()
	cmd := e.command(ctx, "q", "--new", "--cfg", "providers.demo.script=slow.json", "go on")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	// Readiness: the checkpoint file holds at least 40 pieces.
	const want = 40
	var partial string
	seen := 0
	deadline := time.Now().Add(60 * time.Second)
	for seen < want && time.Now().Before(deadline) {
		matches, _ := filepath.Glob(filepath.Join(e.data, "jp", "workspace", "*", "conversations", "*", "events.partial"))
		for _, m := range matches {
			if b, err := os.ReadFile(m); err == nil {
				partial, seen = m, strings.Count(string(b), "tick ")
			}
		}
		time.Sleep(5 * time.Millisecond) // polling the file, the readiness signal
	}
	if seen < want {
		t.Fatalf("the streamed block never reached its checkpoint (%d pieces in %q)", seen, partial)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	id := filepath.Base(filepath.Dir(partial))

	// A reader sees the streamed text.
	out := e.run("conversation", "show", id)
	if got := strings.Count(out, "tick"); got < seen {
		t.Fatalf("jp conversation show shows %d pieces of the %d checkpointed:\n%s", got, seen, out)
	}

	// The next writer folds it in as the cut turn's chat_response.
	e.run("q", "-i", id, "--cfg", "providers.demo.script=", "and then?")
	store, loc := e.store(sysclock.New())
	evs, err := store.Events(ctx, loc, conversation.ID(id))
	if err != nil {
		t.Fatal(err)
	}
	if err := conversation.Validate(evs); err != nil {
		t.Fatal(err)
	}
	var types []string
	var block string
	for _, ev := range evs {
		types = append(types, ev.Type.String())
		if ev.Type == conversation.EventTypeChatResponse && strings.Contains(ev.Message, "tick") {
			block = ev.Message
		}
	}
	if strings.Count(block, "tick ") < seen {
		t.Fatalf("the folded block has %d pieces, want at least %d; events: %v", strings.Count(block, "tick "), seen, types)
	}
	convs := filepath.Dir(filepath.Dir(partial))
	b, err := os.ReadFile(filepath.Join(convs, id, "events.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), "tick ") < seen {
		t.Fatal("events.json does not hold the folded block")
	}
	if _, err := os.Stat(partial); !os.IsNotExist(err) {
		t.Fatalf("events.partial left after the fold: %v", err)
	}
}
