package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// DefaultPort is the port jp serve web listens on when
// plugins.command.serve-web.options.port is unset.
const DefaultPort = 3141

// Options are the plugin's settings: init's options, which jp takes from
// plugins.command.serve-web.options.
type Options struct {
	// Port is the TCP port on 127.0.0.1; 0 picks a free one.
	Port int
	// Socket, when set, is the path of a Unix socket (mode 0600) to serve
	// on instead of the TCP port.
	Socket string
}

// ParseOptions reads init's options and args. Every problem is one line
// naming the configuration key to change.
func ParseOptions(raw json.RawMessage, args []string) (Options, error) {
	o := Options{Port: DefaultPort}
	if len(args) > 0 {
		return o, fmt.Errorf("jp serve web takes no arguments (got %q); set the port with plugins.command.serve-web.options.port", strings.Join(args, " "))
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return o, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return o, fmt.Errorf("plugins.command.serve-web.options must be a table, not %s", raw)
	}
	var unknown []string
	for k := range m {
		if k != "port" && k != "socket" {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return o, fmt.Errorf("unknown option plugins.command.serve-web.options.%s (the options are port and socket)", unknown[0])
	}
	if p, ok := m["port"]; ok {
		var n json.Number
		if len(p) == 0 || p[0] == '"' || json.Unmarshal(p, &n) != nil {
			return o, fmt.Errorf("plugins.command.serve-web.options.port must be a port number (0-65535), not %s", p)
		}
		v, err := n.Int64()
		if err != nil || v < 0 || v > 65535 {
			return o, fmt.Errorf("plugins.command.serve-web.options.port must be a port number (0-65535), not %s", p)
		}
		o.Port = int(v)
	}
	if p, ok := m["socket"]; ok {
		if json.Unmarshal(p, &o.Socket) != nil || o.Socket == "" || !strings.HasPrefix(o.Socket, "/") {
			return o, fmt.Errorf("plugins.command.serve-web.options.socket must be the absolute path of a Unix socket, not %s", p)
		}
	}
	return o, nil
}
