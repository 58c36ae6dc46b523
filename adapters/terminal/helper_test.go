package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/jpcli/jp/ports"
)

// The tmux tests re-run this test binary inside a tmux pane with helperEnv
// naming a scenario; TestMain then calls runHelper instead of the tests.
const (
	helperEnv = "JP_TERMINAL_TEST_SCENARIO"
	resultEnv = "JP_TERMINAL_TEST_RESULT"
	editorEnv = "JP_TERMINAL_TEST_EDITOR"
)

// helperResult is what a helper run reports back, through a file.
type helperResult struct {
	Bool bool   `json:"bool"`
	Text string `json:"text"`
	Err  string `json:"err"`
	// Stty is `stty -a` on the pane's terminal after the prompt returned.
	Stty string `json:"stty"`
}

var permissionOptions = []ports.Option{
	{Key: "y", Label: "run", Value: "y"},
	{Key: "Y", Label: "run, remember for this run", Value: "Y"},
	{Key: "n", Label: "skip", Value: "n"},
	{Key: "N", Label: "skip, remember for this run", Value: "N"},
}

// runHelper runs one prompt scenario on the process's terminal and writes
// a helperResult to the file named by resultEnv.
func runHelper(scenario string) int {
	p := NewPrompter(PrompterOptions{
		In: os.Stdin, Out: os.Stdout, Interactive: true,
		Editor: os.Getenv(editorEnv), TempDir: os.TempDir(),
	})
	ctx := context.Background()
	var (
		a   ports.Answer
		err error
	)
	switch scenario {
	case "confirm":
		a, err = p.Ask(ctx, ports.Question{Kind: ports.QuestionConfirm, Message: "Delete 14 stale entries?"})
	case "permission":
		a, err = p.Ask(ctx, ports.Question{Kind: ports.QuestionSelect, Message: "Run tool bash?", Options: permissionOptions, Topic: "tool_permission:bash"})
	case "write-permission":
		// A write tool's question for a file whose name holds a
		// right-to-left override: it reads "evilhs.png" when printed raw.
		a, err = p.Ask(ctx, ports.Question{Kind: ports.QuestionSelect, Options: permissionOptions, Topic: "tool_permission:fs_create_file",
			Message: "Run tool fs_create_file: create evil\u202egnp.sh (1 lines)?",
			Diff:    "--- /dev/null\n+++ b/evil\u202egnp.sh\n@@ -0,0 +1 @@\n+echo hi\u200b\n"})
	case "select":
		a, err = p.Ask(ctx, ports.Question{Kind: ports.QuestionSelect, Message: "Which branch?",
			Options: []ports.Option{{Value: "main"}, {Value: "develop"}, {Value: "release"}}})
	case "text":
		a, err = p.Ask(ctx, ports.Question{Kind: ports.QuestionText, Message: "Commit message"})
	case "secret":
		a, err = p.Ask(ctx, ports.Question{Kind: ports.QuestionSecret, Message: "Registry token"})
	case "compose":
		a.Text, err = p.Compose(ctx, ports.ComposeRequest{Purpose: "reply"})
	case "compose-seeded":
		a.Text, err = p.Compose(ctx, ports.ComposeRequest{Purpose: "queue_reply", Initial: "seeded text"})
	case "print":
		printDemo()
	default:
		err = fmt.Errorf("unknown scenario %q", scenario)
	}
	res := helperResult{Bool: a.Bool, Text: a.Text}
	switch {
	case err == nil:
	case errors.Is(err, ports.ErrCancelled):
		res.Err = "cancelled"
	case errors.Is(err, ports.ErrInterrupted):
		res.Err = "interrupted"
	case errors.Is(err, ports.ErrUnavailable):
		res.Err = "unavailable: " + err.Error()
	default:
		res.Err = "other: " + err.Error()
	}
	cmd := exec.Command("stty", "-a")
	cmd.Stdin = os.Stdin
	out, _ := cmd.CombinedOutput()
	res.Stty = string(out)
	b, _ := json.Marshal(res)
	path := os.Getenv(resultEnv)
	if werr := os.WriteFile(path+".tmp", b, 0o600); werr == nil {
		_ = os.Rename(path+".tmp", path)
	}
	fmt.Println("HELPER DONE")
	return 0
}

// printDemo streams a markdown answer word by word to the terminal.
func printDemo() {
	w, h, _ := term.GetSize(int(os.Stdout.Fd()))
	pr := NewPrinter(PrinterOptions{Stdout: os.Stdout, Stderr: os.Stderr, IsTTY: true, StderrIsTTY: true, Width: w, Height: h})
	stop := pr.Wait("waiting for the model")
	time.Sleep(300 * time.Millisecond)
	stop()
	doc := "# Plan\n\nFirst, **read** the `config` file and check every key. " +
		"This paragraph is long enough to wrap on a narrow terminal, which tests the erase logic.\n\n" +
		"- one\n- two\n\n```go\nfunc main() {\n\n\tfmt.Println(1)\n}\n```\n\nDone."
	for _, word := range strings.SplitAfter(doc, " ") {
		pr.Write(ports.ChannelContent, word)
		time.Sleep(5 * time.Millisecond)
	}
	pr.EndBlock(ports.ChannelContent)
	pr.Write(ports.ChannelChrome, "chrome line")
	pr.EndBlock(ports.ChannelChrome)
	_ = pr.Flush()
}
