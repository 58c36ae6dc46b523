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

// TestTmpOnSIGTERM: jp q --tmp killed with SIGTERM while the answer
// streams keeps its conversation, as the active one (a --tmp conversation
// lives while it is active, as in the Rust jp), and releases its lock: the
// next jp q that makes another conversation active removes it, which it
// would skip were the lock still held.
func TestTmpOnSIGTERM(t *testing.T) {
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
	convs := func() []string {
		entries, err := os.ReadDir(filepath.Join(silos[0], "conversations"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, en := range entries {
			names = append(names, en.Name())
		}
		return names
	}
	tmp := convs()
	if len(tmp) != 1 {
		t.Fatalf("after SIGTERM: conversations %v, want the temporary one", tmp)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.dir, ".jp", "conversations")); len(entries) > 0 {
		t.Errorf("projected: %v", entries)
	}
	e.run("q", "-n", "--cfg", `providers.demo.script=""`, "another")
	if got := convs(); len(got) != 1 || got[0] == tmp[0] {
		t.Errorf("after another became active: conversations %v, want the temporary %s gone", got, tmp[0])
	}
}
