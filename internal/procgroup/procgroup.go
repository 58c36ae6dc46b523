// Package procgroup starts child processes in a process group of their
// own and stops the whole group: a terminal's Ctrl-C reaches jp, not its
// children, and jp ends each child together with whatever it started.
// Every child jp runs (plugins, MCP servers, command tools, the built-in
// shell and git tools) goes through it.
package procgroup

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// Prepare makes cmd start as the leader of a new process group, keeping
// any other process attributes already set.
func Prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Signal sends sig to the process group led by pid. A group that is gone
// already is not an error.
func Signal(pid int, sig syscall.Signal) error {
	if pid <= 0 {
		return fmt.Errorf("procgroup: no process group for pid %d", pid)
	}
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal process group %d: %w", pid, err)
	}
	return nil
}

// terminate asks the group led by pid to stop (SIGTERM) and kills it
// (SIGKILL) when exited is not closed within grace. It returns once
// exited is closed.
func terminate(pid int, exited <-chan struct{}, grace time.Duration) {
	_ = Signal(pid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
		_ = Signal(pid, syscall.SIGKILL)
		<-exited
	}
}

// Run starts cmd in its own process group and waits for it. When ctx
// ends first, the group is terminated (SIGTERM, then SIGKILL after grace) and Run
// returns once the child is reaped. The error is cmd.Wait's, or Start's.
func Run(ctx context.Context, cmd *exec.Cmd, grace time.Duration) error {
	Prepare(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	var err error
	go func() {
		err = cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-ctx.Done():
		terminate(cmd.Process.Pid, exited, grace)
	}
	return err
}
