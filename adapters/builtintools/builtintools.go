// Package builtintools is jp's own tool kit: file tools (fs_read_file,
// fs_list_files, fs_grep_files, fs_create_file, fs_modify_file,
// fs_delete_file, fs_move_file), read-only git tools (git_status,
// git_diff, git_log) and shell. A tool is offered when the configuration
// names it under [conversation.tools.<name>] without a command.
//
// Every path is confined to the checkout the turn runs in with os.Root:
// "..", absolute paths outside the checkout and symlinks leading out are
// refused with a tool error the model reads, .git/ and .jp/ are never
// written (under any spelling a file system folds to them), only regular
// files are read or written (a named pipe is refused, never opened
// blocking), and conversation.tools.<name>.allow / deny narrow it
// further. The git tools run git through internal/safegit, with
// everything that would run a program of the repository's choosing off.
// Write tools plan their change first (Preview: the unified diff shown in
// the permission prompt), write atomically, refuse a file changed since
// the model last read it in this turn, and return a short summary plus the
// applied diff. See docs/tools.md.
package builtintools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/internal/sandbox"
	"github.com/jpcli/jp/ports"
)

// Tool names.
const (
	ReadFile   = "fs_read_file"
	ListFiles  = "fs_list_files"
	GrepFiles  = "fs_grep_files"
	CreateFile = "fs_create_file"
	ModifyFile = "fs_modify_file"
	DeleteFile = "fs_delete_file"
	MoveFile   = "fs_move_file"
	GitStatus  = "git_status"
	GitDiff    = "git_diff"
	GitLog     = "git_log"
	Shell      = "shell"
	WebFetch   = "web_fetch"
)

// Names lists every built-in tool, in the order they are offered.
var Names = []string{ReadFile, ListFiles, GrepFiles, CreateFile, ModifyFile, DeleteFile, MoveFile, GitStatus, GitDiff, GitLog, Shell, WebFetch}

// Has reports whether name is a built-in tool.
func Has(name string) bool { return slices.Contains(Names, name) }

// IsWrite reports whether the tool changes files (and so has a diff to
// approve).
func IsWrite(name string) bool {
	switch name {
	case CreateFile, ModifyFile, DeleteFile, MoveFile:
		return true
	}
	return false
}

// Server is the built-in tools one configuration enables, confined to one
// checkout, for one turn (what the model read is remembered for the
// turn's hash checks).
type Server struct {
	dir   string
	names []string
	cfg   map[string]config.Tool
	// sandbox is the shell tool's sandbox.
	sandbox sandbox.Spec

	once    sync.Once
	root    *os.Root
	rootErr error

	mu    sync.Mutex
	reads map[string]string // path -> sha256 of what the model last read or wrote

	// fetchAllow (tests) admits a dialled host:port web_fetch would
	// refuse as private.
	fetchAllow func(hostport string) bool
}

var (
	_ ports.ToolServer    = (*Server)(nil)
	_ ports.ToolPreviewer = (*Server)(nil)
)

// Enabled returns the built-in tools cfg names (tables without a command).
func Enabled(cfg config.Config) []string {
	var out []string
	for _, n := range Names {
		if t, ok := cfg.Conversation.Tools.Named[n]; ok && !t.IsLocal() && (t.Enable == nil || *t.Enable) {
			out = append(out, n)
		}
	}
	return out
}

// New returns the server for the built-in tools cfg enables, confined to
// dir (the checkout root). The root is opened on first use; Close
// releases it.
func New(cfg config.Config, dir string) *Server {
	s := &Server{dir: filepath.Clean(dir), cfg: map[string]config.Tool{}, reads: map[string]string{}}
	if real, err := filepath.EvalSymlinks(s.dir); err == nil {
		s.dir = real
	}
	for _, n := range Enabled(cfg) {
		s.names = append(s.names, n)
		s.cfg[n] = cfg.Tool(n)
	}
	s.sandbox = sandbox.SpecOf(cfg, Shell, s.dir, os.Environ())
	return s
}

var _ ports.ToolClassifier = (*Server)(nil)

// ToolKind says what kind each built-in tool is: the fs_* readers and
// git tools read, the fs_* writers edit inside the checkout, and shell
// is a command, sandboxed where its sandbox is enforced here. web_fetch
// reaches the network (what it sends is in its URL), so no mode runs it.
func (s *Server) ToolKind(name string) ports.ToolKind {
	switch {
	case !slices.Contains(s.names, name), name == WebFetch:
		return ports.ToolKindOther
	case IsWrite(name):
		return ports.ToolKindEdit
	case name == Shell:
		if sandbox.Enforced(s.sandbox.Level) {
			return ports.ToolKindSandboxedCommand
		}
		return ports.ToolKindCommand
	}
	return ports.ToolKindRead
}

// Close releases the checkout root.
func (s *Server) Close() error {
	s.once.Do(func() { s.rootErr = errors.New("closed") })
	if s.root != nil {
		return s.root.Close()
	}
	return nil
}

func (s *Server) open() error {
	s.once.Do(func() {
		s.root, s.rootErr = os.OpenRoot(s.dir)
	})
	if s.rootErr != nil {
		return fmt.Errorf("open the checkout %s: %w", s.dir, s.rootErr)
	}
	return nil
}

// Tools lists the enabled built-in tools.
func (s *Server) Tools(context.Context) ([]llm.Tool, error) {
	out := make([]llm.Tool, 0, len(s.names))
	for _, n := range s.names {
		sp := specs[n]
		desc := sp.description
		if d := s.cfg[n].Description; d != "" {
			desc = d
		}
		out = append(out, llm.Tool{Name: n, Description: desc, Parameters: json.RawMessage(sp.schema)})
	}
	return out, nil
}

// Call runs a built-in tool. A refusal or failure of the tool is an error
// result the model reads; err is for the server itself failing.
func (s *Server) Call(ctx context.Context, name string, args json.RawMessage) (ports.ToolResult, error) {
	if !slices.Contains(s.names, name) {
		return ports.ToolResult{Content: fmt.Sprintf("unknown tool %q", name), IsError: true}, nil
	}
	if err := s.open(); err != nil {
		return ports.ToolResult{}, err
	}
	r, err := s.call(ctx, name, args)
	var te *toolError
	if errors.As(err, &te) {
		return ports.ToolResult{Content: te.msg, IsError: true}, nil
	}
	if err != nil {
		return ports.ToolResult{Content: err.Error(), IsError: true}, nil
	}
	return r, nil
}

func (s *Server) call(ctx context.Context, name string, args json.RawMessage) (ports.ToolResult, error) {
	switch name {
	case ReadFile:
		return s.readFile(args)
	case ListFiles:
		return s.listFiles(ctx, args)
	case GrepFiles:
		return s.grepFiles(ctx, args)
	case GitStatus, GitDiff, GitLog:
		return s.git(ctx, name, args)
	case Shell:
		return s.shell(ctx, args)
	case WebFetch:
		return s.webFetch(ctx, args)
	}
	p, err := s.plan(name, args)
	if err != nil {
		return ports.ToolResult{}, err
	}
	return s.apply(p)
}

// Preview plans a write tool's call without writing: the unified diff the
// permission prompt shows. ok is false for tools that write nothing. A
// call that would fail (missing text, refused path) previews as an error
// the prompt shows instead of a diff.
func (s *Server) Preview(_ context.Context, name string, args json.RawMessage) (ports.ToolPreview, bool, error) {
	if !IsWrite(name) || !slices.Contains(s.names, name) {
		return ports.ToolPreview{}, false, nil
	}
	if err := s.open(); err != nil {
		return ports.ToolPreview{}, false, err
	}
	p, err := s.plan(name, args)
	if err != nil {
		return ports.ToolPreview{Error: err.Error()}, true, nil
	}
	return ports.ToolPreview{Summary: p.summary(), Diff: p.diff(), Files: p.files()}, true, nil
}

// decode reads args into v; a bad shape is an error the model reads.
func decode(args json.RawMessage, v any) error {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return refuse("arguments do not fit the tool's schema: %v", err)
	}
	return nil
}
