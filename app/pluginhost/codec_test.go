package pluginhost_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/pluginproc"
	"github.com/jpcli/jp/adapters/pluginwire"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// Every line to a plugin goes through the wire codec (ports.PluginCodec):
// a message the codec cannot encode is an error of the run that asked,
// nothing half-written reaches the plugin, and the plugin is still closed.
func TestPluginEncodeErrorIsReported(t *testing.T) {
	t.Parallel()
	boom := errors.New("cannot encode describe")
	wire := &mocks.PluginCodecMock{
		EncodeFunc: func(plugin.Message) ([]byte, error) { return nil, boom },
	}
	conn := &mocks.PluginTransportMock{
		SendFunc:       func(context.Context, []byte) error { return nil },
		CloseStdinFunc: func() error { return nil },
		CloseFunc:      func() error { return nil },
	}
	spawner := &mocks.PluginSpawnerMock{SpawnFunc: func(context.Context, ports.PluginSpec) (ports.PluginTransport, error) { return conn, nil }}
	h := newHostWithCodec(t, spawner, wire)
	in := h.input()
	in.Binary.Manifest.Help, in.Binary.ManifestFrom = "", "approval"

	_, err := h.host.Help(context.Background(), in)
	if !errors.Is(err, boom) {
		t.Fatalf("Help = %v, want the codec's error", err)
	}
	calls := wire.EncodeCalls()
	if len(calls) != 1 || calls[0].M.MessageType() != plugin.TypeDescribe {
		t.Errorf("encoded %+v, want the describe request once", calls)
	}
	if n := len(conn.SendCalls()); n != 0 {
		t.Errorf("%d lines sent after the encode error, want none", n)
	}
	if n := len(conn.CloseCalls()); n != 1 {
		t.Errorf("transport closed %d times, want once", n)
	}
}

// An answer jp cannot encode reaches the plugin as an error answer to its
// request (same id), not as silence it would wait on forever.
func TestPluginAnswerNotEncodedIsAnErrorAnswer(t *testing.T) {
	t.Parallel()
	real := pluginwire.Codec{}
	wire := &mocks.PluginCodecMock{
		EncodeFunc: func(m plugin.Message) ([]byte, error) {
			if m.MessageType() == plugin.TypeConversations {
				return nil, errors.New("cannot encode conversations")
			}
			return real.Encode(m)
		},
		DecodeHeaderFunc: real.DecodeHeader,
		DecodeFunc:       real.Decode,
	}
	h := newHostWithCodec(t, pluginproc.Spawner{}, wire)
	if err := h.run(ready, send(`{"type":"list_conversations","id":"7"}`), read(1), exit0); err != nil {
		t.Fatal(err)
	}
	got := h.answers()
	if len(got) != 1 || got[0]["type"] != "error" || got[0]["id"] != "7" || !strings.Contains(got[0]["message"].(string), "could not encode") {
		t.Fatalf("answers = %v, want one error answer to request 7", got)
	}
}
