package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// bigConversation makes a workspace whose one conversation's events.json
// is about size bytes: turns of a question, two tool calls and an answer
// of about 2 KB each (a long agentic conversation), appended a few
// thousand events at a time through the real store, so the generator
// never holds the conversation whole. It returns the checkout, the env
// and the conversation ID.
func bigConversation(b *testing.B, bin string, size int64) (dir string, env []string, id conversation.ID) {
	b.Helper()
	dir, env = benchWorkspace(b, bin, 0)
	st, loc := benchStore(b, env, dir)
	ctx := context.Background()
	id, err := st.Create(ctx, loc, ports.NewConversation{Title: fmt.Sprintf("%d MB", size>>20)})
	if err != nil {
		b.Fatal(err)
	}
	ev := storetest.NewEventMaker("big-", storetest.Start)
	answer := strings.Repeat("the function reads the file a chunk at a time; ", 40)
	events := filepath.Join(convDir(b, st, loc, id), "events.json")
	for i := 0; ; {
		var evs []conversation.Event
		for range 500 {
			evs = append(evs, ev.Turn(loc.Root, fmt.Sprintf("question %d: %s", i, answer), 2)...)
			i++
		}
		if err := st.Append(ctx, loc, id, evs...); err != nil {
			b.Fatal(err)
		}
		if fi, err := os.Stat(events); err == nil && fi.Size() >= size {
			return dir, env, id
		}
	}
}

// benchStore opens the store of a benchWorkspace's data directory.
func benchStore(b *testing.B, env []string, dir string) (*fsstore.Store, workspace.Location) {
	b.Helper()
	data := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "XDG_DATA_HOME="); ok {
			data = filepath.Join(v, "jp")
		}
	}
	st, err := fsstore.New(data, storetest.NewClock(storetest.Start))
	if err != nil {
		b.Fatal(err)
	}
	f, err := st.Find(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	return st, workspace.Location{ID: f.ID, Root: f.Root}
}

// convDir is the user-local directory of conversation id.
func convDir(b *testing.B, st *fsstore.Store, loc workspace.Location, id conversation.ID) string {
	b.Helper()
	// ConversationDir prefers the checkout copy; the events file of the
	// user-local copy is the one every command reads first.
	d, err := st.ConversationDir(context.Background(), workspace.Location{ID: loc.ID}, id)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkForkBigConversation: jp conversation fork of a 200 MB
// conversation (target: under 3 s and 100 MB peak resident memory).
// Every run adds a conversation; each is as big as the original.
func BenchmarkForkBigConversation(b *testing.B) {
	bin, wrap := buildJPBinary(b, b.TempDir()), buildRSSWrap(b)
	dir, env, id := bigConversation(b, bin, 200<<20)
	runMeasured(b, dir, env, wrap, bin, "conversation", "fork", string(id))
}

// BenchmarkShowBigConversation: jp conversation show (plain, and
// --format json) and jp conversation print of a 200 MB conversation: the time to the first byte of
// output (target: under 50 ms at any size), the total and the peak
// resident memory.
func BenchmarkShowBigConversation(b *testing.B) {
	bin, wrap := buildJPBinary(b, b.TempDir()), buildRSSWrap(b)
	dir, env, id := bigConversation(b, bin, 200<<20)
	for _, format := range []string{"text", "json"} {
		b.Run(format, func(b *testing.B) {
			measureFirstByte(b, dir, env, wrap, bin, "conversation", "show", "--format", format, string(id))
		})
	}
	// jp conversation print streams its transcript the same way.
	b.Run("print", func(b *testing.B) { measureFirstByte(b, dir, env, wrap, bin, "conversation", "print", string(id)) })
	// The same measure of jp --version: what of the first byte is the
	// process's start, measured side by side on the same machine.
	b.Run("version", func(b *testing.B) { measureFirstByte(b, dir, env, wrap, bin, "--version") })
}

// measureFirstByte runs jp b.N times (through rsswrap) and reports the
// median time to its first byte of output, the median total and the
// largest peak resident memory.
func measureFirstByte(b *testing.B, dir string, env []string, wrap, bin string, args ...string) {
	b.Helper()
	var first, total, cpus []time.Duration
	var rss int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd, peak := rssCommand(b, wrap, bin, args...)
		cmd.Dir, cmd.Env = dir, append(env, cmd.Env[len(cmd.Env)-1])
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		r := bufio.NewReader(out)
		if _, err := r.ReadByte(); err != nil {
			b.Fatalf("jp %v wrote nothing: %v %s", args, err, stderr.Bytes())
		}
		first = append(first, time.Since(start))
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatalf("jp %v: %v %s", args, err, stderr.Bytes())
		}
		total = append(total, time.Since(start))
		cpus = append(cpus, cpuTime(cmd))
		rss = max(rss, peak())
	}
	b.StopTimer()
	slices.Sort(first)
	slices.Sort(total)
	slices.Sort(cpus)
	b.ReportMetric(float64(first[len(first)/2].Microseconds())/1000, "first-byte-ms")
	b.ReportMetric(float64(total[len(total)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(cpus[len(cpus)/2].Microseconds())/1000, "median-cpu-ms")
	b.ReportMetric(float64(rss)/1024, "peak-MB")
}

// cpuTime is the user and system CPU time of a command that ran,
// its children it waited for included (jp under rsswrap).
func cpuTime(cmd *exec.Cmd) time.Duration {
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
