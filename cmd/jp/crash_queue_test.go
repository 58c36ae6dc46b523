package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/workspace"
)

// requireStrace skips a test that kills jp at a system call with strace
// when strace is missing (a failure under CI=true: .ci/install-deps
// installs it).
func requireStrace(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("strace"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("strace is not installed; the queued-dispatch crash test needs it (.ci/install-deps installs it)")
		}
		t.Skip("strace is not installed")
	}
}

// The queued reply of the crash test, and the demo script of its runs:
// the padding for the conversation's first turn, a slow first answer (the
// reply is queued during it), then the queued turn's answer, which
// starts after a pause and then waits: a run is killed, never finished.
const (
	queuedText     = "the queued reply that must survive"
	queueKillJPH   = "after 5 deltas of turn 1\nselect @interrupt:streaming q\ncompose @queue_reply \"" + queuedText + "\"\n"
	queueKillDemo  = `{"responses": [{"events": [{"text": "pad"}]}, {"events": [{"text": "word ", "repeat": 150, "sleep_ms": 4}]}, {"events": [{"sleep_ms": 400}, {"text": "answer ", "repeat": 3}, {"sleep_ms": 120000}]}]}`
	queueQuickDemo = `{"responses": [{"events": [{"text": "pad"}]}, {"events": [{"text": "word ", "repeat": 150, "sleep_ms": 2}]}, {"events": [{"text": "answer"}]}]}`
)

// TestSIGKILLQueuedDispatch kills jp q at each point between a turn's end
// and the request of the reply queued during it (sent at once: no
// terminal, no countdown), each on a fresh conversation:
//
//   - queued: the reply is in the draft, the first turn still streams;
//   - carried: at the removal of the draft (strace kills jp on entering
//     the unlink of QUERY_MESSAGE.md), after the first turn's end and the
//     queued turn's start and request were appended in one write;
//   - requested: the draft is removed, the queued turn's request is out;
//   - answering: the queued turn's answer streams.
//
// The points are reached by watching the files jp writes (and, for the
// one that lasts a few microseconds, by strace). After every kill every
// file parses (events.json an array, metadata.json, metadata.local.json,
// the log's complete lines, the checkout copy), jp conversation show
// works, the stream keeps its invariants, and the queued text is in the
// draft or is the conversation's queued chat_request: never in neither.
// A normal turn afterwards folds everything into both copies. A run that
// is not killed leaves both turns folded and the checkout copy synced.
func TestSIGKILLQueuedDispatch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills processes")
	}
	requireStrace(t)
	e := newJPEnv(t)
	e.run("init")
	e.write("kill.json", queueKillDemo)
	e.write("quick.json", queueQuickDemo)
	e.write("queue.jph", queueKillJPH)
	store, loc := e.store(sysclock.New())
	ctx := context.Background()
	siloOf := func(id conversation.ID) string {
		return siloConv(store, loc, id)
	}
	checkoutOf := func(id conversation.ID) string { return filepath.Join(e.dir, ".jp", "conversations", string(id)) }
	fresh := func() conversation.ID { return freshConversation(t, e, store, loc) }

	points := []struct {
		name string
		// strace: jp runs under strace, which kills it on entering the
		// unlink of the draft (no file shows that point: it lasts
		// microseconds).
		strace bool
		ready  func(silo string) bool
		want   func(p queuedPlace) bool
	}{
		{"queued", false, func(silo string) bool {
			return fileHas(filepath.Join(silo, "QUERY_MESSAGE.md"), queuedText) && fileHas(filepath.Join(silo, "events.partial"), "word")
		}, func(p queuedPlace) bool { return p.inDraft && !p.inConv }},
		{"carried", true, nil, func(p queuedPlace) bool { return p.inDraft && p.inConv }},
		{"requested", false, func(silo string) bool {
			_, err := os.Stat(filepath.Join(silo, "QUERY_MESSAGE.md"))
			return os.IsNotExist(err) && fileHas(filepath.Join(silo, "events.log"), `"author":"queued"`)
		}, func(p queuedPlace) bool { return !p.inDraft && p.inConv }},
		{"answering", false, func(silo string) bool {
			return fileHas(filepath.Join(silo, "events.partial"), "answer")
		}, func(p queuedPlace) bool { return !p.inDraft && p.inConv }},
	}
	for _, pt := range points {
		id := fresh()
		silo, checkout := siloOf(id), checkoutOf(id)
		args := []string{"q", "-i", string(id), "--headless", "queue.jph", "--cfg", "providers.demo.script=kill.json", "go"}
		cmd := queuedKillCommand(ctx, e, silo, pt.strace, args)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var waitErr error
		if pt.ready != nil {
			waitErr = killWhen(t, cmd, done, func() bool { return pt.ready(silo) })
		} else {
			waitErr = <-done // strace kills jp, then itself with the same signal
		}
		var ee *exec.ExitError
		if !errors.As(waitErr, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("%s: jp was not killed at the point (%v):\n%s", pt.name, waitErr, out.String())
		}
		got := checkQueuedKill(t, e, store, loc, id, silo, checkout, pt.name)
		if !got.inDraft && !got.inConv {
			t.Fatalf("%s: the queued text is neither in the draft nor in the conversation", pt.name)
		}
		if !pt.want(got) {
			t.Errorf("%s: queued text in the draft %v, in the conversation %v", pt.name, got.inDraft, got.inConv)
		}
		// A normal turn afterwards folds everything into both copies.
		e.run("q", "-i", string(id), "--cfg", "providers.demo.script=", "after the kill")
		checkFolded(t, store, loc, id, silo, checkout, pt.name+", then a turn")
	}

	// Not killed: both turns folded, the checkout copy synced, the draft
	// gone.
	id := fresh()
	silo, checkout := siloOf(id), checkoutOf(id)
	out := e.run("q", "-i", string(id), "--headless", "queue.jph", "--cfg", "providers.demo.script=quick.json", "go")
	if !strings.Contains(out, "answer") {
		t.Fatalf("the queued turn did not answer:\n%s", out)
	}
	got := checkQueuedKill(t, e, store, loc, id, silo, checkout, "not killed")
	if got.inDraft || !got.inConv {
		t.Fatalf("not killed: queued text in the draft %v, in the conversation %v", got.inDraft, got.inConv)
	}
	evs := checkFolded(t, store, loc, id, silo, checkout, "not killed")
	// --cfg providers.demo.script=quick.json sticks to the conversation:
	// one config_delta before the two turns.
	if n := len(evs); n != 13 {
		t.Fatalf("not killed: %d events, want 13 (the first turn, the configuration change, then two turns)", n)
	}
}

// freshConversation makes a conversation of one completed turn (the
// padding) and returns it.
func freshConversation(t *testing.T, e *jpEnv, store *fsstore.Store, loc workspace.Location) conversation.ID {
	t.Helper()
	e.run("q", "--new", "--cfg", "providers.demo.script=", "first")
	id, err := store.Active(context.Background(), loc)
	if err != nil || id == "" {
		t.Fatalf("active conversation: %q, %v", id, err)
	}
	return id
}

// queuedKillCommand is jp with args; withStrace runs it under strace,
// which kills it on entering the unlink of the draft in silo.
func queuedKillCommand(ctx context.Context, e *jpEnv, silo string, withStrace bool, args []string) *exec.Cmd {
	if !withStrace {
		return e.command(ctx, args...)
	}
	draftPath := filepath.Join(silo, "QUERY_MESSAGE.md")
	cmd := exec.CommandContext(ctx, "strace", append([]string{"-f", "-qq", "-o", "/dev/null",
		"-P", draftPath, "-e", "trace=unlinkat,unlink", "-e", "inject=unlinkat,unlink:signal=SIGKILL", os.Args[0]}, args...)...)
	cmd.Dir, cmd.Env = e.dir, e.env
	return cmd
}

// killWhen polls ready (the files jp writes are the readiness signal) and
// SIGKILLs cmd once it holds; it returns cmd's Wait error.
func killWhen(t *testing.T, cmd *exec.Cmd, done <-chan error, ready func() bool) error {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-done:
			return err // ended before the point was seen
		default:
		}
		if ready() {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			return <-done
		}
		time.Sleep(time.Millisecond) // polling the files, the readiness signal
	}
	_ = cmd.Process.Kill()
	<-done
	t.Fatal("the kill point was never reached")
	return nil
}

// queuedPlace is where the queued text is after a kill.
type queuedPlace struct{ inDraft, inConv bool }

// checkQueuedKill checks a conversation's files after a kill (each parses;
// jp conversation show reads it; the stream is valid) and says where the
// queued text is.
func checkQueuedKill(t *testing.T, e *jpEnv, store *fsstore.Store, loc workspace.Location, id conversation.ID, silo, checkout, when string) queuedPlace {
	t.Helper()
	_, evs := checkKilledFiles(t, store, loc, id, silo, checkout, when)
	if b, err := os.ReadFile(filepath.Join(silo, "events.log")); err == nil {
		// Every complete line is an event; a last line without its
		// newline is a write cut by the kill, which readers ignore.
		sc := bufio.NewScanner(bytes.NewReader(b[:bytes.LastIndexByte(b, '\n')+1]))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if !json.Valid(sc.Bytes()) {
				t.Fatalf("%s: events.log line %q does not parse", when, sc.Text())
			}
		}
	} else if !os.IsNotExist(err) {
		t.Fatalf("%s: %v", when, err)
	}
	show := e.run("conversation", "show", string(id))
	if !strings.Contains(show, "first") {
		t.Fatalf("%s: jp conversation show:\n%s", when, show)
	}
	var p queuedPlace
	for _, ev := range evs {
		if ev.Type == conversation.EventTypeChatRequest && ev.Author == conversation.AuthorQueued && ev.Content == queuedText {
			p.inConv = true
		}
	}
	if d, err := store.ReadDraft(context.Background(), loc, id); err == nil {
		p.inDraft = strings.TrimSpace(draft.Parse(d.Text).Query()) == queuedText
	}
	return p
}

// checkFolded checks that the conversation's log is folded and that the
// user-local events.json and the checkout copy both hold all its events.
func checkFolded(t *testing.T, store *fsstore.Store, loc workspace.Location, id conversation.ID, silo, checkout, when string) []conversation.Event {
	t.Helper()
	if _, err := os.Stat(filepath.Join(silo, "events.log")); !os.IsNotExist(err) {
		t.Fatalf("%s: events.log is still there (%v)", when, err)
	}
	evs, err := store.Events(context.Background(), loc, id)
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	for _, path := range []string{filepath.Join(silo, "events.json"), filepath.Join(checkout, "events.json")} {
		var raw []json.RawMessage
		if err := json.Unmarshal(readFileT(t, path), &raw); err != nil || len(raw) != len(evs) {
			t.Fatalf("%s: %s holds %d events, the conversation %d (%v)", when, path, len(raw), len(evs), err)
		}
	}
	return evs
}

func readFileT(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
