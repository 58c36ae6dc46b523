package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

func toolNames(ts []llm.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func cachedPool(t *testing.T, dir string) *Pool {
	t.Helper()
	p, err := NewPool(Options{Timers: newFakeTimers(), CacheDir: dir, LeaseWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := p.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return p
}

// A listing is cached on disk (0600, nothing of the configuration in
// it); another process's pool offers it without starting the server; a
// changed configuration is another entry; the server's list_changed
// notification drops the entry and the next listing writes the new list.
func TestToolCacheOffersToolsWithoutStartingTheServer(t *testing.T) {
	cacheDir := filepath.Join(t.TempDir(), "cache")
	spec := fakeSpec(t, t.TempDir(), "")
	p1 := cachedPool(t, cacheDir)
	if _, ok := p1.CachedTools(spec); ok {
		t.Fatal("a cold cache offered tools")
	}
	ts, release := mustLease(t, p1, spec, limits)
	listed, err := ts.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	release()
	cached, ok := p1.CachedTools(spec)
	if !ok || !slices.Equal(toolNames(cached), toolNames(listed)) {
		t.Fatalf("cached %v (%v), listed %v", toolNames(cached), ok, toolNames(listed))
	}
	files, _ := filepath.Glob(filepath.Join(cacheDir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	fi, err := os.Stat(files[0])
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("cache file mode: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(files[0]); strings.Contains(string(b), fakeServerEnv) || strings.Contains(string(b), os.Args[0]) {
		t.Fatalf("the cache entry carries the server's configuration: %s", b)
	}

	// A second process: the cached tools, and no server started.
	p2 := cachedPool(t, cacheDir)
	again, ok := p2.CachedTools(spec)
	if !ok || !slices.Equal(toolNames(again), toolNames(listed)) || string(again[0].Parameters) != string(listed[0].Parameters) {
		t.Fatalf("second pool: %v (%v)", toolNames(again), ok)
	}
	if n := len(p2.Instances()); n != 0 {
		t.Fatalf("reading the cache started %d instances", n)
	}
	other := spec
	other.Server.Env = map[string]string{fakeServerEnv: "plain", "EXTRA": "1"}
	if _, ok := p2.CachedTools(other); ok {
		t.Fatal("another configuration shares the entry")
	}

	// The server's tools change: the notification drops the entry.
	forgotten := make(chan ports.MCPServerSpec, 1)
	p1.cache.forgotten = func(s ports.MCPServerSpec) { forgotten <- s }
	ts, release = mustLease(t, p1, spec, limits)
	if r, err := ts.Call(context.Background(), "fake__grow", nil); err != nil || r.IsError {
		t.Fatalf("grow: %+v %v", r, err)
	}
	within(t, forgotten, "the list_changed notification")
	if _, ok := p1.CachedTools(spec); ok {
		t.Fatal("the entry survived the server's list_changed notification")
	}
	release()
	ts, release = mustLease(t, p1, spec, limits)
	defer release()
	if _, err := ts.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	cached, _ = p1.CachedTools(spec)
	if !slices.Contains(toolNames(cached), "fake__grown") {
		t.Fatalf("the new listing was not cached: %v", toolNames(cached))
	}
}

// An entry that does not parse, or of another format, is a cold cache.
func TestToolCacheIgnoresDamagedEntries(t *testing.T) {
	dir := t.TempDir()
	c := &toolCache{dir: dir, log: loggerOr(nil)}
	spec := ports.MCPServerSpec{Name: "s", Dir: "/x"}
	for _, body := range []string{"{", `{"format":99,"server":"s","tools":[]}`, `{"format":1,"server":"other","tools":[]}`} {
		if err := os.WriteFile(c.path(spec), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.load(spec); ok {
			t.Fatalf("entry %s was used", body)
		}
	}
	c.store(spec, cacheEntry{Tools: []llm.Tool{{Name: "s__a"}}})
	if e, ok := c.load(spec); !ok || len(e.Tools) != 1 {
		t.Fatalf("rewritten entry: %+v %v", e, ok)
	}
}

// BenchmarkStopIdleStubbornServer is how long stopping a server that
// ignores stdin EOF takes when no call is in flight (it was a whole
// StopGrace before it got SIGTERM).
func BenchmarkStopIdleStubbornServer(b *testing.B) {
	old := StopGrace
	StopGrace = time.Second
	defer func() { StopGrace = old }()
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c, err := start(context.Background(), fakeSpec(b, dir, "stubborn"), &Options{Log: loggerOr(nil), ClientVersion: "bench"}, &elicitor{log: loggerOr(nil)}, &toolCache{log: loggerOr(nil)}, false)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c.close()
	}
}
