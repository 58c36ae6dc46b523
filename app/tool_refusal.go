package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/interrupt"
	"github.com/jpcli/jp/ports"
)

// permissionInterrupt handles Ctrl-C at a tool permission prompt as the
// first press of the escalation (docs/interrupts.md): the tool-call menu
// opens, as it does while tools run. [c] and [t] ask the prompt again
// (again), [q] composes the queued reply and asks again, [s] stops the
// turn before anything runs, [r] answers every call of the batch with
// the composed text (ts.respond), and Ctrl-C on the menu is the second
// press: a graceful shutdown (ts.shutdown).
func (q *Query) permissionInterrupt(ctx context.Context, rs *runState, ts *turnState) (again, stop bool) {
	act, text := q.interruptChoice(ctx, rs, ts, interrupt.ToolCallMenu, toolCallAction(rs), rs.cfg.Interrupt.ToolCall.ComposeInEditor)
	switch act {
	case interrupt.ActionStop:
		return false, true
	case interrupt.ActionRespond:
		ts.respond = text
		return false, true
	}
	return true, false
}

// refusalReason asks, after ESC at a permission prompt, for a short
// reason the model gets as the call's result ("no, and ..."). Enter on
// an empty line, ESC, Ctrl-C or no answer leave the cancellation
// response; stop is true when shutdown began meanwhile.
func (q *Query) refusalReason(ctx context.Context, rs *runState, ts *turnState, tool string) (reason string, stop bool) {
	resume := q.printer.Suspend()
	ans, err := q.prompter.Ask(ctx, ports.Question{
		Kind:     ports.QuestionText,
		Message:  fmt.Sprintf("Not running %s. Why, or what instead? (Enter: just skip)", tool),
		Topic:    "tool_refusal:" + tool,
		Optional: true,
	})
	resume()
	if ctx.Err() != nil || isClosed(q.interrupts.Shutdown()) {
		ts.shutdown = true
		return "", true
	}
	if err != nil {
		if !errors.Is(err, ports.ErrCancelled) && !errors.Is(err, ports.ErrInterrupted) && !errors.Is(err, ports.ErrUnavailable) {
			q.printer.Write(ports.ChannelError, err.Error())
			q.printer.EndBlock(ports.ChannelError)
		}
		return "", false
	}
	text := strings.TrimSpace(ans.Text)
	if text == "" {
		return "", false
	}
	return refusalMessage(tool, text), false
}

// refusalMessage is the result the model reads for a call the user
// refused with a reason.
func refusalMessage(tool, reason string) string {
	return fmt.Sprintf("The user did not let this call of %s run, and said: %s", tool, reason)
}
