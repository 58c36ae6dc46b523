package pluginhost_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
)

// A plugin that floods requests and never reads its stdin does not block
// jp's read loop: its exit is handled although thousands of answers are
// still unwritten, and the run ends.
func TestPluginThatNeverReadsStillExits(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	id := h.conv("a")
	in := h.input(ready,
		step{Send: `{"type":"read_events","id":"r","conversation":"` + string(id) + `"}`, Times: 3000},
		send(`{"type":"exit","code":0}`),
		step{Hang: true})
	// The plugin process stays (it hangs): finish kills it at once.
	in.Overrides = append(in.Overrides, "plugins.shutdown_timeout_secs=0")
	if err := h.host.Run(t.Context(), in); err != nil {
		t.Fatalf("run: %v", err)
	}
}

// A plugin that leaves jp's answers unread for plugins.write_timeout_secs
// is stopped, with one line naming it.
func TestPluginThatNeverReadsIsStopped(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	id := h.conv("a")
	in := h.input(ready,
		step{Send: `{"type":"read_events","id":"r","conversation":"` + string(id) + `"}`, Times: 3000},
		step{Hang: true})
	in.Overrides = append(in.Overrides, "plugins.write_timeout_secs=1", "plugins.shutdown_timeout_secs=0")
	err := h.host.Run(t.Context(), in)
	var ue *app.UserError
	if !errors.As(err, &ue) {
		t.Fatalf("run = %v, want a UserError", err)
	}
	want := "plugin t did not read its stdin for 1s (plugins.write_timeout_secs); it was stopped"
	if ue.Error() != want || strings.Contains(ue.Error(), "\n") {
		t.Fatalf("error = %q, want %q", ue.Error(), want)
	}
}
