package mcp

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jpcli/jp/ports"
)

// pidOf asks a leased fake server for its process ID.
func pidOf(t *testing.T, ts ports.ToolServer) int {
	t.Helper()
	r, err := ts.Call(context.Background(), "fake__pid", nil)
	if err != nil || r.IsError {
		t.Fatalf("pid: %+v %v", r, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(r.Content))
	if err != nil {
		t.Fatalf("pid %q: %v", r.Content, err)
	}
	return pid
}

func mustLease(t *testing.T, p *Pool, spec ports.MCPServerSpec, lim ports.MCPLimits) (ports.ToolServer, func()) {
	t.Helper()
	ts, release, err := p.Lease(context.Background(), spec, lim)
	if err != nil {
		t.Fatalf("Lease %s in %s: %v", spec.Name, spec.Dir, err)
	}
	return ts, release
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestPoolReusesAnInstanceWithinARun(t *testing.T) {
	p, _, _ := newTestPool(t, nil)
	spec := fakeSpec(t, t.TempDir(), "")
	a, releaseA := mustLease(t, p, spec, limits)
	b, releaseB := mustLease(t, p, spec, limits)
	if pa, pb := pidOf(t, a), pidOf(t, b); pa != pb {
		t.Fatalf("two leases of one key ran two servers: %d and %d", pa, pb)
	}
	if got := p.Instances(); len(got) != 1 || got[0].Leases != 2 {
		t.Fatalf("instances = %+v, want one with two leases", got)
	}
	releaseA()
	releaseA() // idempotent
	releaseB()
	c, releaseC := mustLease(t, p, spec, limits) // a later turn of the run
	defer releaseC()
	if pidOf(t, c) != pidOf(t, a) {
		t.Fatal("a lease after the others ended did not reuse the idle instance")
	}
}

func TestPoolSpawnDirectoriesAndConfigsAreSeparateInstances(t *testing.T) {
	p, _, _ := newTestPool(t, nil)
	one, two := t.TempDir(), t.TempDir()
	a, ra := mustLease(t, p, fakeSpec(t, one, ""), limits)
	defer ra()
	b, rb := mustLease(t, p, fakeSpec(t, two, ""), limits)
	defer rb()
	other := fakeSpec(t, one, "")
	other.Server.Env["EXTRA"] = "1"
	c, rc := mustLease(t, p, other, limits)
	defer rc()
	pa, pb, pc := pidOf(t, a), pidOf(t, b), pidOf(t, c)
	if pa == pb || pa == pc || pb == pc {
		t.Fatalf("pids %d %d %d: want three instances", pa, pb, pc)
	}
	got := p.Instances()
	if len(got) != 3 {
		t.Fatalf("instances = %+v", got)
	}
	if r, _ := b.Call(context.Background(), "fake__cwd", nil); r.Content != two {
		t.Fatalf("the server runs in %q, want its spawn directory %q", r.Content, two)
	}
}

func TestPoolStopsAnIdleInstanceAfterIdleShutdown(t *testing.T) {
	p, ft, stopped := newTestPool(t, nil)
	spec := fakeSpec(t, t.TempDir(), "")
	ts, release := mustLease(t, p, spec, limits)
	pid := pidOf(t, ts)
	release()
	within(t, ft.added, "the idle timer")

	ft.Advance(limits.IdleShutdown - time.Second)
	if len(p.Instances()) != 1 {
		t.Fatal("stopped before mcp.idle_shutdown_secs passed")
	}
	ft.Advance(time.Second)
	within(t, stopped, "the idle instance to stop")
	if len(p.Instances()) != 0 || alive(pid) {
		t.Fatalf("instance still there after idle shutdown: %+v, alive %v", p.Instances(), alive(pid))
	}
}

func TestPoolLeaseCancelsTheIdleCountdown(t *testing.T) {
	p, ft, _ := newTestPool(t, nil)
	spec := fakeSpec(t, t.TempDir(), "")
	ts, release := mustLease(t, p, spec, limits)
	pid := pidOf(t, ts)
	release()
	within(t, ft.added, "the idle timer")
	ft.Advance(limits.IdleShutdown / 2)
	ts2, release2 := mustLease(t, p, spec, limits)
	ft.Advance(limits.IdleShutdown) // the first countdown is void
	if pidOf(t, ts2) != pid || len(p.Instances()) != 1 {
		t.Fatal("a leased instance was stopped by an earlier idle countdown")
	}
	release2()
	within(t, ft.added, "the second idle timer")
}

func TestPoolZeroIdleShutdownStopsOnRelease(t *testing.T) {
	p, _, stopped := newTestPool(t, nil)
	lim := ports.MCPLimits{MaxInstances: 2}
	_, release := mustLease(t, p, fakeSpec(t, t.TempDir(), ""), lim)
	release()
	within(t, stopped, "the released instance to stop")
}

func TestPoolCapWaitsThenFailsNamingTheSetting(t *testing.T) {
	p, ft, _ := newTestPool(t, nil)
	lim := ports.MCPLimits{IdleShutdown: time.Minute, MaxInstances: 1}
	_, release := mustLease(t, p, fakeSpec(t, t.TempDir(), ""), lim)
	defer release()
	errc := make(chan error, 1)
	go func() {
		_, _, err := p.Lease(context.Background(), fakeSpec(t, t.TempDir(), ""), lim)
		errc <- err
	}()
	within(t, ft.added, "the lease to wait")
	select {
	case err := <-errc:
		t.Fatalf("lease beyond the cap returned before its wait: %v", err)
	default:
	}
	ft.Advance(5 * time.Second)
	err := within(t, errc, "the waiting lease to fail")
	if !errors.Is(err, ports.ErrMCPLimit) || !strings.Contains(err.Error(), "mcp.max_instances = 1") {
		t.Fatalf("err = %v, want ErrMCPLimit naming mcp.max_instances", err)
	}
}

func TestPoolCapEvictsAnInstanceThatWentIdle(t *testing.T) {
	p, ft, stopped := newTestPool(t, nil)
	lim := ports.MCPLimits{IdleShutdown: time.Hour, MaxInstances: 1}
	first := fakeSpec(t, t.TempDir(), "")
	_, release := mustLease(t, p, first, lim)
	type res struct {
		ts      ports.ToolServer
		release func()
		err     error
	}
	got := make(chan res, 1)
	second := fakeSpec(t, t.TempDir(), "")
	go func() {
		ts, r, err := p.Lease(context.Background(), second, lim)
		got <- res{ts, r, err}
	}()
	within(t, ft.added, "the lease to wait")
	release() // the first goes idle: the waiting lease takes its place
	if s := within(t, stopped, "the idle instance to make room"); s.Dir != first.Dir {
		t.Fatalf("stopped %s, want the idle %s", s.Dir, first.Dir)
	}
	r := within(t, got, "the waiting lease")
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.release()
	if ins := p.Instances(); len(ins) != 1 || ins[0].Dir != second.Dir {
		t.Fatalf("instances = %+v", ins)
	}
}

func TestPoolRestartsAKilledServerOnTheNextLease(t *testing.T) {
	p, _, _ := newTestPool(t, nil)
	spec := fakeSpec(t, t.TempDir(), "")
	ts, release := mustLease(t, p, spec, limits)
	pid := pidOf(t, ts)
	release()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	exited := p.insts[instanceKey(spec)].c.proc.exited
	p.mu.Unlock()
	within(t, exited, "the killed server to be reaped")

	ts2, release2 := mustLease(t, p, spec, limits)
	defer release2()
	if pid2 := pidOf(t, ts2); pid2 == pid {
		t.Fatal("the next lease reused the killed instance")
	}
}

func TestPoolCrashMidCallIsAnErrorResultAndRestarts(t *testing.T) {
	p, _, _ := newTestPool(t, nil)
	spec := fakeSpec(t, t.TempDir(), "")
	ts, release := mustLease(t, p, spec, limits)
	pid := pidOf(t, ts)
	r, err := ts.Call(context.Background(), "fake__crash", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.IsError || !strings.Contains(r.Content, "stopped during the call") || !strings.Contains(r.Content, "crashing on purpose") {
		t.Fatalf("result = %+v, want an error result quoting the crash", r)
	}
	release()
	ts2, release2 := mustLease(t, p, spec, limits)
	defer release2()
	if pidOf(t, ts2) == pid {
		t.Fatal("the next lease reused the crashed instance")
	}
}

func TestPoolShutdownStopsEveryInstance(t *testing.T) {
	for _, mode := range []string{"plain", "stubborn", "deaf"} {
		t.Run(mode, func(t *testing.T) {
			p, _, _ := newTestPool(t, nil)
			a, ra := mustLease(t, p, fakeSpec(t, t.TempDir(), mode), limits)
			b, _ := mustLease(t, p, fakeSpec(t, t.TempDir(), mode), limits) // still leased
			pa, pb := pidOf(t, a), pidOf(t, b)
			ra()
			if err := p.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if alive(pa) || alive(pb) {
				t.Fatalf("servers still running after Shutdown: %v %v", alive(pa), alive(pb))
			}
			if _, _, err := p.Lease(context.Background(), fakeSpec(t, t.TempDir(), mode), limits); !errors.Is(err, ErrClosed) {
				t.Fatalf("lease after Shutdown: %v", err)
			}
		})
	}
}

func TestPoolStopAndCancelledCall(t *testing.T) {
	p, _, stopped := newTestPool(t, nil)
	spec := fakeSpec(t, t.TempDir(), "")
	ts, release := mustLease(t, p, spec, limits)
	if err := p.Stop(context.Background(), spec); err == nil {
		t.Fatal("Stop of a leased instance succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan ports.ToolResult, 1)
	go func() {
		r, _ := ts.Call(ctx, "fake__hang", nil)
		done <- r
	}()
	cancel()
	if r := within(t, done, "the cancelled call"); !r.IsError {
		t.Fatalf("cancelled call = %+v", r)
	}
	release()
	if err := p.Stop(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	within(t, stopped, "Stop")
}

func TestPoolStartFailures(t *testing.T) {
	p, _, _ := newTestPool(t, nil)
	dir := t.TempDir()
	cases := map[string]struct {
		cmd  []string
		want string
	}{
		"missing": {[]string{"/no/such/server"}, `command "/no/such/server" not found`},
		"empty":   {nil, "mcp.servers.broken.command"},
		"exits":   {[]string{"sh", "-c", "echo boom >&2; exit 4"}, "boom"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			spec := ports.MCPServerSpec{Name: "broken", Dir: dir}
			spec.Server.Command = c.cmd
			_, _, err := p.Lease(context.Background(), spec, limits)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
			if len(p.Instances()) != 0 {
				t.Fatal("a failed start stayed in the pool")
			}
		})
	}
}
