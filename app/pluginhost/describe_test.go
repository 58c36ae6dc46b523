package pluginhost_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jpcli/jp/adapters/pluginwire"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// jp <plugin> -h of a plugin without help in a manifest file spawns it
// in the checkout with describe instead of init, skips what is not the
// answer, closes its stdin once answered, and closes the process.
func TestPluginHelpAsksDescribe(t *testing.T) {
	t.Parallel()
	describe, err := pluginwire.Encode(plugin.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	answer, err := pluginwire.Encode(plugin.Description{Manifest: plugin.Manifest{Name: "t", Version: "1", ProtocolVersion: 2, Help: "usage: jp t [--flag]"}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	lines := [][]byte{[]byte(`{"type":"log","level":"info","message":"starting"}`), answer}
	conn := &mocks.PluginTransportMock{
		SendFunc: func(context.Context, []byte) error { return nil },
		RecvFunc: func(ctx context.Context) ([]byte, error) {
			mu.Lock()
			defer mu.Unlock()
			if len(lines) == 0 {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			l := lines[0]
			lines = lines[1:]
			return l, nil
		},
		CloseStdinFunc: func() error { return nil },
		CloseFunc:      func() error { return nil },
	}
	spawner := &mocks.PluginSpawnerMock{SpawnFunc: func(context.Context, ports.PluginSpec) (ports.PluginTransport, error) { return conn, nil }}
	h := newHostWith(t, spawner)
	in := h.input()
	in.Binary.Manifest.Help, in.Binary.ManifestFrom = "", "approval"

	help, err := h.host.Help(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if help != "usage: jp t [--flag]" {
		t.Errorf("help = %q", help)
	}
	spawns := spawner.SpawnCalls()
	if len(spawns) != 1 || spawns[0].Spec.Path != in.Binary.Path || spawns[0].Spec.Dir != h.loc.Root || spawns[0].Spec.Name != "t" {
		t.Fatalf("spawns = %+v, want the binary once, in the checkout %s", spawns, h.loc.Root)
	}
	sent := conn.SendCalls()
	if len(sent) != 1 || string(sent[0].Line) != string(describe) {
		t.Errorf("sent %+v, want only %s", sent, describe)
	}
	if n := len(conn.CloseStdinCalls()); n != 1 {
		t.Errorf("stdin closed %d times, want once after the answer", n)
	}
	if n := len(conn.CloseCalls()); n != 1 {
		t.Errorf("transport closed %d times, want once", n)
	}
}

// A plugin that cannot be started, or that breaks off before its
// answer, is one error naming it; the transport is still closed.
func TestPluginHelpWhenDescribeFails(t *testing.T) {
	t.Parallel()
	t.Run("spawn", func(t *testing.T) {
		t.Parallel()
		spawner := &mocks.PluginSpawnerMock{SpawnFunc: func(context.Context, ports.PluginSpec) (ports.PluginTransport, error) {
			return nil, errors.New("start plugin t: permission denied")
		}}
		h := newHostWith(t, spawner)
		in := h.input()
		in.Binary.Manifest.Help, in.Binary.ManifestFrom = "", "approval"
		_, err := h.host.Help(context.Background(), in)
		var ue *app.UserError
		if !errors.As(err, &ue) || err.Error() != "start plugin t: permission denied" {
			t.Fatalf("err = %v (%T), want the spawner's as a user error", err, err)
		}
	})
	t.Run("eof", func(t *testing.T) {
		t.Parallel()
		conn := &mocks.PluginTransportMock{
			SendFunc:  func(context.Context, []byte) error { return nil },
			RecvFunc:  func(context.Context) ([]byte, error) { return nil, errors.New("EOF") },
			CloseFunc: func() error { return nil },
		}
		h := newHostWith(t, &mocks.PluginSpawnerMock{SpawnFunc: func(context.Context, ports.PluginSpec) (ports.PluginTransport, error) { return conn, nil }})
		in := h.input()
		in.Binary.Manifest.Help, in.Binary.ManifestFrom = "", "approval"
		_, err := h.host.Help(context.Background(), in)
		if err == nil || !strings.Contains(err.Error(), "plugin t (") || !strings.HasSuffix(err.Error(), "did not describe itself: EOF") {
			t.Fatalf("err = %v", err)
		}
		if n := len(conn.CloseCalls()); n != 1 || len(conn.CloseStdinCalls()) != 0 {
			t.Errorf("closed %d times, stdin %d times; want the transport closed once", n, len(conn.CloseStdinCalls()))
		}
		if !slices.ContainsFunc(conn.SendCalls(), func(c struct {
			Ctx  context.Context
			Line []byte
		}) bool {
			return strings.Contains(string(c.Line), `"describe"`)
		}) {
			t.Errorf("describe not sent: %+v", conn.SendCalls())
		}
	})
}
