//go:build unix

package pluginproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/jpcli/jp/internal/procgroup"
	"github.com/jpcli/jp/ports"
)

// Spawner is the ports.PluginSpawner of real child processes.
type Spawner struct{}

var _ ports.PluginSpawner = Spawner{}

// maxStderrLine bounds one forwarded stderr line; the rest is dropped.
const maxStderrLine = 64 << 10

// Spawn starts spec's executable in its own process group, with pipes on
// stdin, stdout and stderr.
func (Spawner) Spawn(ctx context.Context, spec ports.PluginSpec) (ports.PluginTransport, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start plugin %s: %w", spec.Name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("start plugin %s: %w", spec.Name, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("start plugin %s: %w", spec.Name, err)
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	procgroup.Prepare(cmd)
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("start plugin %s (%s): %w", spec.Name, spec.Path, err)
	}
	closeAll(inR, outW, errW) // the child holds its ends now

	p := &child{cmd: cmd, pgid: cmd.Process.Pid, done: make(chan struct{}), stderr: errR}
	t := NewTransport(outR, inW)
	t.proc = p
	p.goroutines.Add(2)
	go p.wait()
	go p.forwardStderr(spec.Stderr)
	return t, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// child is a running plugin process and its process group.
type child struct {
	cmd    *exec.Cmd
	pgid   int
	stderr *os.File

	done       chan struct{}
	exit       ports.PluginExit
	waitErr    error
	goroutines sync.WaitGroup
}

// wait reaps the process, then kills what is left of its group.
func (c *child) wait() {
	defer c.goroutines.Done()
	err := c.cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		c.exit = ports.PluginExit{Code: 0}
	case errors.As(err, &ee):
		c.exit = ports.PluginExit{Code: ee.ExitCode()}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			c.exit = ports.PluginExit{Code: -1, Signal: ws.Signal().String()}
		}
	default:
		c.waitErr = err
	}
	_ = c.killGroup() // stragglers of the group
	close(c.done)
}

// forwardStderr hands each stderr line to fn until the pipe ends.
func (c *child) forwardStderr(fn func(string)) {
	defer c.goroutines.Done()
	br := bufio.NewReaderSize(c.stderr, 4<<10)
	for {
		line, err := readLine(br, nil, maxStderrLine)
		if errors.Is(err, ports.ErrLineTooLong) {
			line, err = []byte("(a stderr line over 64 KiB was dropped)"), nil
			skipLine(br)
		}
		if err != nil {
			return
		}
		if fn != nil {
			fn(string(line))
		}
	}
}

// skipLine discards the rest of the current line.
func skipLine(br *bufio.Reader) {
	for {
		_, err := br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// kill sends SIGKILL to the whole process group, unless the process has
// been reaped (then its group was killed already, and the ID may be
// reused).
func (c *child) kill() error {
	select {
	case <-c.done:
		return nil
	default:
	}
	return c.killGroup()
}

func (c *child) killGroup() error {
	if err := procgroup.Signal(c.pgid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill plugin: %w", err)
	}
	return nil
}

func (c *child) exited() <-chan struct{} { return c.done }

func (c *child) status() (ports.PluginExit, error) {
	<-c.done
	return c.exit, c.waitErr
}

// release closes the stderr pipe and waits for the reaper and the stderr
// forwarder. The process group has been killed before.
func (c *child) release() {
	_ = c.stderr.Close()
	c.goroutines.Wait()
}
