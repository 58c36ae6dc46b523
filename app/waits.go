package app

import (
	"strings"

	"github.com/jpcli/jp/domain/config"
)

// The spinner labels: what jp waits for, shown by the printer once a wait
// lasts 300 ms (ports.Printer.Wait).

// waitMCPLabel names the enabled MCP servers a turn may have to start
// before it can offer their tools; "" when there are none. Servers whose
// tool list is cached are not started, and such a turn is done before
// the spinner would show.
func waitMCPLabel(cfg config.Config) string {
	names := cfg.MCP.EnabledServers()
	if len(names) == 0 {
		return ""
	}
	return "starting MCP servers (" + strings.Join(names, ", ") + "…)"
}

// waitModelLabel is the wait for the provider's first byte.
func waitModelLabel(model string) string { return "waiting for " + model + "…" }

// waitToolLabel is the wait for a tool call's result.
func waitToolLabel(name string) string { return "running " + name + "…" }

// waitFor shows label while it lasts; a no-op stop for "".
func (q *Query) waitFor(label string) (stop func()) {
	if label == "" {
		return func() {}
	}
	return q.printer.Wait(label)
}
