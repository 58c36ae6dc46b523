// Command rsswrap runs a command and writes its peak resident memory in
// KiB to the file named by RSSWRAP_OUT. The scale benchmarks run jp
// through it: a child's ru_maxrss counts the memory of the process that
// started it (the kernel records it at exec), and the benchmark process,
// which generated a long conversation, is large; this one is small.
//
// After the peak, on the same line, come the largest anonymous and
// file-backed resident memory seen while the command ran (KiB, sampled
// every millisecond from /proc/PID/status; 0 where there is no /proc).
// The file-backed part is mostly the command's own executable pages,
// mapped from the page cache: it depends on how much of the binary the
// kernel maps around each page the program touches, not on its input.
//
// Then come the command's wall time in microseconds, measured here from
// its start to its end (so without this wrapper's own start), its minor
// page faults and its CPU time (user + system) in microseconds: on a
// shared, loaded machine the wall time measures the other processes too.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "rsswrap:", err)
		os.Exit(1)
	}
	done := make(chan struct{})
	peaks := make(chan [2]int64, 1)
	go func() { peaks <- sample(cmd.Process.Pid, done) }()
	err := cmd.Wait()
	wall := time.Since(start)
	close(done)
	peak := <-peaks
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && os.Getenv("RSSWRAP_OUT") != "" {
		_ = os.WriteFile(os.Getenv("RSSWRAP_OUT"), fmt.Appendf(nil, "%d %d %d %d %d %d\n", ru.Maxrss, peak[0], peak[1], wall.Microseconds(), ru.Minflt,
			(ru.Utime.Nano()+ru.Stime.Nano())/1000), 0o644)
	}
	if err != nil {
		os.Exit(cmd.ProcessState.ExitCode())
	}
}

// sample returns the largest RssAnon and RssFile of pid, read every
// millisecond until done is closed.
func sample(pid int, done <-chan struct{}) (peak [2]int64) {
	path := fmt.Sprintf("/proc/%d/status", pid)
	fields := map[string]int{"RssAnon": 0, "RssFile": 1}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if f, err := os.Open(path); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				k, v, _ := strings.Cut(sc.Text(), ":")
				if n, ok := fields[k]; ok {
					kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
					peak[n] = max(peak[n], kib)
				}
			}
			_ = f.Close()
		}
		select {
		case <-done:
			return peak
		case <-tick.C:
		}
	}
}
