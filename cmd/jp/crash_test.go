package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/adapters/sysclock"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// jpEnv is a temp home for jp processes started by a test.
type jpEnv struct {
	t    *testing.T
	dir  string // the checkout
	data string
	env  []string
}

func newJPEnv(t *testing.T) *jpEnv {
	t.Helper()
	base := t.TempDir()
	e := &jpEnv{t: t, dir: filepath.Join(base, "proj"), data: filepath.Join(base, "data")}
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	e.env = append(append(os.Environ(), isolatedEnv(base, e.data, filepath.Join(base, "config"))...),
		"JP_TEST_RUN_MAIN=1", "JP_HEADLESS=")
	return e
}

// store opens the env's data directory with the real store, as a second
// process would, and returns it with the checkout's location.
func (e *jpEnv) store(clock ports.Clock) (*fsstore.Store, workspace.Location) {
	e.t.Helper()
	store, err := fsstore.New(filepath.Join(e.data, "jp"), clock)
	if err != nil {
		e.t.Fatal(err)
	}
	found, err := store.Find(context.Background(), e.dir)
	if err != nil {
		e.t.Fatal(err)
	}
	return store, workspace.Location{ID: found.ID, Root: found.Root}
}

// checkKilledFiles checks what a kill left of conversation id, whose
// user-local and checkout directories are silo and checkout: both
// events.json are complete JSON arrays (their element counts are
// returned, user-local first), every metadata file that exists parses,
// and the store reads events that keep the stream's invariants.
func checkKilledFiles(t *testing.T, store *fsstore.Store, loc workspace.Location, id conversation.ID, silo, checkout, when string) ([2]int, []conversation.Event) {
	t.Helper()
	var counts [2]int
	for i, path := range []string{filepath.Join(silo, "events.json"), filepath.Join(checkout, "events.json")} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		var raw []json.RawMessage
		if !bytes.HasPrefix(b, []byte("[")) || !bytes.HasSuffix(b, []byte("]\n")) || json.Unmarshal(b, &raw) != nil {
			t.Fatalf("%s: %s is not a complete JSON array (%d bytes)", when, path, len(b))
		}
		counts[i] = len(raw)
	}
	for _, path := range []string{filepath.Join(silo, "metadata.json"), filepath.Join(silo, "metadata.local.json"), filepath.Join(checkout, "metadata.json")} {
		b, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatalf("%s: %v", when, err)
		}
		if err == nil && !json.Valid(b) {
			t.Fatalf("%s: %s does not parse:\n%s", when, path, b)
		}
	}
	evs, err := store.Events(context.Background(), loc, id)
	if err != nil {
		t.Fatalf("%s: read events: %v", when, err)
	}
	if err := conversation.Validate(evs); err != nil {
		t.Fatalf("%s: invariants: %v", when, err)
	}
	return counts, evs
}

// siloConv is the user-local directory of conversation id of a checkout
// named proj.
func siloConv(store *fsstore.Store, loc workspace.Location, id conversation.ID) string {
	return filepath.Join(store.DataDir(), "workspace", workspace.SiloName(workspace.Slug("proj"), loc.ID), "conversations", string(id))
}

// command returns a jp process (this test binary re-executed as jp).
func (e *jpEnv) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Dir = e.dir
	cmd.Env = e.env
	return cmd
}

func (e *jpEnv) run(args ...string) string {
	e.t.Helper()
	out, err := e.command(context.Background(), args...).CombinedOutput()
	if err != nil {
		e.t.Fatalf("jp %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (e *jpEnv) write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	if filepath.ToSlash(rel) == ".jp/config.toml" {
		// The test's own workspace: trusted explicitly, as a user trusts
		// a checkout whose configuration they wrote (docs/security.md).
		e.run("workspace", "trust")
	}
}

// multiToolScript is a long demo script: turns of slow text and tool
// batches, so that a kill lands in every phase.
func multiToolScript(n int) string {
	var rs []string
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			rs = append(rs, `{"events": [{"text": "step ", "repeat": 6, "sleep_ms": 4},
				{"tool_call": {"name": "slow", "arguments": {"n": 1}}},
				{"tool_call": {"name": "slow", "arguments": {"n": 2}}}]}`)
		} else {
			rs = append(rs, `{"events": [{"reasoning": "hmm", "repeat": 3, "sleep_ms": 3}, {"text": "done ", "repeat": 8, "sleep_ms": 4}]}`)
		}
	}
	return `{"responses": [` + strings.Join(rs, ",\n") + `]}`
}

// TestSIGKILLDuringTurnsLeavesValidConversation kills jp q at random points
// of scripted multi-tool turns. Every time, events.json (silo and
// projection) parses, the stored stream keeps its invariants (each tool
// call answered, or the turn visibly unfinished), the next run works, and
// the draft is byte for byte what it was.
func TestSIGKILLDuringTurnsLeavesValidConversation(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills processes in a loop")
	}
	e := newJPEnv(t)
	e.run("init")
	e.write(".jp/config.toml", `
[providers.demo]
script = "script.json"
[conversation.tools.slow]
command = ["sh", "-c", "sleep 0.02; cat"]
description = "Sleeps, then echoes its arguments."
run = "unattended"
`)
	e.write("script.json", multiToolScript(400))
	e.run("q", "--new", "first")

	store, loc := e.store(sysclock.New())
	ctx := context.Background()
	list, err := store.List(ctx, loc)
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %v %v", list, err)
	}
	id := list[0].ID
	const draftText = "my half-written next question\n\n" + "# ----- 8< ----- everything below this line is ignored -----\n```toml\n[query]\nloop = \"never\"\n```\n"
	if _, err := store.WriteDraft(ctx, loc, id, draftText, ""); err != nil {
		t.Fatal(err)
	}

	// Each run is killed once its turn has stored a number of bytes drawn
	// below a whole turn's (the first run's), whatever the machine's speed.
	conv := siloConv(store, loc, id)
	perTurn := storedBytes(conv)
	if perTurn == 0 {
		t.Fatalf("the first run stored nothing in %s", conv)
	}
	rng := rand.New(rand.NewPCG(1, 31)) // fixed: a failure repeats
	killed := 0
	for i := 0; i < 25; i++ {
		cmd := e.command(ctx, "q", "-i", string(id), fmt.Sprintf("go %d", i))
		if killAfterGrowth(t, cmd, conv, 1+rng.Int64N(perTurn)) {
			killed++
		}

		checkArraysParse(t, i, filepath.Join(e.dir, ".jp", "conversations", string(id), "events.json"),
			filepath.Join(siloConv(store, loc, id), "events.json"))
		evs, err := store.Events(ctx, loc, id)
		if err != nil {
			t.Fatalf("iteration %d: read events: %v", i, err)
		}
		if err := conversation.Validate(evs); err != nil {
			t.Fatalf("iteration %d: invariants: %v", i, err)
		}
		d, err := store.ReadDraft(ctx, loc, id)
		if err != nil || d.Text != draftText {
			t.Fatalf("iteration %d: draft changed: %q %v", i, d.Text, err)
		}
	}
	// After all the kills, a normal run completes and is valid.
	out := e.run("q", "-i", string(id), "--cfg", "providers.demo.script=", "final words")
	if !strings.Contains(out, "You said: final words") {
		t.Fatalf("final run: %s", out)
	}
	evs, err := store.Events(ctx, loc, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := conversation.Validate(evs); err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Type != conversation.EventTypeTurnEnd || last.Outcome != conversation.OutcomeCompleted {
		t.Fatalf("last event %+v", last)
	}
	if killed == 0 {
		t.Fatal("every run ended before its kill: no kill landed inside a turn")
	}
	t.Logf("killed %d runs; %d events stored", killed, len(evs))
}

// storedBytes is the size of a conversation's stored events (events.json
// and events.log of its silo directory).
func storedBytes(conv string) int64 {
	var n int64
	for _, name := range []string{"events.json", "events.log"} {
		if fi, err := os.Stat(filepath.Join(conv, name)); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// killAfterGrowth starts cmd, waits until the conversation at conv has
// stored grow more bytes than when cmd started, and SIGKILLs it then. It
// reports whether the kill landed: false when cmd ended first.
func killAfterGrowth(t *testing.T, cmd *exec.Cmd, conv string, grow int64) bool {
	t.Helper()
	from := storedBytes(conv)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = cmd.Wait()
	}()
	deadline := time.Now().Add(30 * time.Second)
	for storedBytes(conv)-from < grow {
		select {
		case <-done:
			return false
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("jp stored fewer than %d bytes in 30s", grow)
		}
		time.Sleep(time.Millisecond) // polling the files, the readiness signal
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
	return cmd.ProcessState.ExitCode() == -1 // ended by the signal
}

// checkArraysParse fails iteration i of a kill loop when a file of paths
// is not a JSON array.
func checkArraysParse(t *testing.T, i int, paths ...string) {
	t.Helper()
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("iteration %d: %v", i, err)
		}
		var raw []json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatalf("iteration %d: %s does not parse: %v", i, p, err)
		}
	}
}

// TestSIGKILLAfterQueueingKeepsTheDraft queues a reply during a slow
// answer, kills jp once the draft holds it, and checks the queued text
// survives in QUERY_MESSAGE.md and the conversation is valid.
func TestSIGKILLAfterQueueingKeepsTheDraft(t *testing.T) {
	t.Parallel()
	e := newJPEnv(t)
	e.run("init")
	e.write("slow.json", `{"responses": [{"events": [{"text": "word ", "repeat": 400, "sleep_ms": 10}]}]}`)
	e.write("queue.jph", "after 3 deltas\nselect @interrupt:streaming q\ncompose @queue_reply \"survive the kill\"\n")
	ctx := context.Background()
	cmd := e.command(ctx, "q", "--new", "--headless", "queue.jph", "--cfg", "providers.demo.script=slow.json", "go")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	var draftPath string
	deadline := time.Now().Add(30 * time.Second)
	for draftPath == "" && time.Now().Before(deadline) {
		matches, _ := filepath.Glob(filepath.Join(e.data, "jp", "workspace", "*", "conversations", "*", "QUERY_MESSAGE.md"))
		for _, m := range matches {
			if b, err := os.ReadFile(m); err == nil && strings.Contains(string(b), "survive the kill") {
				draftPath = m
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if draftPath == "" {
		t.Fatal("the queued reply never reached the draft file")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	b, err := os.ReadFile(draftPath)
	if err != nil || strings.TrimSpace(string(b)) != "survive the kill" {
		t.Fatalf("draft after SIGKILL = %q, %v", b, err)
	}
	// The conversation is valid and the next bare jp q is seeded from it.
	e.write("keep.jph", "compose @query keep\n")
	out := e.run("q", "--headless", "keep.jph")
	if !strings.Contains(out, "You said: survive the kill") {
		t.Fatalf("resumed run: %s", out)
	}
	if _, err := os.Stat(draftPath); !os.IsNotExist(err) {
		t.Fatalf("draft not removed after it was sent: %v", err)
	}
}
