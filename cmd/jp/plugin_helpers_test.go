package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/cmd/jp-prune/prune"
	"github.com/jpcli/jp/domain/plugin"
)

// The test binary doubles as a Go plugin: a wrapper script on $PATH
// (JP_TEST_PLUGIN=NAME exec <this binary>) runs the plugin NAME instead
// of the tests. init runs before TestMain, so it also wins over
// JP_TEST_RUN_MAIN, which the plugin inherits from the jp that runs it.
const testPluginEnv = "JP_TEST_PLUGIN"

func init() {
	switch os.Getenv(testPluginEnv) {
	case "":
		return
	case "prune":
		m := plugin.Manifest{Name: "prune", Version: "0.1.0", Command: []string{"prune"}, ProtocolVersion: 2}
		os.Exit(pluginsdk.Run(context.Background(), os.Stdin, os.Stdout, os.Stderr, m, prune.Pruner{Now: time.Now}.Run))
	case "prompt":
		m := plugin.Manifest{Name: "tprompt", Version: "0.1.0", Command: []string{"tprompt"}, ProtocolVersion: 2}
		os.Exit(pluginsdk.Run(context.Background(), os.Stdin, os.Stdout, os.Stderr, m, promptPlugin))
	default:
		fmt.Fprintln(os.Stderr, "unknown test plugin")
		os.Exit(97)
	}
}

// pluginPromptResult is what the prompt plugin saw, one JSON line per prompt in
// $JP_TEST_RESULT.
type pluginPromptResult struct {
	Kind     string `json:"kind"`
	Outcome  string `json:"outcome,omitempty"`
	Value    any    `json:"value,omitempty"`
	Shutdown bool   `json:"shutdown,omitempty"`
}

// promptPlugin asks one question per argument (confirm, select, text,
// secret), records each outcome, and prints "done".
func promptPlugin(ctx context.Context, c *pluginsdk.Client) error {
	out, err := os.OpenFile(os.Getenv("JP_TEST_RESULT"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	record := func(r pluginPromptResult) {
		b, _ := json.Marshal(r)
		fmt.Fprintf(out, "%s\n", b)
	}
	for _, kind := range c.Args() {
		var r pluginsdk.PromptResult
		switch kind {
		case "confirm":
			r, err = c.Confirm(ctx, "Delete 14 stale entries?", false)
		case "select":
			r, err = c.Select(ctx, "Which branch?", "main", "develop", "release")
		case "text":
			r, err = c.Text(ctx, "Commit message")
		case "secret":
			r, err = c.Secret(ctx, "Registry token")
		}
		if errors.Is(err, pluginsdk.ErrShutdown) {
			record(pluginPromptResult{Kind: kind, Shutdown: true})
			<-c.ShutdownRequested()
			return pluginsdk.Exit(130, "")
		}
		if err != nil {
			return err
		}
		v := r.Value
		if kind == "secret" && r.Answered() {
			v = fmt.Sprintf("%d characters", len(r.Text())) // the value stays with the plugin
		}
		record(pluginPromptResult{Kind: kind, Outcome: r.Outcome.String(), Value: v})
		if kind == "secret" && r.Answered() {
			if err := os.WriteFile(os.Getenv("JP_TEST_RESULT")+".secret", []byte(r.Text()), 0o600); err != nil {
				return err
			}
		}
	}
	return c.Print("done\n")
}
