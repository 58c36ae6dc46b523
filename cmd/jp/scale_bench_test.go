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

// longConversation is the generator of the scale benchmarks: it makes a
// workspace whose one conversation holds about n events (turns of a
// question, two tool calls and an answer, about 100 bytes an event, as a
// real agentic conversation), written through the real store, and returns
// the checkout, the env and the conversation ID.
func longConversation(b *testing.B, bin string, n int) (dir string, env []string, id conversation.ID) {
	b.Helper()
	dir, env = benchWorkspace(b, bin, 0)
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
	ctx := context.Background()
	f, err := st.Find(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	loc := workspace.Location{ID: f.ID, Root: f.Root}
	if id, err = st.Create(ctx, loc, ports.NewConversation{Title: fmt.Sprintf("%d events", n)}); err != nil {
		b.Fatal(err)
	}
	ev := storetest.NewEventMaker("gen-", storetest.Start)
	var evs []conversation.Event
	for i := 0; len(evs) < n; i++ {
		if n-len(evs) < 7 { // a short last turn keeps the count exact
			evs = append(evs, ev.TurnStart(f.Root), ev.ChatRequest("q"), ev.TurnEnd(conversation.OutcomeCompleted))
			continue
		}
		evs = append(evs, ev.Turn(f.Root, fmt.Sprintf("question %d about the code", i), 2)...)
	}
	if err := st.Append(ctx, loc, id, evs...); err != nil {
		b.Fatal(err)
	}
	return dir, env, id
}

// rssCommand returns the command jp args run through rsswrap, and a
// function that reads the peak resident memory of jp in KiB once it ran.
func rssCommand(b *testing.B, wrap, bin string, args ...string) (*exec.Cmd, func() int64) {
	cmd, split := rssSplitCommand(b, wrap, bin, args...)
	return cmd, func() int64 { return split()[0] }
}

// rssSplitCommand is rssCommand, its function also returning the largest
// anonymous and file-backed (mostly jp's own executable pages) resident
// memory seen while jp ran, in KiB, and jp's own CPU time in microseconds.
func rssSplitCommand(b *testing.B, wrap, bin string, args ...string) (*exec.Cmd, func() [4]int64) {
	b.Helper()
	out := filepath.Join(b.TempDir(), "rss")
	cmd := exec.Command(wrap, append([]string{bin}, args...)...)
	cmd.Env = append(os.Environ(), "RSSWRAP_OUT="+out)
	return cmd, func() [4]int64 {
		raw, err := os.ReadFile(out)
		if err != nil {
			b.Fatalf("rsswrap wrote no measure: %v", err)
		}
		// rsswrap's fields: peak, anonymous and file-backed KiB, wall
		// time, minor faults, CPU time (microseconds).
		var f [6]int64
		if _, err := fmt.Sscan(string(raw), &f[0], &f[1], &f[2], &f[3], &f[4], &f[5]); err != nil {
			b.Fatal(err)
		}
		return [4]int64{f[0], f[1], f[2], f[5]}
	}
}

// buildRSSWrap builds the rsswrap helper.
func buildRSSWrap(b *testing.B) string {
	return goBuild(b, filepath.Join(b.TempDir(), "rsswrap"), "./testdata/rsswrap")
}

// runMeasured runs jp b.N times (through rsswrap) and reports the median
// wall time and the largest peak resident memory of the jp process.
func runMeasured(b *testing.B, dir string, env []string, wrap, bin string, args ...string) {
	b.Helper()
	durs := make([]time.Duration, 0, b.N)
	cpus := make([]time.Duration, 0, b.N)
	var rss int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd, measure := rssSplitCommand(b, wrap, bin, args...)
		cmd.Dir, cmd.Env = dir, append(env, cmd.Env[len(cmd.Env)-1])
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("jp %v: %v\n%s", args, err, out)
		}
		durs = append(durs, time.Since(start))
		m := measure()
		cpus = append(cpus, time.Duration(m[3])*time.Microsecond)
		rss = max(rss, m[0])
	}
	b.StopTimer()
	slices.Sort(durs)
	slices.Sort(cpus)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "median-ms")
	// jp's CPU time (user + system; not the wrapper's, whose sampling of
	// /proc every millisecond grows with the wall time): on a shared,
	// loaded machine the wall time measures the other processes too.
	b.ReportMetric(float64(cpus[len(cpus)/2].Microseconds())/1000, "median-cpu-ms")
	b.ReportMetric(float64(rss)/1024, "peak-MB")
}

// BenchmarkQueryLongConversation: jp q -i ID on the demo model and the
// real store, on conversations of 4, 10, 1,000, 10,000 and 100,000 events
// (target: the 100,000-event turn under 2x the 4-event turn's CPU time,
// and under 64 MiB). Every run adds a turn, so the conversation grows by a
// few events per run; the first run on a long one writes its history
// snapshot (docs/storage.md), the others read through it.
func BenchmarkQueryLongConversation(b *testing.B) {
	bin, wrap := buildJPBinary(b, b.TempDir()), buildRSSWrap(b)
	for _, n := range []int{4, 10, 1000, 10000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir, env, id := longConversation(b, bin, n)
			runMeasured(b, dir, env, wrap, bin, "q", "--model", "demo/echo", "-i", string(id), "hi")
		})
	}
}

// BenchmarkShowLongConversation: jp conversation show on 100,000 events:
// the time to the first byte of output and the total.
func BenchmarkShowLongConversation(b *testing.B) {
	bin, wrap := buildJPBinary(b, b.TempDir()), buildRSSWrap(b)
	dir, env, id := longConversation(b, bin, 100000)
	first := make([]time.Duration, 0, b.N)
	total := make([]time.Duration, 0, b.N)
	var rss int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd, peak := rssCommand(b, wrap, bin, "conversation", "show", string(id))
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
			b.Fatalf("jp conversation show wrote nothing: %v %s", err, stderr.Bytes())
		}
		first = append(first, time.Since(start))
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatalf("jp conversation show: %v %s", err, stderr.Bytes())
		}
		total = append(total, time.Since(start))
		rss = max(rss, peak())
	}
	b.StopTimer()
	slices.Sort(first)
	slices.Sort(total)
	b.ReportMetric(float64(first[len(first)/2].Microseconds())/1000, "first-byte-ms")
	b.ReportMetric(float64(total[len(total)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(rss)/1024, "peak-MB")
}

// BenchmarkQueryBigMessage: jp q with a 20 MB message on the demo model
// (target: under 1 s and under 4x the message size in peak memory). The
// message comes from a file on stdin; the model answers "ok" (the echo
// model would stream the 20 MB back one word at a time, which measures the
// terminal, not the message's way through jp).
func BenchmarkQueryBigMessage(b *testing.B) {
	bin, wrap := buildJPBinary(b, b.TempDir()), buildRSSWrap(b)
	dir, env := benchWorkspace(b, bin, 0)
	msg := filepath.Join(b.TempDir(), "msg.txt")
	line := strings.Repeat("a line of a very long pasted log file ", 2) + "\n"
	if err := os.WriteFile(msg, bytes.Repeat([]byte(line), 20<<20/len(line)), 0o644); err != nil {
		b.Fatal(err)
	}
	script := filepath.Join(b.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(`{"responses":[{"events":[{"text":"ok"}]}]}`), 0o644); err != nil {
		b.Fatal(err)
	}
	durs := make([]time.Duration, 0, b.N)
	var rss, anon, file int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in, err := os.Open(msg)
		if err != nil {
			b.Fatal(err)
		}
		cmd, peak := rssSplitCommand(b, wrap, bin, "q", "--new", "--model", "demo/scripted", "--cfg", "providers.demo.script="+script,
			"--cfg", "conversation.limits.message_bytes=33554432")
		cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout = dir, append(env, cmd.Env[len(cmd.Env)-1]), in, io.Discard
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		err = cmd.Run()
		durs = append(durs, time.Since(start))
		_ = in.Close()
		if err != nil {
			b.Fatalf("jp q: %v\n%s", err, stderr.Bytes())
		}
		m := peak()
		rss, anon, file = max(rss, m[0]), max(anon, m[1]), max(file, m[2])
	}
	b.StopTimer()
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(rss)/1024, "peak-MB")
	// The peak's two parts: jp's heap (the message is 20 MB of it), and
	// the pages of the jp binary mapped from the page cache, which no
	// input changes (jp --version maps about as many).
	b.ReportMetric(float64(anon)/1024, "peak-anon-MB")
	b.ReportMetric(float64(file)/1024, "peak-file-MB")
}
