//go:build unix

package builtintools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jpcli/jp/ports"
)

// TestSpecialFilesRefused: a named pipe in the checkout is refused at
// once, in one line, by every file tool that reads; open on it would
// block until a writer came.
func TestSpecialFilesRefused(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{"a.txt": "one\n"})
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	s := server(t, dir, nil)
	for _, tc := range []struct {
		tool string
		args any
		want string
	}{
		{ReadFile, map[string]any{"path": "pipe"}, "fs_read_file: pipe is a named pipe, not a regular file"},
		{ModifyFile, map[string]any{"patterns": []map[string]any{{"old": "x", "new": "y", "paths": []string{"pipe"}}}}, "fs_modify_file: pipe is a named pipe, not a regular file"},
		{DeleteFile, map[string]any{"path": "pipe"}, "fs_delete_file: pipe is a named pipe, not a regular file"},
		{MoveFile, map[string]any{"path": "pipe", "new_path": "b"}, "fs_move_file: pipe is a named pipe, not a regular file"},
		{GrepFiles, map[string]any{"pattern": "one"}, "a.txt:1:one"},
	} {
		b, err := json.Marshal(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan ports.ToolResult, 1)
		go func() {
			r, err := s.Call(context.Background(), tc.tool, b)
			if err != nil {
				r = ports.ToolResult{Content: "server error: " + err.Error()}
			}
			done <- r
		}()
		select {
		case r := <-done:
			if r.IsError != (tc.tool != GrepFiles) || !strings.Contains(r.Content, tc.want) {
				t.Errorf("%s: IsError = %v, content %q; want %q", tc.tool, r.IsError, r.Content, tc.want)
			}
		case <-time.After(20 * time.Second):
			// Release the blocked open with a writer, then fail.
			if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				_ = w.Close()
			}
			<-done
			t.Fatalf("%s on a named pipe did not return", tc.tool)
		}
	}
}
