package tomlconfig

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/config"
)

// TestLayerErrors puts a bad key or value into each layer in turn and
// checks that the error names the key, the layer, and what is wrong.
func TestLayerErrors(t *testing.T) {
	w := newWorkspace(t)
	userFile := filepath.Join(w.user, "config.toml")
	wsFile := filepath.Join(w.root, ".jp", "config.toml")
	rootLocal := filepath.Join(w.root, ".jp.toml")
	subLocal := filepath.Join(w.root, "a", ".jp.toml")

	tests := []struct {
		name    string
		file    string // written with content, when set
		content string
		env     []string
		flags   []string
		want    string
		is      error
	}{
		{name: "unknown key in user config", file: userFile, content: "[query]\nlop = \"never\"\n",
			want: "unknown configuration key query.lop in " + userFile + "; did you mean query.loop?", is: config.ErrUnknownKey},
		{name: "unknown key in workspace config", file: wsFile, content: "[interrupt.streaming]\nacton = \"stop\"\n",
			want: "unknown configuration key interrupt.streaming.acton in " + wsFile + "; did you mean interrupt.streaming.action?", is: config.ErrUnknownKey},
		{name: "unknown key in root .jp.toml", file: rootLocal, content: "[bogus]\nx = 1\n",
			want: "unknown configuration key bogus in " + rootLocal + "; the keys of the top level are assistant, providers, query, interrupt, conversation, mcp, plugins, editor, template, style, config_load_paths", is: config.ErrUnknownKey},
		{name: "unknown key in nested .jp.toml", file: subLocal, content: "[conversation.tools.fs]\ncomand = [\"x\"]\n",
			want: "unknown configuration key conversation.tools.fs.comand in " + subLocal + "; did you mean conversation.tools.fs.command?", is: config.ErrUnknownKey},
		{name: "unknown key under tools defaults", file: subLocal, content: "conversation.tools.defaults.command = [\"x\"]\n",
			want: "unknown configuration key conversation.tools.defaults.command in " + subLocal + "; the keys of [conversation.tools.defaults] are run, result, cancellation_response", is: config.ErrUnknownKey},
		{name: "unknown key in environment", env: []string{"JP_CFG_QUERY__LOP=never"},
			want: "unknown configuration key query.lop in environment variable JP_CFG_QUERY__LOP; did you mean query.loop?", is: config.ErrUnknownKey},
		{name: "unknown key in flag", flags: []string{"mcp.server.x.command=[]"},
			want: `unknown configuration key mcp.server in --cfg flag "mcp.server.x.command=[]"; did you mean mcp.servers?`, is: config.ErrUnknownKey},

		{name: "enum in workspace config", file: wsFile, content: "[query]\nloop = \"sometimes\"\n",
			want: "query.loop in " + wsFile + `: expected one of never, if_pending, always, got "sometimes"`, is: config.ErrInvalidValue},
		{name: "enum of wrong type", file: userFile, content: "query.loop = 3\n",
			want: "query.loop in " + userFile + ": expected one of never, if_pending, always, got 3", is: config.ErrInvalidValue},
		{name: "compose_in_editor", file: rootLocal, content: "interrupt.loop_countdown.compose_in_editor = \"sometimes\"\n",
			want: "interrupt.loop_countdown.compose_in_editor in " + rootLocal + `: expected one of false, true, always, never, got "sometimes"`, is: config.ErrInvalidValue},
		{name: "integer as string", file: userFile, content: "assistant.request.max_retries = \"five\"\n",
			want: "assistant.request.max_retries in " + userFile + `: expected an integer, got "five"`, is: config.ErrInvalidValue},
		{name: "float for integer", file: userFile, content: "interrupt.loop_countdown.duration_secs = 1.5\n",
			want: "interrupt.loop_countdown.duration_secs in " + userFile + ": expected an integer, got 1.5", is: config.ErrInvalidValue},
		{name: "negative integer", file: userFile, content: "mcp.idle_shutdown_secs = -1\n",
			want: "mcp.idle_shutdown_secs in " + userFile + ": expected an integer of at least 0, got -1", is: config.ErrInvalidValue},
		{name: "bool", file: wsFile, content: "[mcp.servers.x]\nenable = \"yes\"\n",
			want: "mcp.servers.x.enable in " + wsFile + `: expected true or false, got "yes"`, is: config.ErrInvalidValue},
		{name: "array of strings", file: wsFile, content: "[mcp.servers.x]\ncommand = \"npx srv\"\n",
			want: "mcp.servers.x.command in " + wsFile + `: expected an array of strings, got "npx srv"`, is: config.ErrInvalidValue},
		{name: "array element", file: wsFile, content: "[mcp.servers.x]\ncommand = [\"a\", 1]\n",
			want: "mcp.servers.x.command in " + wsFile + ": expected an array of strings, got 1 at index 1", is: config.ErrInvalidValue},
		{name: "string map value", file: wsFile, content: "[mcp.servers.x.env]\nA = 1\n",
			want: "mcp.servers.x.env.A in " + wsFile + ": expected a string, got 1", is: config.ErrInvalidValue},
		{name: "any table", file: wsFile, content: "[conversation.tools.t]\nparameters = \"object\"\n",
			want: "conversation.tools.t.parameters in " + wsFile + `: expected a table, got "object"`, is: config.ErrInvalidValue},
		{name: "table", file: userFile, content: "query = \"x\"\n",
			want: "query in " + userFile + `: expected a table, got "x"`, is: config.ErrInvalidValue},
		{name: "quoted key in message", file: wsFile, content: "[mcp.servers.\"a.b\"]\nenable = 1\n",
			want: `mcp.servers."a.b".enable in ` + wsFile + ": expected true or false, got 1", is: config.ErrInvalidValue},
		{name: "wrong type in environment", env: []string{"JP_CFG_MCP__MAX_INSTANCES=many"},
			want: `mcp.max_instances in environment variable JP_CFG_MCP__MAX_INSTANCES: expected an integer, got "many"`, is: config.ErrInvalidValue},
		{name: "minimum in flag", flags: []string{"mcp.max_instances=0"},
			want: `mcp.max_instances in --cfg flag "mcp.max_instances=0": expected an integer of at least 1, got 0`, is: config.ErrInvalidValue},
		{name: "enum in flag", flags: []string{"interrupt.tool_call.action=abort"},
			want: `interrupt.tool_call.action in --cfg flag "interrupt.tool_call.action=abort": expected one of prompt, continue, respond, queue_reply, stop, restart, got "abort"`, is: config.ErrInvalidValue},

		{name: "flag without =", flags: []string{"query.loop"},
			want: `invalid --cfg "query.loop": expected key.path=value`, is: config.ErrInvalidValue},
		{name: "flag without key", flags: []string{"=never"},
			want: `invalid --cfg "=never": expected key.path=value`, is: config.ErrInvalidValue},
		{name: "flag with malformed path", flags: []string{"query..loop=never"},
			want: `query..loop in --cfg flag "query..loop=never": empty or malformed key in path`, is: config.ErrInvalidValue},
		{name: "environment variable naming no key", env: []string{"JP_CFG_QUERY____LOOP=never"},
			want: `environment variable JP_CFG_QUERY____LOOP does not name a key`, is: config.ErrInvalidValue},
		{name: "bare prefix", env: []string{"JP_CFG_=x"},
			want: `environment variable JP_CFG_ does not name a key`, is: config.ErrInvalidValue},

		{name: "syntax error", file: wsFile, content: "[query]\nloop = \"never\"\nx = [1,\n[y]\n",
			want: wsFile + ":4:2: invalid TOML:", is: config.ErrSyntax},
		{name: "duplicate key", file: subLocal, content: "[query]\nloop = \"never\"\nloop = \"never\"\n",
			want: subLocal + ":3:1: invalid TOML: key loop is already defined", is: config.ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []string{userFile, wsFile, rootLocal, subLocal} {
				os.Remove(f)
			}
			if tt.file != "" {
				writeFile(t, tt.file, tt.content)
			}
			_, err := trusting().Load(context.Background(), w.source(tt.env, tt.flags))
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error\n %s\nwant it to contain\n %s", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
		})
	}
}

func TestErrorTypes(t *testing.T) {
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), "query.lop = 1\n")
	_, err := trusting().Load(context.Background(), w.source(nil, nil))
	var ke *config.KeyError
	if !errors.As(err, &ke) || ke.Key != "query.lop" || ke.Source != filepath.Join(w.root, ".jp", "config.toml") {
		t.Errorf("err = %#v, want a *config.KeyError for query.lop", err)
	}

	writeFile(t, filepath.Join(w.root, ".jp", "config.toml"), "a = \n")
	_, err = trusting().Load(context.Background(), w.source(nil, nil))
	var se *config.SyntaxError
	if !errors.As(err, &se) || se.Line != 1 || se.Column == 0 {
		t.Errorf("err = %#v, want a *config.SyntaxError at line 1", err)
	}
}

func TestUnreadableFile(t *testing.T) {
	w := newWorkspace(t)
	// A directory where the file should be.
	if err := os.MkdirAll(filepath.Join(w.user, "config.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := trusting().Load(context.Background(), w.source(nil, nil))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(w.user, "config.toml")) {
		t.Errorf("err = %v, want it to name the file", err)
	}
}

func TestFirstErrorIsDeterministic(t *testing.T) {
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.user, "config.toml"), "zz = 1\naa = 1\nmm = 1\n")
	for range 20 {
		_, err := trusting().Load(context.Background(), w.source(nil, nil))
		if err == nil || !strings.Contains(err.Error(), "key aa ") {
			t.Fatalf("err = %v, want the first key in order (aa)", err)
		}
	}
}
