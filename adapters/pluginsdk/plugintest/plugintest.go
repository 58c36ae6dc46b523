// Package plugintest plays jp's side of the plugin protocol, to test a
// plugin written with pluginsdk in process: the plugin's run function
// runs on pipes, and the test sends jp's lines and reads the plugin's.
//
//	f := plugintest.Start(t, manifest, initLine, run)
//	f.Send(`{"type":"shutdown"}`)
//	exit, code := f.Exit()
package plugintest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/domain/plugin"
)

// FakeJP is jp's side of the pipes, driven by a test.
type FakeJP struct {
	t    testing.TB
	w    *io.PipeWriter
	r    *bufio.Reader
	code chan int
}

// Start runs fn as the plugin m, on its own goroutine, against a fake jp
// that sends first (an init or describe line). The pipes are closed when
// the test ends.
func Start(t testing.TB, m plugin.Manifest, first string, fn pluginsdk.RunFunc) *FakeJP {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f := &FakeJP{t: t, w: inW, r: bufio.NewReader(outR), code: make(chan int, 1)}
	go func() {
		code := pluginsdk.Run(context.Background(), inR, outW, io.Discard, m, fn)
		_ = outW.Close()
		f.code <- code
	}()
	f.Send(first)
	t.Cleanup(func() { _ = inW.Close(); _ = outR.Close() })
	return f
}

// Send writes one line from jp to the plugin.
func (f *FakeJP) Send(line string) {
	f.t.Helper()
	if _, err := io.WriteString(f.w, line+"\n"); err != nil {
		f.t.Fatal(err)
	}
}

// Recv reads one message from the plugin.
func (f *FakeJP) Recv() map[string]any {
	f.t.Helper()
	line, err := f.r.ReadString('\n')
	if err != nil {
		f.t.Fatalf("read from the plugin: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		f.t.Fatalf("plugin sent %q: %v", line, err)
	}
	return m
}

// End closes jp's side (after the plugin's exit) and returns the status
// the plugin's process would exit with.
func (f *FakeJP) End() int {
	_ = f.w.Close()
	go func() { _, _ = io.Copy(io.Discard, f.r) }() // what the plugin still sends
	return <-f.code
}

// Exit reads messages up to the plugin's exit and returns it, then ends
// the run like End.
func (f *FakeJP) Exit() (map[string]any, int) {
	f.t.Helper()
	for {
		if m := f.Recv(); m["type"] == "exit" {
			return m, f.End()
		}
	}
}
