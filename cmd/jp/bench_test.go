package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// stepClock is a clock that moves 150 ms per reading, from t.
func stepClock(t time.Time) *mocks.ClockMock {
	return &mocks.ClockMock{NowFunc: func() time.Time { t = t.Add(150 * time.Millisecond); return t }}
}

// benchWorkspace makes a workspace with n conversations (one turn each),
// written through the real store, and returns the checkout and env.
func benchWorkspace(b *testing.B, bin string, n int) (dir string, env []string) {
	b.Helper()
	base := b.TempDir()
	dir = filepath.Join(base, "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	env = append(append(os.Environ(), isolatedEnv(base, filepath.Join(base, "data"), filepath.Join(base, "config"))...), "JP_HEADLESS=")
	cmd := exec.Command(bin, "init")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("jp init: %v %s", err, out)
	}
	clock := stepClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	st, err := fsstore.New(filepath.Join(base, "data", "jp"), clock)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	f, err := st.Find(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	loc := workspace.Location{ID: f.ID, Root: f.Root}
	for i := 0; i < n; i++ {
		id, err := st.Create(ctx, loc, ports.NewConversation{Title: fmt.Sprintf("conversation %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		now := clock.Now()
		err = st.Append(ctx, loc, id,
			conversation.Event{Type: conversation.EventTypeTurnStart, ID: "a", Timestamp: now, Root: dir},
			conversation.Event{Type: conversation.EventTypeChatRequest, ID: "b", Timestamp: now, Content: "hello"},
			conversation.Event{Type: conversation.EventTypeChatResponse, ID: "c", Timestamp: now, Message: "You said: hello"},
			conversation.Event{Type: conversation.EventTypeTurnEnd, ID: "d", Timestamp: now, Outcome: conversation.OutcomeCompleted},
		)
		if err != nil {
			b.Fatal(err)
		}
	}
	return dir, env
}

// timeRuns runs the command b.N times through rsswrap and reports the
// medians of the command's wall time, its peak resident memory (the
// kernel's accounting of the finished process, as /usr/bin/time's %M),
// the file-backed part of that memory (mostly the binary's own pages),
// its minor page faults and its CPU time. The wrapper is what makes the peak jp's: a
// child's ru_maxrss counts the memory of the process that started it,
// and this test process (an HTTP mock, a generated workspace) is larger
// than jp --version; the wall time is measured by the wrapper around the
// child alone.
func timeRuns(b *testing.B, dir string, env []string, bin string, args ...string) {
	b.Helper()
	wrap := buildRSSWrap(b)
	var wall, rss, file, faults, cpu []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := wrappedRun(b, dir, env, wrap, bin, args...)
		rss, file = append(rss, float64(m[0])/1024), append(file, float64(m[2])/1024)
		wall, faults = append(wall, float64(m[3])/1000), append(faults, float64(m[4]))
		cpu = append(cpu, float64(m[5])/1000)
	}
	b.StopTimer()
	b.ReportMetric(median(wall), "median-ms")
	b.ReportMetric(median(rss), "peak-RSS-MiB")
	b.ReportMetric(median(file), "rss-file-MiB")
	b.ReportMetric(median(faults), "minor-faults")
	b.ReportMetric(median(cpu), "median-cpu-ms")
}

// wrappedRun runs bin args once through rsswrap and returns what it
// measured: peak RSS, RssAnon and RssFile in KiB, wall time in
// microseconds, minor page faults, CPU time in microseconds.
func wrappedRun(b *testing.B, dir string, env []string, wrap, bin string, args ...string) (m [6]int64) {
	b.Helper()
	out := filepath.Join(b.TempDir(), "rss")
	cmd := exec.Command(wrap, append([]string{bin}, args...)...)
	cmd.Dir, cmd.Env = dir, append(slices.Clip(env), "RSSWRAP_OUT="+out)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, out)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		b.Fatalf("rsswrap wrote no measure: %v", err)
	}
	if _, err := fmt.Sscan(string(raw), &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]); err != nil {
		b.Fatalf("rsswrap's measure %q: %v", raw, err)
	}
	return m
}

// median is the middle value of xs (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// BenchmarkStartupVersion: jp --version as a whole process (target:
// median under 10 ms and 30 MiB peak). Most of the peak is the binary's
// own pages, and how many the kernel maps per page touched depends on
// how the file entered the page cache: "linked" runs the binary as the
// linker wrote it (its pages still cached from that write: go build, go
// install), "uncached" a copy whose pages were dropped from the cache
// after it was written, so they are read in as the program touches them
// (a binary installed a while ago, cp's in-kernel copy), which maps
// fewer.
func BenchmarkStartupVersion(b *testing.B) {
	bin := buildJPBinary(b, b.TempDir())
	dir, env := benchWorkspace(b, bin, 0)
	b.Run("linked", func(b *testing.B) { timeRuns(b, dir, env, bin, "--version") })
	b.Run("uncached", func(b *testing.B) {
		timeRuns(b, dir, env, uncachedCopy(b, bin), "--version")
	})
}

// uncachedCopy copies bin into a new file, drops the copy's pages from
// the page cache (where the platform can) and returns its path.
func uncachedCopy(b *testing.B, bin string) string {
	b.Helper()
	raw, err := os.ReadFile(bin)
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "jp")
	if err := os.WriteFile(out, raw, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := dropCache(out); err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkStartupWorkspaceLs: jp workspace ls (target: median under 15 ms).
func BenchmarkStartupWorkspaceLs(b *testing.B) {
	bin := buildJPBinary(b, b.TempDir())
	dir, env := benchWorkspace(b, bin, 10)
	timeRuns(b, dir, env, bin, "workspace", "ls")
}

// BenchmarkConversationLs: jp conversation ls over 1,000 and 10,000
// conversations (target: under 150 ms at 10,000, linear in the count).
func BenchmarkConversationLs(b *testing.B) {
	bin := buildJPBinary(b, b.TempDir())
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir, env := benchWorkspace(b, bin, n)
			timeRuns(b, dir, env, bin, "conversation", "ls")
		})
	}
}

// BenchmarkQueryEndToEnd: jp q "hi" on the demo model in a workspace with
// 1,000 conversations (target: median under 50 ms).
func BenchmarkQueryEndToEnd(b *testing.B) {
	bin := buildJPBinary(b, b.TempDir())
	dir, env := benchWorkspace(b, bin, 1000)
	timeRuns(b, dir, env, bin, "q", "hi")
}

// BenchmarkQueryMCPConfigured: jp q "hi" on the demo model with three
// stdio MCP servers configured (server-everything) and no MCP tool
// called, against none configured. Warm: their tool lists are cached
// (target: within 1.1x of none). Cold: the cache is removed before each
// run, so every run starts the three servers to list their tools.
func BenchmarkQueryMCPConfigured(b *testing.B) {
	everything, err := filepath.Abs("../../adapters/mcp/testdata/node_modules/.bin/mcp-server-everything")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(everything); err != nil {
		b.Skipf("server-everything is not installed (run .ci/install-deps): %v", err)
	}
	bin := buildJPBinary(b, b.TempDir())
	b.Run("none", func(b *testing.B) {
		dir, env := benchWorkspace(b, bin, 10)
		timeRuns(b, dir, env, bin, "q", "--new", "hi")
	})
	withServers := func(b *testing.B) (string, []string) {
		dir, env := benchWorkspace(b, bin, 10)
		cfg := ""
		for _, n := range []string{"one", "two", "three"} {
			cfg += fmt.Sprintf("[mcp.servers.%s]\ncommand = [%q]\n", n, everything)
		}
		if err := os.WriteFile(filepath.Join(dir, ".jp", "config.toml"), []byte(cfg), 0o644); err != nil {
			b.Fatal(err)
		}
		trust := exec.Command(bin, "workspace", "trust")
		trust.Dir, trust.Env = dir, env
		if out, err := trust.CombinedOutput(); err != nil {
			b.Fatalf("jp workspace trust: %v\n%s", err, out)
		}
		return dir, env
	}
	b.Run("three-warm", func(b *testing.B) {
		dir, env := withServers(b)
		cmd := exec.Command(bin, "mcp", "check") // fills the cache
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("jp mcp check: %v\n%s", err, out)
		}
		timeRuns(b, dir, env, bin, "q", "--new", "hi")
	})
	b.Run("three-cold", func(b *testing.B) {
		dir, env := withServers(b)
		var cache string
		for _, e := range env {
			if v, ok := strings.CutPrefix(e, "XDG_DATA_HOME="); ok {
				cache = filepath.Join(v, "jp", "cache", "mcp")
			}
		}
		durs := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			if err := os.RemoveAll(cache); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			cmd := exec.Command(bin, "q", "--new", "hi")
			cmd.Dir, cmd.Env = dir, env
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("jp q: %v\n%s", err, out)
			}
			durs = append(durs, time.Since(start))
		}
		b.StopTimer()
		slices.Sort(durs)
		b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "median-ms")
	})
}
