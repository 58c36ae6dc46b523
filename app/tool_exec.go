package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/jpcli/jp/domain/interrupt"
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

// cancelledResults answers every call with its cancellation response.
func cancelledResults(rs *runState, calls []llm.ToolCall) []turn.ToolResult {
	out := make([]turn.ToolResult, len(calls))
	for i, c := range calls {
		out[i] = turn.ToolResult{CallID: c.ID, Content: rs.cfg.Tool(c.Name).CancellationResponse, IsError: true}
	}
	return out
}

// batchEnd is how running a batch ended.
type batchEnd int

const (
	batchDone batchEnd = iota
	batchStop
	batchRespond
	batchRestart
)

// executeBatch decides each call's permission (one question at a time),
// runs the approved calls concurrently under the tool-call interrupt menu,
// and feeds the results to the machine. Every call gets exactly one result.
func (q *Query) executeBatch(ctx context.Context, rs *runState, ts *turnState, calls []llm.ToolCall) []turn.Action {
	results := cancelledResults(rs, calls)
	// The user may edit a call's arguments before it runs: the batch works
	// on its own copy of the calls.
	calls = slices.Clone(calls)
	approved, edited, end, text := q.decide(ctx, rs, ts, calls, results)
	switch end {
	case batchStop:
		return ts.m.Stop(results)
	case batchRespond:
		for i, c := range calls {
			results[i] = turn.ToolResult{CallID: c.ID, Content: text}
		}
		return ts.m.ToolResults(results)
	}
	q.runUserTools(ctx, rs, calls, approved, results)
	for {
		end, text := q.runApproved(ctx, rs, ts, calls, approved, results)
		switch end {
		case batchDone:
			for i, c := range calls {
				if edited[i] && approved[i] {
					results[i].Content = fmt.Sprintf("(The user edited this call's arguments before it ran; it ran with %s.)\n", CompactJSON(c.Arguments)) + results[i].Content
				}
				if isUserTool(rs.cfg, c.Name) && !results[i].IsError {
					// The question and its answer, or the message, are
					// on screen already.
					q.reportToolResult(c, results[i])
					continue
				}
				q.printResult(rs, c, results[i])
			}
			if stop := q.reviewResults(ctx, rs, calls, approved, results); stop {
				ts.shutdown = true
				return ts.m.Stop(results)
			}
			return ts.m.ToolResults(results)
		case batchRespond:
			for i, c := range calls {
				results[i] = turn.ToolResult{CallID: c.ID, Content: text}
			}
			return ts.m.ToolResults(results)
		case batchStop:
			return ts.m.Stop(results)
		case batchRestart:
			q.chromeNote("Restarting the tool calls.")
		}
	}
}

// runApproved runs the approved calls concurrently. The goroutines are
// owned here: every path waits for them before returning.
func (q *Query) runApproved(ctx context.Context, rs *runState, ts *turnState, calls []llm.ToolCall, approved []bool, results []turn.ToolResult) (batchEnd, string) {
	q.snapshotBefore(ctx, rs, ts, calls, approved)
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i, c := range calls {
		if !approved[i] {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			stop := q.printer.Wait(waitToolLabel(c.Name))
			r, err := ts.tools.Call(tctx, c.Name, c.Arguments)
			stop()
			if err == nil && len(r.Changed) > 0 {
				q.snapshotAfter(ctx, rs, r.Changed)
			}
			switch {
			case tctx.Err() != nil:
				results[i] = turn.ToolResult{CallID: c.ID, Content: rs.cfg.Tool(c.Name).CancellationResponse, IsError: true}
			case err != nil:
				results[i] = turn.ToolResult{CallID: c.ID, Content: "the tool failed: " + err.Error(), IsError: true}
			default:
				results[i] = turn.ToolResult{CallID: c.ID, Content: r.Content, IsError: r.IsError, Files: r.Changed}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	finish := func() { cancel(); <-done }

	scope := q.interrupts.Push("tool_call")
	defer scope.Pop()
	q.interrupts.Progress(ports.Progress{Turn: rs.turns, Phase: "tool_call", Deltas: ts.deltas})
	for {
		select {
		case <-done:
			return batchDone, ""
		case <-q.interrupts.Shutdown():
			ts.shutdown = true
			finish()
			return batchStop, ""
		case <-scope.C():
			end, text, handled := q.toolCallInterrupt(ctx, rs, ts, finish)
			if handled {
				return end, text
			}
		}
	}
}

func (q *Query) printResult(rs *runState, c llm.ToolCall, r turn.ToolResult) {
	q.reportToolResult(c, r)
	if rs.hideToolCalls {
		return
	}
	text := r.Content
	const maxLines = 12
	if lines := strings.Split(strings.TrimRight(text, "\n"), "\n"); len(lines) > maxLines {
		text = strings.Join(lines[:maxLines], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-maxLines)
	}
	if rs.diffShown[c.ID] {
		// The permission prompt showed the diff: the result's summary
		// line is enough (a diff is shown once).
		text, _, _ = strings.Cut(text, "\n\n")
	}
	prefix := c.Name + ": "
	if r.IsError {
		prefix = c.Name + " failed: "
	}
	q.printer.Write(ports.ChannelToolResult, prefix+strings.TrimRight(text, "\n"))
	q.printer.EndBlock(ports.ChannelToolResult)
}

// CompactJSON renders JSON (a tool call's arguments) on one line: "{}"
// for none, the text as is when it is not JSON.
func CompactJSON(b json.RawMessage) string {
	if len(b) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}

// toolCallAction is interrupt.tool_call.action as a menu action.
func toolCallAction(rs *runState) interrupt.Action {
	a, _ := interrupt.ParseToolCallAction(rs.cfg.Interrupt.ToolCall.Action.String())
	return a
}
