package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/internal/procgroup"
)

// StopGrace is how long a stopping server gets after its stdin is closed,
// and again after SIGTERM, before the next, harder step. Most servers exit
// at once on EOF; one that keeps timers running (server-everything does)
// delays jp's exit by this much. Tests shorten it.
var StopGrace = time.Second

// IdleStopGrace replaces StopGrace for the wait after stdin is closed
// when no call is in flight: nothing can be lost by signalling such a
// server sooner, and one that ignores EOF (server-everything keeps timers
// running) then costs jp's exit this much instead of a whole StopGrace.
var IdleStopGrace = 100 * time.Millisecond

// StartTimeout bounds a server's start: spawning it and the MCP
// initialize handshake (npx may download the server first).
var StartTimeout = 2 * time.Minute

// stderrTail is how many of a server's last stderr lines an error quotes.
const stderrTail = 8

// process is one running server: a child in its own process group whose
// stdin and stdout carry MCP and whose stderr goes to the log.
type process struct {
	name   string
	cmd    *exec.Cmd
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	stderr *stderrLog

	exited  chan struct{} // closed once the child is reaped
	waitErr error         // the child's exit, set before exited is closed

	stopOnce sync.Once
}

// spawn starts server name's command in dir. The returned process owns a
// goroutine that reaps the child; stop ends both.
func spawn(name string, srv config.MCPServer, dir string, log *slog.Logger) (*process, error) {
	if len(srv.Command) == 0 || srv.Command[0] == "" {
		return nil, fmt.Errorf("MCP server %s has no command: set mcp.servers.%s.command to its program and arguments", name, name)
	}
	cmd := exec.Command(srv.Command[0], srv.Command[1:]...)
	cmd.Dir = dir
	cmd.Env = environ(dir, srv.Env)
	procgroup.Prepare(cmd)
	cmd.WaitDelay = time.Second
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start MCP server %s: %w", name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("start MCP server %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, stdin: inW, stdout: outR, stderr: &stderrLog{name: name, log: log}, exited: make(chan struct{})}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, syscall.ENOENT) {
			return nil, fmt.Errorf("MCP server %s: command %q not found (mcp.servers.%s.command): %v", name, srv.Command[0], name, err)
		}
		return nil, fmt.Errorf("start MCP server %s (mcp.servers.%s.command): %w", name, name, err)
	}
	closeAll(inR, outW)
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// environ is jp's environment, PWD set to dir, and the server's env table
// on top.
func environ(dir string, extra map[string]string) []string {
	env := append(os.Environ(), "PWD="+dir)
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// pid is the child's process ID (and its process group's).
func (p *process) pid() int { return p.cmd.Process.Pid }

// done reports whether the child has exited.
func (p *process) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// waitFor waits up to d for the child to exit.
func (p *process) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// stop ends the child as the MCP stdio transport asks: close its stdin,
// wait grace, SIGTERM its process group, wait StopGrace, SIGKILL.
// It returns once the child is reaped; it is idempotent.
func (p *process) stop(grace time.Duration) {
	p.stopOnce.Do(func() {
		_ = p.stdin.Close()
		if !p.waitFor(grace) {
			p.stderr.log.Debug("MCP server did not exit after its stdin closed; sending SIGTERM", "server", p.name, "pid", p.pid())
			_ = procgroup.Signal(p.pid(), syscall.SIGTERM)
			if !p.waitFor(StopGrace) {
				p.stderr.log.Warn("MCP server ignored SIGTERM; killing it", "server", p.name, "pid", p.pid())
				_ = procgroup.Signal(p.pid(), syscall.SIGKILL)
				<-p.exited
			}
		}
		_ = p.stdout.Close()
	})
}

// status describes how the child ended, with its last stderr lines.
func (p *process) status() string {
	s := "still running"
	if p.done() {
		s = "exited"
		if p.waitErr != nil {
			s = p.waitErr.Error()
		}
	}
	if tail := p.stderr.tail(); tail != "" {
		s += "; its last stderr lines: " + tail
	}
	return s
}

// stderrLog forwards a server's stderr to the log line by line, at debug
// level, and keeps the last lines for error messages.
type stderrLog struct {
	name string
	log  *slog.Logger

	mu      sync.Mutex
	partial []byte
	last    []string
}

func (s *stderrLog) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, b...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		s.line(string(s.partial[:i]))
		s.partial = s.partial[i+1:]
	}
	if len(s.partial) > 64<<10 { // a runaway line: log what we have
		s.line(string(s.partial))
		s.partial = nil
	}
	return len(b), nil
}

// line logs one line. Called with s.mu held.
func (s *stderrLog) line(l string) {
	l = strings.TrimRight(l, "\r")
	if strings.TrimSpace(l) == "" {
		return
	}
	s.log.Debug("MCP server stderr", "server", s.name, "line", l)
	s.last = append(s.last, l)
	if len(s.last) > stderrTail {
		s.last = s.last[len(s.last)-stderrTail:]
	}
}

// tail returns the last stderr lines, joined with " | ".
func (s *stderrLog) tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := s.last
	if len(s.partial) > 0 {
		lines = append(slices.Clone(lines), string(s.partial))
	}
	return strings.Join(lines, " | ")
}
