package app

import (
	"context"
	"errors"
	"strings"

	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/ports"
)

// runEvents returns the printer's structured-record side (jp q --format
// json), or nil when it has none.
func (q *Query) runEvents() ports.RunEvents {
	if ev, ok := q.printer.(ports.RunEvents); ok {
		return ev
	}
	return nil
}

// reportStart opens the run's records.
func (q *Query) reportStart(rs *runState) {
	if ev := q.runEvents(); ev != nil {
		ev.RunStart(ports.RunStart{Conversation: string(rs.id), Model: rs.model.String(), Workspace: string(rs.loc.ID), Checkout: rs.loc.Root, Storage: rs.storage})
		rs.started = true
	}
}

// reportToolCall and reportToolResult report a call and its whole result.
func (q *Query) reportToolCall(c llm.ToolCall) {
	if ev := q.runEvents(); ev != nil {
		ev.ToolCall(ports.RunToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
}

func (q *Query) reportToolResult(c llm.ToolCall, r turn.ToolResult) {
	if ev := q.runEvents(); ev != nil {
		ev.ToolResult(ports.RunToolResult{ID: c.ID, Name: c.Name, Content: r.Content, IsError: r.IsError})
	}
}

// reportEnd closes the run's records: how it ended, the final answer and
// the usage the provider reported.
func (q *Query) reportEnd(rs *runState, end turn.End, err error) {
	ev := q.runEvents()
	if ev == nil || !rs.started {
		return
	}
	e := ports.RunEnd{Outcome: end.String(), Text: rs.history.FinalText(), StopReason: "end_turn", Usage: rs.usage}
	switch {
	case err != nil && (errors.Is(err, ports.ErrInterrupted) || errors.Is(err, context.Canceled)):
		e.Outcome, e.StopReason = turn.EndStopped.String(), "interrupted"
	case err != nil:
		e.Outcome, e.StopReason, e.Error = "error", "error", strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", " ")
	case end != turn.EndCompleted:
		e.StopReason = "interrupted"
	case rs.lastStop == llm.StopLength:
		e.StopReason = "length"
	}
	ev.RunEnd(e)
}

// addUsage adds a provider's token counts to the run's.
func (rs *runState) addUsage(u llm.Usage) {
	if rs.usage == nil {
		rs.usage = &ports.RunUsage{}
	}
	rs.usage.InputTokens += u.InputTokens
	rs.usage.OutputTokens += u.OutputTokens
}
