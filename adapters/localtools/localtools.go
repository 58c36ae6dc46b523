// Package localtools runs the local command tools configured under
// [conversation.tools.<name>] (docs/tools.md): the call's arguments go
// to the command's stdin as a JSON object, its stdout is the result, and a
// non-zero exit is an error result. Arguments are validated against the
// tool's JSON Schema first; a mismatch is an error result too, so the model
// can correct itself and the turn goes on.
package localtools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/internal/procgroup"
	"github.com/jpcli/jp/internal/sandbox"
	"github.com/jpcli/jp/ports"
)

// maxOutput bounds what a tool may return to the model.
const maxOutput = 1 << 20

// KillGrace is how long a cancelled tool gets between SIGTERM and SIGKILL.
var KillGrace = 2 * time.Second

// Server is the local tools of one configuration, run in one directory.
type Server struct {
	dir   string
	tools map[string]tool
	names []string
}

type tool struct {
	cfg    config.Tool
	spec   llm.Tool
	schema *jsonschema.Resolved
	err    error // a schema that does not resolve: every call fails with it
	box    sandbox.Spec
}

var _ ports.ToolServer = (*Server)(nil)

// New builds the server for cfg's local tools, running commands in dir.
func New(cfg config.Config, dir string) *Server {
	s := &Server{dir: dir, tools: map[string]tool{}}
	for _, name := range cfg.LocalTools() {
		tc := cfg.Tool(name)
		raw, err := json.Marshal(tc.ParameterSchema())
		t := tool{cfg: tc, spec: llm.Tool{Name: name, Description: tc.Description, Parameters: raw}, box: sandbox.SpecOf(cfg, name, dir, os.Environ())}
		if err == nil {
			var sch jsonschema.Schema
			if err = json.Unmarshal(raw, &sch); err == nil {
				t.schema, err = sch.Resolve(nil)
			}
		}
		if err != nil {
			t.err = fmt.Errorf("conversation.tools.%s.parameters is not a usable JSON Schema: %v", name, err)
		}
		s.tools[name] = t
		s.names = append(s.names, name)
	}
	return s
}

// Tools lists the configured local tools.
func (s *Server) Tools(ctx context.Context) ([]llm.Tool, error) {
	out := make([]llm.Tool, 0, len(s.names))
	for _, n := range s.names {
		out = append(out, s.tools[n].spec)
	}
	return out, nil
}

// Call runs the tool. Failures of the tool itself are error results.
func (s *Server) Call(ctx context.Context, name string, args json.RawMessage) (ports.ToolResult, error) {
	t, ok := s.tools[name]
	if !ok {
		return ports.ToolResult{Content: fmt.Sprintf("unknown tool %q", name), IsError: true}, nil
	}
	if t.err != nil {
		return ports.ToolResult{Content: t.err.Error(), IsError: true}, nil
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var inst any
	if err := json.Unmarshal(args, &inst); err != nil {
		return ports.ToolResult{Content: fmt.Sprintf("arguments are not valid JSON: %v", err), IsError: true}, nil
	}
	if _, isObj := inst.(map[string]any); !isObj {
		return ports.ToolResult{Content: "arguments must be a JSON object", IsError: true}, nil
	}
	if err := t.schema.Validate(inst); err != nil {
		return ports.ToolResult{Content: fmt.Sprintf("arguments do not match the tool's schema: %v", err), IsError: true}, nil
	}
	argv, err := config.ExpandCommand(t.cfg.Command, config.CommandContext{Tool: name, Arguments: args, Root: s.dir})
	if err != nil {
		return ports.ToolResult{Content: fmt.Sprintf("conversation.tools.%s.command: %v", name, err), IsError: true}, nil
	}
	sb, err := sandbox.Prepare(t.box, argv)
	if err != nil {
		return ports.ToolResult{Content: err.Error(), IsError: true}, nil
	}
	defer sb.Cleanup()
	r := s.run(ctx, sb.Argv, sb.Env, args)
	if sb.Unavailable != "" {
		r.Content += fmt.Sprintf("\n[jp: this command ran without a sandbox: %s]\n", sb.Unavailable)
	}
	if r.IsError && sb.Sandboxed {
		if note := sb.Policy.Note(r.Content); note != "" {
			r.Content += "\n" + note
		}
	}
	return r, nil
}

var _ ports.ToolClassifier = (*Server)(nil)

// ToolKind: a local tool runs a command, sandboxed where its sandbox is
// enforced here.
func (s *Server) ToolKind(name string) ports.ToolKind {
	t, ok := s.tools[name]
	switch {
	case !ok:
		return ports.ToolKindOther
	case sandbox.Enforced(t.box.Level):
		return ports.ToolKindSandboxedCommand
	}
	return ports.ToolKindCommand
}

func (s *Server) run(ctx context.Context, argv, env []string, stdin []byte) ports.ToolResult {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = s.dir
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, stderr := &procgroup.Capped{Max: maxOutput}, &procgroup.Capped{Max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := procgroup.Run(ctx, cmd, KillGrace)
	switch {
	case cmd.Process == nil: // it did not start
		msg := err.Error()
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, syscall.ENOENT) {
			msg = fmt.Sprintf("tool command %q not found: %v", argv[0], err)
		}
		return ports.ToolResult{Content: msg, IsError: true}
	case ctx.Err() != nil:
		return ports.ToolResult{Content: "cancelled", IsError: true}
	}
	out := stdout.String()
	if err != nil {
		var ee *exec.ExitError
		msg := strings.TrimSpace(stderr.String())
		if errors.As(err, &ee) {
			if msg == "" {
				msg = strings.TrimSpace(out)
			}
			return ports.ToolResult{Content: fmt.Sprintf("exit status %d: %s", ee.ExitCode(), msg), IsError: true}
		}
		return ports.ToolResult{Content: err.Error(), IsError: true}
	}
	return ports.ToolResult{Content: out}
}
