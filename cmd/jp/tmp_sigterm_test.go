package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTmpRemovedOnSIGTERM: jp q --tmp killed with SIGTERM while the answer
// streams still removes its conversation (the graceful shutdown runs the
// cleanup), and leaves no lock file.
func TestTmpRemovedOnSIGTERM(t *testing.T) {
	t.Parallel()
	e := newJPEnv(t)
	e.run("init")
	e.write("slow.json", `{"responses": [{"events": [{"text": "word "}, {"text": "more ", "repeat": 400, "sleep_ms": 20}]}]}`)
	cmd := e.command(context.Background(), "q", "--tmp", "--format", "json", "--cfg", "providers.demo.script=slow.json", "long answer")
	out, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() { // readiness: the demo model's chrome line, as the stream starts
		if strings.Contains(sc.Text(), "playing response 1") {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
	}
	if err := cmd.Wait(); err == nil {
		t.Error("jp q --tmp ended with status 0 after SIGTERM in the middle of its answer: the signal came too late to test anything")
	}
	silos, err := filepath.Glob(filepath.Join(e.data, "jp", "workspace", "proj-*"))
	if err != nil || len(silos) != 1 {
		t.Fatalf("silos %v, %v", silos, err)
	}
	for _, sub := range []string{"conversations", "locks"} {
		entries, err := os.ReadDir(filepath.Join(silos[0], sub))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, en := range entries {
			t.Errorf("left behind after SIGTERM: %s/%s", sub, en.Name())
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(e.dir, ".jp", "conversations")); len(entries) > 0 {
		t.Errorf("projected: %v", entries)
	}
}
