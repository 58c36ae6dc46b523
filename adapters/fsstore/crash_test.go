package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Environment of a child process.
const (
	envData = "JP_FSSTORE_TEST_DATA"
	envRoot = "JP_FSSTORE_TEST_ROOT"
	envWS   = "JP_FSSTORE_TEST_WS"
	envConv = "JP_FSSTORE_TEST_CONV"
	// envKillAt is the fsync before which the append child kills itself.
	envKillAt = "JP_FSSTORE_TEST_KILL_AT"
)

// childScene opens the store and conversation a parent test handed over.
func childScene() (*Store, workspace.Location, conversation.ID, error) {
	s, err := New(os.Getenv(envData), storetest.NewClock(time.Now()), WithFoldThreshold(4096))
	loc := workspace.Location{ID: workspace.ID(os.Getenv(envWS)), Root: os.Getenv(envRoot)}
	return s, loc, conversation.ID(os.Getenv(envConv)), err
}

// appendChild appends turns with tool calls, one event at a time, and
// kills itself just before its envKillAt-th fsync: a crash at a point
// named by a number, the same on every run. It prints "ready" once the
// store is open.
func appendChild() int {
	s, loc, id, err := childScene()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	killAt, err := strconv.ParseInt(os.Getenv(envKillAt), 10, 64)
	if err != nil || killAt < 1 {
		fmt.Fprintf(os.Stderr, "%s=%q: want a positive count\n", envKillAt, os.Getenv(envKillAt))
		return 1
	}
	var syncs atomic.Int64
	s.beforeSync = func() {
		if syncs.Add(1) == killAt {
			killSelf()
		}
	}
	fmt.Println("ready")
	ev := storetest.NewEventMaker(fmt.Sprintf("p%d-", os.Getpid()), time.Now())
	for i := 0; ; i++ {
		for _, e := range ev.Turn(loc.Root, strings.Repeat("question ", i%50), 1+i%3) {
			if err := s.Append(context.Background(), loc, id, e); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
	}
}

// killSelf ends this process as a crash does: SIGKILL, no deferred
// function, no flush. It blocks on stdin (the parent closes it only after
// the process is gone) in case the signal lands after Kill returns.
func killSelf() {
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		err = p.Kill()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kill self:", err)
		os.Exit(1)
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(1) // not reached: the signal kills the process first
}

// lockChild takes the conversation's lock, prints "locked", and holds it
// until stdin closes.
func lockChild() int {
	s, loc, id, err := childScene()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	release, err := s.Lock(context.Background(), loc, id, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = release()
	return 0
}

// startChild runs this test binary as a child in mode and waits for its
// first line of output.
func startChild(t *testing.T, sc *scene, id conversation.ID, mode, want string, env ...string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, envData+"="+sc.s.DataDir(), envRoot+"="+sc.root,
		envWS+"="+string(sc.ws.ID), envConv+"="+string(id))
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != want {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child said %q (%v), want %q; stderr: %s", line, err, want, stderr.String())
	}
	return cmd, stdin
}

// TestCrashDuringAppendLeavesValidFiles kills a writer at chosen points of
// its appends, over and over on one conversation, and checks what each
// crash left. The point is a number of fsyncs: just before one, a file's
// new content is written but not yet renamed over the old, or renamed but
// its directory not yet synced, or the log grown but the metadata not yet
// updated. The points are drawn from a fixed seed, so a failure repeats.
func TestCrashDuringAppendLeavesValidFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{Title: "crashy"})
	rng := rand.New(rand.NewPCG(crashSeed, crashSeed>>7))
	total := 0
	for i := range 20 {
		// The first rounds crash at each of the first fsyncs of an
		// append, the later ones anywhere in the first five turns
		// (about 16 fsyncs a turn), the log folded several times over.
		killAt := 1 + i
		if i >= 8 {
			killAt = 1 + rng.IntN(80)
		}
		crashChild(t, sc, id, killAt)
		total = checkAfterCrash(t, sc, id, i)
	}
	if total == 0 {
		t.Fatalf("the children appended nothing")
	}
	t.Logf("%d events survived the kills", total)
}

// crashSeed draws the crash points; fixed so that a failing run repeats.
const crashSeed = 0x6a70_6372_6173_68

// crashChild runs an append child that kills itself before its killAt-th
// fsync and waits until it is gone, failing the test if it ended any other
// way (an Append error, say).
func crashChild(t *testing.T, sc *scene, id conversation.ID, killAt int) {
	t.Helper()
	cmd, stdin := startChild(t, sc, id, "append", "ready", envKillAt+"="+strconv.Itoa(killAt))
	err := cmd.Wait()
	_ = stdin.Close()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != -1 {
		t.Fatalf("child to be killed at fsync %d ended with %v, want killed by a signal; stderr: %s",
			killAt, err, cmd.Stderr)
	}
}

// checkAfterCrash checks what a killed writer left: every managed file
// parses, and the events a fresh store reads keep the invariants.
func checkAfterCrash(t *testing.T, sc *scene, id conversation.ID, round int) int {
	t.Helper()
	conv := sc.siloConv(t, id)
	proj := filepath.Join(sc.root, ".jp", "conversations", string(id))
	for _, dir := range []string{conv, proj} {
		if _, err := eventcodec.DecodeEvents(readFile(t, filepath.Join(dir, "events.json"))); err != nil {
			t.Fatalf("round %d: %s/events.json does not parse: %v", round, dir, err)
		}
		var m conversation.Metadata
		if err := json.Unmarshal(readFile(t, filepath.Join(dir, "metadata.json")), storedForm(&m)); err != nil {
			t.Fatalf("round %d: %s/metadata.json does not parse: %v", round, dir, err)
		}
	}
	fresh, err := New(sc.s.DataDir(), sc.clock)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := fresh.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatalf("round %d: Events: %v", round, err)
	}
	if err := conversation.Validate(evs); err != nil {
		t.Fatalf("round %d: events read back break the invariants: %v", round, err)
	}
	return len(evs)
}

func TestLockHeldByAnotherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	cmd, stdin := startChild(t, sc, id, "lock", "locked")
	_, err := sc.s.Lock(t.Context(), sc.loc, id, 60*time.Millisecond)
	var le *ports.LockedError
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid || le.Conversation != string(id) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("Lock held by child %d = %v, want a *ports.LockedError with its pid", cmd.Process.Pid, err)
	}
	// The lock dies with its holder, even one killed without releasing.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	_ = stdin.Close()
	release, err := sc.s.Lock(t.Context(), sc.loc, id, 10*time.Second)
	if err != nil {
		t.Fatalf("Lock after the holder died: %v", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
}
