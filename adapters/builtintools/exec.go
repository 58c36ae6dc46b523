package builtintools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/jpcli/jp/internal/procgroup"
	"github.com/jpcli/jp/internal/safegit"
	"github.com/jpcli/jp/internal/sandbox"
	"github.com/jpcli/jp/ports"
)

// Limits of the git tools and shell.
const (
	maxExecOutput      = 64 << 10
	defaultShellTimout = 120 * time.Second
	gitTimeout         = 60 * time.Second
	defaultLogCount    = 20
)

// killGrace is how long a cancelled command gets between SIGTERM and
// SIGKILL.
var killGrace = 2 * time.Second

func (s *Server) git(ctx context.Context, name string, args json.RawMessage) (ports.ToolResult, error) {
	var a struct {
		Paths    []string `json:"paths"`
		Staged   bool     `json:"staged"`
		MaxCount int      `json:"max_count"`
	}
	if err := decode(args, &a); err != nil {
		return ports.ToolResult{}, err
	}
	sub := []string{"-c", "core.quotepath=off", "-c", "color.ui=false"}
	switch name {
	case GitStatus:
		sub = append(sub, "status", "--short", "--branch", "--ignore-submodules=dirty")
	case GitDiff:
		sub = append(sub, "diff", "--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty")
		if a.Staged {
			sub = append(sub, "--cached")
		}
	case GitLog:
		n := a.MaxCount
		if n <= 0 {
			n = defaultLogCount
		}
		sub = append(sub, "log", "--no-show-signature", "--no-ext-diff", "--no-textconv", fmt.Sprintf("--max-count=%d", min(n, 500)), "--date=short", "--format=%h %ad %an%n    %s")
	}
	if len(a.Paths) > 0 {
		sub = append(sub, "--")
		for _, p := range a.Paths {
			rel, err := s.readable(name, p)
			if err != nil {
				return ports.ToolResult{}, err
			}
			sub = append(sub, rel)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	drivers, err := s.gitFilterDrivers(ctx)
	if err != nil {
		return ports.ToolResult{}, err
	}
	argv, err := safegit.Argv(drivers, sub...)
	if err != nil {
		return ports.ToolResult{}, refuse("%s refused: %v", name, err)
	}
	out, code, err := s.run(ctx, argv, safegit.Env(os.Environ()))
	if err != nil {
		return ports.ToolResult{}, err
	}
	if code != 0 {
		return ports.ToolResult{}, refuse("%s failed (exit status %d): %s", strings.ReplaceAll(name, "_", " "), code, strings.TrimSpace(out))
	}
	if strings.TrimSpace(out) == "" {
		switch name {
		case GitDiff:
			out = "No changes.\n"
		case GitLog:
			out = "No commits.\n"
		}
	}
	return ports.ToolResult{Content: out}, nil
}

func (s *Server) shell(ctx context.Context, args json.RawMessage) (ports.ToolResult, error) {
	var a struct {
		Command     string `json:"command"`
		TimeoutSecs int    `json:"timeout_secs"`
	}
	if err := decode(args, &a); err != nil {
		return ports.ToolResult{}, err
	}
	if strings.TrimSpace(a.Command) == "" {
		return ports.ToolResult{}, refuse("command is required: the command line to run")
	}
	limit := defaultShellTimout
	if t := s.cfg[Shell].TimeoutSecs; t > 0 {
		limit = time.Duration(t) * time.Second
	}
	if a.TimeoutSecs > 0 && time.Duration(a.TimeoutSecs)*time.Second < limit {
		limit = time.Duration(a.TimeoutSecs) * time.Second
	}
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	sb, err := sandbox.Prepare(s.sandbox, []string{"/bin/sh", "-c", a.Command})
	if err != nil {
		return ports.ToolResult{}, refuse("%v", err)
	}
	defer sb.Cleanup()
	out, code, err := s.run(tctx, sb.Argv, sb.Env)
	if err != nil {
		return ports.ToolResult{}, err
	}
	if sb.Unavailable != "" {
		out += fmt.Sprintf("\n[jp: this command ran without a sandbox: %s]\n", sb.Unavailable)
	}
	if ctx.Err() == nil && tctx.Err() != nil {
		return ports.ToolResult{Content: out + fmt.Sprintf("\n[stopped after %s: the command did not finish in time]\n", limit), IsError: true}, nil
	}
	if code != 0 {
		out += fmt.Sprintf("\n[exit status %d]\n", code)
		if sb.Sandboxed {
			if note := sb.Policy.Note(out); note != "" {
				out += note + "\n"
			}
		}
		return ports.ToolResult{Content: out, IsError: true}, nil
	}
	return ports.ToolResult{Content: out}, nil
}

// gitFilterDrivers lists the filter drivers the checkout's git
// configuration defines, for safegit.Argv to turn off. Only git's
// standard output is read (a warning on stderr cannot hide a driver); a
// failure (no repository) lists none, and the command itself then says
// what is wrong.
func (s *Server) gitFilterDrivers(ctx context.Context) ([]string, error) {
	argv := safegit.DriversArgv()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.dir
	cmd.Env = safegit.Env(os.Environ())
	out := &procgroup.Capped{Max: 1 << 20}
	cmd.Stdout = out
	err := procgroup.Run(ctx, cmd, killGrace)
	if cmd.Process == nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, refuse("git is not installed or not on PATH")
		}
		return nil, refuse("start git: %v", err)
	}
	if out.Truncated() {
		return nil, refuse("refused: the checkout's git configuration defines more filter drivers than jp can turn off")
	}
	if err != nil {
		return nil, nil
	}
	return safegit.Drivers([]byte(out.String())), nil
}

// run runs argv in the checkout with environment env and stdout and
// stderr together, capped. A cancelled ctx stops the process group
// (SIGTERM, then SIGKILL).
func (s *Server) run(ctx context.Context, argv []string, env []string) (string, int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.dir
	cmd.Env = env
	out := &procgroup.Capped{Max: maxExecOutput}
	cmd.Stdout, cmd.Stderr = out, out
	err := procgroup.Run(ctx, cmd, killGrace)
	if cmd.Process == nil { // it did not start
		if errors.Is(err, exec.ErrNotFound) {
			return "", 0, refuse("%s is not installed or not on PATH", argv[0])
		}
		return "", 0, refuse("start %s: %v", argv[0], err)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return out.String(), 0, refuse("%s: %v", argv[0], err)
	}
	code := 0
	if ee != nil {
		code = ee.ExitCode()
	}
	return out.String(), code, nil
}
