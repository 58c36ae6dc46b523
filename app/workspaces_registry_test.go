package app_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// Open records the checkout it resolved in the roots registry; a
// registry that cannot record it (a read-only data directory) does not
// stop the command, and is logged once per process, not per call.
func TestOpenRecordsTheCheckoutBestEffort(t *testing.T) {
	t.Parallel()
	found := ports.Found{ID: "a1b2c3", Root: "/proj"}
	reg := &mocks.WorkspaceRegistryMock{
		FindFunc: func(context.Context, string) (ports.Found, error) { return found, nil },
		RegisterFunc: func(context.Context, ports.Found) error {
			return errors.New("record checkout /proj: read-only file system")
		},
	}
	var log bytes.Buffer
	ws := app.NewWorkspaces(reg, &mocks.ConversationStoreMock{})
	ws.Log = slog.New(slog.NewTextHandler(&log, nil))
	for range 2 {
		loc, err := ws.Open(context.Background(), "", "/proj/sub")
		if err != nil {
			t.Fatal(err)
		}
		if loc != (workspace.Location{ID: found.ID, Root: found.Root}) {
			t.Fatalf("loc = %+v", loc)
		}
	}
	if finds := reg.FindCalls(); len(finds) != 2 || finds[0].Dir != "/proj/sub" {
		t.Errorf("finds = %+v, want the launch directory", finds)
	}
	if regs := reg.RegisterCalls(); len(regs) != 2 || regs[0].F != found {
		t.Errorf("registered %+v, want the found checkout each time", regs)
	}
	if n := strings.Count(log.String(), "checkout not recorded"); n != 1 || !strings.Contains(log.String(), "read-only file system") {
		t.Errorf("log = %q, want the failure once", log.String())
	}

	// A cancelled command does not continue without its record.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ws.Open(ctx, "", "/proj"); err == nil {
		t.Error("Open went on after its context ended")
	}
}

// Resolve says in one line what to do when -w names nothing it can use.
func TestResolveExplainsWhatIsMissing(t *testing.T) {
	t.Parallel()
	notFound := func(what string) error { return fmt.Errorf("%s: %w", what, ports.ErrNotFound) }
	reg := &mocks.WorkspaceRegistryMock{
		FindFunc: func(_ context.Context, dir string) (ports.Found, error) {
			if dir == "/nowhere" {
				return ports.Found{}, notFound(dir)
			}
			return ports.Found{}, fmt.Errorf("%s: %w", dir, ports.ErrNoWorkspace)
		},
		LookupFunc: func(_ context.Context, id workspace.ID) (workspace.Known, error) {
			return workspace.Known{}, notFound(string(id))
		},
	}
	ws := app.NewWorkspaces(reg, &mocks.ConversationStoreMock{})
	for _, tc := range []struct{ target, want string }{
		{"", "/home/u is not inside a jp workspace: run jp init to create one here, or pass -w ID|PATH"},
		{"/tmp/x", "/tmp/x is not inside a jp workspace: run jp init /tmp/x to create one"},
		{"/nowhere", "-w /nowhere is neither a known workspace ID nor a directory: list known workspaces with jp workspace ls"},
	} {
		_, err := ws.Resolve(context.Background(), tc.target, "/home/u")
		var ue *app.UserError
		if !errors.As(err, &ue) || ue.Msg != tc.want {
			t.Errorf("-w %q: err = %v, want %q", tc.target, err, tc.want)
		}
	}
	// A registry failure that is not "nothing there" is returned as is.
	broken := errors.New("roots registry unreadable")
	reg.FindFunc = func(context.Context, string) (ports.Found, error) { return ports.Found{}, broken }
	if _, err := ws.Resolve(context.Background(), "", "/home/u"); !errors.Is(err, broken) {
		t.Errorf("err = %v, want the registry's", err)
	}
	if n := len(reg.RegisterCalls()); n != 0 {
		t.Errorf("Resolve registered %d checkouts; it writes nothing", n)
	}
}

// OpenOrDefault that records resolves the checkout once and records what
// it resolved (it used to resolve it again through Open: a second walk up
// the directories and a second read of the registry on every command).
func TestOpenOrDefaultResolvesOnce(t *testing.T) {
	t.Parallel()
	found := ports.Found{ID: "a1b2c3", Root: "/proj"}
	reg := &mocks.WorkspaceRegistryMock{
		FindFunc:     func(context.Context, string) (ports.Found, error) { return found, nil },
		RegisterFunc: func(context.Context, ports.Found) error { return nil },
	}
	ws := app.NewWorkspaces(reg, &mocks.ConversationStoreMock{})
	o, err := ws.OpenOrDefault(context.Background(), "", "/proj/sub", true)
	if err != nil {
		t.Fatal(err)
	}
	if o.Location != (workspace.Location{ID: found.ID, Root: found.Root}) {
		t.Fatalf("loc = %+v", o.Location)
	}
	if n := len(reg.FindCalls()); n != 1 {
		t.Errorf("the checkout was resolved %d times, want 1", n)
	}
	if calls := reg.RegisterCalls(); len(calls) != 1 || calls[0].F != found {
		t.Errorf("recorded %+v, want %+v once", calls, found)
	}
}
