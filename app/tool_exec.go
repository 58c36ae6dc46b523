package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/run"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/ports"
)

// permissionOptions is the tool permission prompt as prompter options.
var permissionOptions = func() []ports.Option {
	out := make([]ports.Option, len(run.PermissionOptions))
	for i, o := range run.PermissionOptions {
		out[i] = ports.Option{Key: o.Key, Label: o.Label, Value: o.Key}
	}
	return out
}()

// execute decides each call's permission (asking one question at a time),
// then runs the approved calls concurrently. Every call gets exactly one
// result. stopped is true when the user interrupted (Ctrl-C in a prompt,
// or the run's context ended): the results then hold cancellations.
func (q *Query) execute(ctx context.Context, rs *runState, ts *turnState, calls []llm.ToolCall) (results []turn.ToolResult, stopped bool) {
	results = make([]turn.ToolResult, len(calls))
	approved := make([]bool, len(calls))
	for i, c := range calls {
		tc := rs.cfg.Tool(c.Name)
		results[i] = turn.ToolResult{CallID: c.ID, Content: tc.CancellationResponse, IsError: true}
		if stopped {
			continue
		}
		switch rs.approvals.Decide(c.Name, tc.Run) {
		case run.DecisionRun:
			approved[i] = true
		case run.DecisionDeny:
			results[i].Content = fmt.Sprintf("The tool %s is not allowed here (conversation.tools.%s.run = \"deny\").", c.Name, c.Name)
		case run.DecisionSkip:
			// remembered "skip" for this run: the cancellation response stands.
		case run.DecisionAsk:
			ok, interrupted, msg := q.askPermission(ctx, rs, c)
			approved[i] = ok
			if msg != "" {
				results[i].Content = msg
			}
			stopped = interrupted
		}
	}
	if stopped || ctx.Err() != nil {
		return results, true
	}

	var wg sync.WaitGroup
	for i, c := range calls {
		if !approved[i] {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			stop := q.printer.Wait("running " + c.Name)
			r, err := ts.tools.Call(ctx, c.Name, c.Arguments)
			stop()
			switch {
			case ctx.Err() != nil:
				results[i] = turn.ToolResult{CallID: c.ID, Content: rs.cfg.Tool(c.Name).CancellationResponse, IsError: true}
			case err != nil:
				results[i] = turn.ToolResult{CallID: c.ID, Content: "the tool failed: " + err.Error(), IsError: true}
			default:
				results[i] = turn.ToolResult{CallID: c.ID, Content: r.Content, IsError: r.IsError}
			}
		}()
	}
	wg.Wait()
	for i, c := range calls {
		q.printResult(c, results[i])
	}
	return results, ctx.Err() != nil
}

// askPermission shows the permission prompt for one call.
func (q *Query) askPermission(ctx context.Context, rs *runState, c llm.ToolCall) (ok, interrupted bool, msg string) {
	if !q.prompter.Interactive() {
		return false, false, fmt.Sprintf("The tool %s needs the user's permission, but there is no terminal to ask on. "+
			"The user can allow it with conversation.tools.%s.run = \"unattended\" or answer from a --headless script.", c.Name, c.Name)
	}
	ans, err := q.prompter.Ask(ctx, ports.Question{
		Kind:    ports.QuestionSelect,
		Message: fmt.Sprintf("Run tool %s %s?", c.Name, compact(c.Arguments)),
		Options: permissionOptions,
		Topic:   "tool_permission:" + c.Name,
	})
	switch {
	case errors.Is(err, ports.ErrInterrupted):
		return false, true, ""
	case errors.Is(err, ports.ErrCancelled):
		return false, false, ""
	case err != nil:
		q.printer.Write(ports.ChannelError, err.Error())
		q.printer.EndBlock(ports.ChannelError)
		return false, false, ""
	}
	d, lvl, perr := run.ParsePermission(ans.Text)
	if perr != nil {
		return false, false, ""
	}
	rs.approvals.Record(c.Name, d, lvl)
	return d == run.DecisionRun, false, ""
}

func (q *Query) printResult(c llm.ToolCall, r turn.ToolResult) {
	text := r.Content
	const maxLines = 12
	if lines := strings.Split(strings.TrimRight(text, "\n"), "\n"); len(lines) > maxLines {
		text = strings.Join(lines[:maxLines], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-maxLines)
	}
	prefix := c.Name + ": "
	if r.IsError {
		prefix = c.Name + " failed: "
	}
	q.printer.Write(ports.ChannelToolResult, prefix+strings.TrimRight(text, "\n"))
	q.printer.EndBlock(ports.ChannelToolResult)
}

// compact renders JSON arguments on one line.
func compact(b json.RawMessage) string {
	if len(b) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}
