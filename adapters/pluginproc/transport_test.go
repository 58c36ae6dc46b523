package pluginproc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jpcli/jp/ports"
)

func specFor(exe, name string, stderr func(string)) ports.PluginSpec {
	return ports.PluginSpec{Name: name, Path: exe, Dir: os.TempDir(), Env: append(os.Environ(), helperEnv+"="+name, "GORACE=atexit_sleep_ms=0"), Stderr: stderr}
}

func TestReadLine(t *testing.T) {
	for _, tt := range []struct {
		name  string
		in    string
		max   int
		lines []string
		err   error
	}{
		{"lines", "a\nbb\n", 10, []string{"a", "bb"}, io.EOF},
		{"last line without newline", "a\nbb", 10, []string{"a", "bb"}, io.EOF},
		{"exactly the limit", "abcd\n", 4, []string{"abcd"}, io.EOF},
		{"over the limit", "abcde\n", 4, nil, ports.ErrLineTooLong},
		{"over the limit at EOF", "abcde", 4, nil, ports.ErrLineTooLong},
		{"longer than the buffer", strings.Repeat("z", 40) + "\nq\n", 100, []string{strings.Repeat("z", 40), "q"}, io.EOF},
		{"empty lines kept", "\n\n", 4, []string{"", ""}, io.EOF},
	} {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			var got []string
			var err error
			for {
				var line []byte
				if line, err = readLine(br, nil, tt.max); err != nil {
					break
				}
				got = append(got, string(line))
			}
			if !errors.Is(err, tt.err) || strings.Join(got, "|") != strings.Join(tt.lines, "|") {
				t.Fatalf("got %q, %v; want %q, %v", got, err, tt.lines, tt.err)
			}
		})
	}
}

func TestSpawnEchoesLinesAndForwardsStderr(t *testing.T) {
	var mu sync.Mutex
	var stderr []string
	gotStderr := make(chan struct{})
	tr := spawn(t, "echo", func(l string) {
		mu.Lock()
		defer mu.Unlock()
		stderr = append(stderr, l)
		if len(stderr) == 1 {
			close(gotStderr)
		}
	})
	ctx := t.Context()
	for i := range 100 {
		msg := `{"type":"print","text":"` + strconv.Itoa(i) + `"}`
		if err := tr.Send(ctx, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		line, err := tr.Recv(ctx)
		if err != nil || string(line) != msg {
			t.Fatalf("Recv = %q, %v; want %q", line, err, msg)
		}
	}
	<-gotStderr
	if err := tr.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Recv(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("after the plugin exits Recv = %v, want EOF", err)
	}
	st, err := tr.Wait(ctx)
	if err != nil || st.Code != 0 || st.String() != "exit status 0" {
		t.Fatalf("Wait = %v, %v", st, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stderr) != 1 || stderr[0] != "hello from stderr" {
		t.Fatalf("stderr = %q", stderr)
	}
}

func TestOwnProcessGroupKilledWhole(t *testing.T) {
	tr := spawn(t, "pgid", nil)
	line, err := tr.Recv(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(line))
	pgid, _ := strconv.Atoi(f[0])
	grandchild, _ := strconv.Atoi(f[1])
	if pgid == syscall.Getpgrp() {
		t.Fatalf("the plugin shares jp's process group %d: Ctrl-C would reach it", pgid)
	}
	if err := tr.Kill(); err != nil {
		t.Fatal(err)
	}
	st, err := tr.Wait(t.Context())
	if err != nil || st.Signal != "killed" {
		t.Fatalf("Wait = %+v, %v", st, err)
	}
	// The grandchild was in the group: it dies too (it is reaped by
	// whoever adopted it, so poll until it is a zombie or gone).
	deadline := time.Now().Add(30 * time.Second) // a hang guard, not a speed check
	for alive(grandchild) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d outlived the plugin", grandchild)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// alive reports whether pid runs (exists and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

func TestLineTooLong(t *testing.T) {
	old := maxLine
	maxLine = 50
	t.Cleanup(func() { maxLine = old })
	tr := spawn(t, "long", nil)
	if _, err := tr.Recv(t.Context()); !errors.Is(err, ports.ErrLineTooLong) {
		t.Fatalf("Recv = %v, want ErrLineTooLong", err)
	}
	if _, err := tr.Recv(t.Context()); !errors.Is(err, ports.ErrLineTooLong) {
		t.Fatalf("the error must stick, got %v", err)
	}
}

func TestSendHonoursContextOnAFullPipe(t *testing.T) {
	tr := spawn(t, "drainonusr1", nil)
	line, err := tr.Recv(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(line))
	if err != nil {
		t.Fatalf("helper pid %q: %v", line, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- tr.Send(ctx, make([]byte, 4<<20)) }() // far more than a pipe holds
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Send = %v, want context.Canceled", err)
	}
	// The cancelled Send may have filled the pipe before it gave up; the
	// plugin now drains it. The writer is usable again: its deadline was
	// cleared, so this Send waits for room instead of failing at once.
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if err := tr.Send(t.Context(), []byte("{}")); err != nil {
		t.Fatalf("Send after a cancelled one: %v", err)
	}
}

func TestKillUnblocksSend(t *testing.T) {
	tr := spawn(t, "noread", nil)
	if _, err := tr.Recv(t.Context()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- tr.Send(context.Background(), make([]byte, 4<<20)) }()
	_ = tr.Kill()
	if err := <-done; err == nil {
		t.Fatal("Send to a killed plugin must fail")
	}
}

func TestExitStatusAndLastLine(t *testing.T) {
	tr := spawn(t, "exit3", nil)
	if st, err := tr.Wait(t.Context()); err != nil || st.Code != 3 {
		t.Fatalf("Wait = %+v, %v", st, err)
	}
	tr = spawn(t, "nonewline", nil)
	line, err := tr.Recv(t.Context())
	if err != nil || string(line) != `{"type":"exit","code":0}` {
		t.Fatalf("Recv = %q, %v", line, err)
	}
}

func TestRecvHonoursContext(t *testing.T) {
	tr := spawn(t, "noread", nil)
	if _, err := tr.Recv(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := tr.Recv(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Recv = %v", err)
	}
}

func TestSpawnMissingBinary(t *testing.T) {
	_, err := Spawner{}.Spawn(t.Context(), ports.PluginSpec{Name: "x", Path: "/nonexistent/jp-x"})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/jp-x") {
		t.Fatalf("Spawn = %v", err)
	}
}

func TestCancelledRecvKeepsHalfALine(t *testing.T) {
	tr := spawn(t, "halfline", nil)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := tr.Recv(ctx)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Recv = %v", err)
	}
	if err := tr.Send(t.Context(), []byte("go on")); err != nil {
		t.Fatal(err)
	}
	line, err := tr.Recv(t.Context())
	if err != nil || string(line) != `{"type":"x"}` {
		t.Fatalf("Recv = %q, %v", line, err)
	}
}
