package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/jpcli/jp/adapters/fsstore"
	"github.com/jpcli/jp/adapters/sysclock"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Init() // this binary is the sandbox helper of the jp it runs
	// Tests that need a real jp process re-execute this binary with
	// JP_TEST_RUN_MAIN=1 (see newJPEnv and newPluginSandbox).
	if os.Getenv("JP_TEST_RUN_MAIN") == "1" {
		main()
	}
	testscript.Main(sharedBinaryCleanup{m}, map[string]func(){"jp": main})
}

// sharedBinaryCleanup runs the package's tests, then removes the jp
// binary they shared (buildJPBinary).
type sharedBinaryCleanup struct{ m *testing.M }

func (c sharedBinaryCleanup) Run() int {
	raiseParallel()
	code := c.m.Run()
	if sharedJP.dir != "" {
		_ = os.RemoveAll(sharedJP.dir)
	}
	return code
}

// defaultParallel is how many of this package's parallel tests run at
// once when go test is not given -parallel. Go's default is GOMAXPROCS,
// two on a small machine, but these tests spend most of their time
// waiting: on a jp process, a tmux pane polled for a line, a demo model's
// pauses, a file that signals a kill point. Every test that can run beside
// the others calls t.Parallel (a tmux test through newTmuxWorld), and
// testscript runs each script in parallel.
const defaultParallel = 8

// parallelSetByFlag records that the command line gave -parallel.
var parallelSetByFlag bool

// raiseParallel sets -test.parallel to defaultParallel unless the command
// line set it (go test -parallel N) or GOMAXPROCS is larger already.
func raiseParallel() {
	if !flag.Parsed() {
		flag.Parse()
	}
	flag.Visit(func(f *flag.Flag) { parallelSetByFlag = parallelSetByFlag || f.Name == "test.parallel" })
	if !parallelSetByFlag && runtime.GOMAXPROCS(0) < defaultParallel {
		_ = flag.Set("test.parallel", strconv.Itoa(defaultParallel))
	}
}

// TestParallelDefaultRaised pins raiseParallel: unless the command line
// said otherwise, at least defaultParallel tests of this package run at
// once.
func TestParallelDefaultRaised(t *testing.T) {
	got := flag.Lookup("test.parallel").Value.(flag.Getter).Get().(int)
	if !parallelSetByFlag && got < defaultParallel {
		t.Fatalf("-test.parallel is %d with no -parallel given; want at least %d", got, defaultParallel)
	}
}

// TestScripts runs the end-to-end scenarios in testdata/script: each is a
// txtar archive run against the real jp binary in a fresh temp directory
// with its own XDG data and config directories.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			for _, kv := range isolatedEnv(filepath.Join(work, "home"), filepath.Join(work, "xdg", "data"), filepath.Join(work, "xdg", "config")) {
				k, v, _ := strings.Cut(kv, "=")
				env.Setenv(k, v)
			}
			env.Setenv("DATA", filepath.Join(work, "xdg", "data", "jp"))
			env.Setenv("NO_COLOR", "1")
			// The probe plugin of the scope scenarios, in $WORK/probe (a
			// scenario adds the manifest that gives it its scope).
			probe, err := os.ReadFile(filepath.Join("testdata", "plugins", "jp-probe"))
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(work, "probe"), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(work, "probe", "jp-probe"), probe, 0o755); err != nil {
				return err
			}
			return os.MkdirAll(filepath.Join(work, "home"), 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"cpid":        cmdCopyID,
			"silo":        cmdSilo,
			"unchanged":   cmdUnchanged,
			"lines":       cmdLines,
			"holdlock":    cmdHoldLock,
			"wsid":        cmdWorkspaceID,
			"lastconv":    cmdLastConversation,
			"rustws":      cmdRustWorkspace,
			"keptevents":  cmdKeptEvents,
			"mode":        cmdMode,
			"nocontrol":   cmdNoControl,
			"hostile":     cmdHostile,
			"errserver":   cmdErrServer,
			"mcphttp":     cmdMCPHTTP,
			"oauthmcp":    cmdOAuthMCP,
			"httpserve":   cmdHTTPServe,
			"ghserve":     cmdGHServe,
			"deadport":    cmdDeadPort,
			"queryevents": cmdQueryEvents,
			"recorder":    cmdRecorder,
			"replayerr":   cmdReplayErr,
		},
	})
}

// isolatedEnv is the environment that keeps a jp process started by a
// test to its own home, XDG data and config directories, with no
// provider API keys. Generated titles are off (conversation.title.model =
// "none"): the demo model's titles would change every listing a scenario
// checks; the scenarios about titles (titles.txtar) turn them back on.
func isolatedEnv(home, data, config string) []string {
	return []string{"HOME=" + home, "XDG_DATA_HOME=" + data, "XDG_CONFIG_HOME=" + config, "JP_CFG_CONVERSATION__TITLE__MODEL=none",
		"ANTHROPIC_API_KEY=", "OPENAI_API_KEY=", "GEMINI_API_KEY=", "GOOGLE_API_KEY=", "OPENROUTER_API_KEY=",
		"CEREBRAS_API_KEY=", "DEEPSEEK_API_KEY=", "OLLAMA_API_KEY="}
}

// goBuild compiles the package pkg (a path relative to cmd/jp) into out
// and returns out.
func goBuild(t testing.TB, out, pkg string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build %s: %v", pkg, err)
	}
	if b, err := exec.Command(gobin, "build", "-o", out, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// sharedJP is the jp binary built once per package run: linking it takes
// seconds (minutes on a busy machine), and every test that runs the real
// binary runs the same one. It is removed when the tests end.
var sharedJP struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// buildJPBinary returns the real jp binary, built once per package run
// and shared by every test (dir is not used: tests put their own files in
// their own directories, never beside the binary).
func buildJPBinary(t testing.TB, dir string) string {
	t.Helper()
	sharedJP.once.Do(func() {
		if sharedJP.dir, sharedJP.err = os.MkdirTemp("", "jp-test-bin-"); sharedJP.err != nil {
			return
		}
		out := filepath.Join(sharedJP.dir, "jp")
		if b, err := exec.Command("go", "build", "-o", out, ".").CombinedOutput(); err != nil {
			sharedJP.err = fmt.Errorf("go build .: %v\n%s", err, b)
			return
		}
		sharedJP.path = out
	})
	if sharedJP.err != nil {
		t.Fatal(sharedJP.err)
	}
	return sharedJP.path
}

// cpid SRC DST copies SRC/.jp/.id to DST/.jp/.id, making DST a second
// checkout of the same workspace (as a git worktree would be).
func cmdCopyID(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cpid SRC DST")
	}
	b, err := os.ReadFile(ts.MkAbs(filepath.Join(args[0], ".jp", ".id")))
	ts.Check(err)
	ts.Check(os.MkdirAll(ts.MkAbs(filepath.Join(args[1], ".jp")), 0o755))
	ts.Check(os.WriteFile(ts.MkAbs(filepath.Join(args[1], ".jp", ".id")), b, 0o644))
}

// silo VAR DIR sets VAR to the user-local silo directory of DIR's workspace.
func cmdSilo(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: silo VAR DIR")
	}
	id := checkoutID(ts, args[1])
	matches, _ := filepath.Glob(filepath.Join(ts.Getenv("DATA"), "workspace", "*-"+id))
	if len(matches) != 1 {
		ts.Fatalf("expected one silo for %s, found %v", id, matches)
	}
	ts.Setenv(args[0], matches[0])
}

// unchanged FILE SNAPSHOT fails unless FILE is byte for byte SNAPSHOT.
func cmdUnchanged(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: unchanged FILE SNAPSHOT")
	}
	a, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	if bytes.Equal(a, b) == neg {
		ts.Fatalf("%s changed: %d bytes now, %d before", args[0], len(a), len(b))
	}
}

// lines N FILE fails unless FILE (stdout or stderr for the last command)
// has exactly N lines: an error must be one line.
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: lines N stdout|stderr")
	}
	text := ts.ReadFile(args[1])
	n := strings.Count(text, "\n")
	if fmt.Sprint(n) != args[0] {
		ts.Fatalf("%s has %d lines, want %s:\n%s", args[1], n, args[0], text)
	}
}

// holdlock DIR ID|@FILE takes conversation ID's lock in DIR's workspace, as
// another jp process would, and holds it until the script ends.
func cmdHoldLock(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: holdlock DIR ID")
	}
	st, err := fsstore.New(ts.Getenv("DATA"), sysclock.New())
	ts.Check(err)
	f, err := st.Find(context.Background(), ts.MkAbs(args[0]))
	ts.Check(err)
	id := args[1]
	if strings.HasPrefix(id, "@") {
		id = strings.TrimSpace(ts.ReadFile(id[1:]))
	}
	release, err := st.Lock(context.Background(), workspace.Location{ID: f.ID, Root: f.Root}, conversation.ID(id), 0)
	ts.Check(err)
	ts.Defer(func() { _ = release() })
}

// wsid VAR DIR sets VAR to the workspace ID of the checkout DIR.
func cmdWorkspaceID(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: wsid VAR DIR")
	}
	ts.Setenv(args[0], checkoutID(ts, args[1]))
}

// checkoutID is the workspace ID in DIR/.jp/.id.
func checkoutID(ts *testscript.TestScript, dir string) string {
	id, _, err := workspace.ParseIDFile(ts.ReadFile(filepath.Join(dir, ".jp", ".id")))
	ts.Check(err)
	return string(id)
}

// lastconv VAR DIR sets VAR to the ID of the most recently active
// conversation of DIR's workspace.
func cmdLastConversation(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: lastconv VAR DIR")
	}
	st, err := fsstore.New(ts.Getenv("DATA"), sysclock.New())
	ts.Check(err)
	f, err := st.Find(context.Background(), ts.MkAbs(args[1]))
	ts.Check(err)
	list, err := st.List(context.Background(), workspace.Location{ID: f.ID, Root: f.Root})
	ts.Check(err)
	if len(list) == 0 {
		ts.Fatalf("no conversation in %s", args[1])
	}
	best := list[0]
	for _, c := range list[1:] {
		if c.Metadata.LastActivatedAt.After(best.Metadata.LastActivatedAt) {
			best = c
		}
	}
	ts.Setenv(args[0], string(best.ID))
}
