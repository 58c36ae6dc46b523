package app

import (
	"context"
	"errors"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/interrupt"
	"github.com/jpcli/jp/domain/run"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/ports"
)

// menu asks for an action from m, unless configured is set (the
// interrupt.*.action key skips the menu). escalated is true when the user
// pressed Ctrl-C on the menu itself: that is a second press, not a choice.
func (q *Query) menu(ctx context.Context, m interrupt.Menu, configured interrupt.Action) (a interrupt.Action, escalated bool) {
	if configured != interrupt.ActionUnknown {
		q.interrupts.Handled()
		return configured, false
	}
	opts := make([]ports.Option, len(m.Items))
	for i, it := range m.Items {
		opts[i] = ports.Option{Key: it.Key, Label: it.Label, Value: it.Key}
	}
	resume := q.printer.Suspend()
	defer resume()
	for {
		ans, err := q.prompter.Ask(ctx, ports.Question{Kind: ports.QuestionSelect, Message: m.Title, Options: opts, Topic: "interrupt:" + m.Kind})
		switch {
		case errors.Is(err, ports.ErrInterrupted):
			q.interrupts.Escalate()
			return interrupt.ActionUnknown, true
		case errors.Is(err, ports.ErrCancelled):
			if _, ok := m.Pick("c"); ok && m.Kind != interrupt.CountdownMenu.Kind {
				q.interrupts.Handled()
				return interrupt.ActionContinue, false // ESC: back to what was happening
			}
			continue
		case err != nil:
			// No way to ask (no terminal, or a script without an answer):
			// change nothing.
			if m.Kind == interrupt.CountdownMenu.Kind {
				return interrupt.ActionKeepDraft, false
			}
			return interrupt.ActionContinue, false
		}
		if act, ok := m.Pick(ans.Text); ok {
			q.interrupts.Handled()
			return act, false
		}
	}
}

// composeRequest builds a compose request for a surface whose
// compose_in_editor is mode: false starts inline with Ctrl+X to the
// editor; true starts in the editor, falling back to inline; "always" is
// the editor only; "never" is inline only.
func composeRequest(purpose string, mode config.ComposeInEditor, initial, doc string) ports.ComposeRequest {
	return ports.ComposeRequest{
		Purpose: purpose, Initial: initial, Document: doc,
		InEditor:       mode.StartsInEditor(),
		FallbackInline: mode.FallsBackToInline(),
		NoEditor:       !mode.EditorEscape() && !mode.StartsInEditor(),
	}
}

// compose runs the prompter's composer with the printer suspended.
func (q *Query) compose(ctx context.Context, req ports.ComposeRequest) (string, error) {
	resume := q.printer.Suspend()
	defer resume()
	return q.prompter.Compose(ctx, req)
}

// composeSlot opens the queued-reply composer, seeded with the queued text
// (or, before anything is queued, with a draft an earlier run left, so
// nothing the user typed is overwritten unseen), and applies the seed's
// submit table. The draft file follows the slot.
func (q *Query) composeSlot(ctx context.Context, rs *runState, purpose string, mode config.ComposeInEditor) run.SubmitEffect {
	initial, filled := rs.slot.Text()
	doc := ""
	if d, err := q.drafts.ReadDraft(ctx, rs.loc, rs.id); err == nil {
		doc = d.Text
		// A draft an earlier run left seeds the first [q]; the message this
		// run composed and already sent does not.
		if dq := draft.Parse(d.Text).Query(); !filled && dq != rs.composed {
			initial = dq
		}
	}
	text, err := q.compose(ctx, composeRequest(purpose, mode, initial, docWith(doc, initial)))
	aborted := err != nil
	if err != nil && !errors.Is(err, ports.ErrCancelled) && !errors.Is(err, ports.ErrInterrupted) {
		q.printer.Write(ports.ChannelError, err.Error())
		q.printer.EndBlock(ports.ChannelError)
	}
	eff := rs.slot.Submit(draft.Parse(text).Query(), aborted)
	switch eff {
	case run.SubmitReplaced:
		queued, _ := rs.slot.Text()
		if werr := q.keepDraft(ctx, rs.loc, rs.id, queued); werr != nil {
			q.printer.Write(ports.ChannelError, "could not save the queued reply as a draft: "+werr.Error())
			q.printer.EndBlock(ports.ChannelError)
		}
		if purpose == "edit_draft" {
			q.chromeNote("Queued reply updated.")
		} else {
			q.chromeNote("Reply queued: it is sent when this turn ends.")
		}
	case run.SubmitCleared:
		_ = q.drafts.DeleteDraft(context.WithoutCancel(ctx), rs.loc, rs.id)
		q.chromeNote("Queued reply withdrawn.")
	}
	return eff
}

// composeText asks for a reply or a response (the [r] actions). ok is
// false when the user backed out (Ctrl+C, ESC) or submitted nothing.
func (q *Query) composeText(ctx context.Context, purpose string, mode config.ComposeInEditor) (string, bool) {
	text, err := q.compose(ctx, composeRequest(purpose, mode, "", ""))
	if err != nil {
		return "", false
	}
	text = draft.Parse(text).Query()
	if strings.TrimSpace(text) == "" {
		return "", false
	}
	return text, true
}

func docWith(doc, query string) string {
	if doc == "" {
		return ""
	}
	return draft.Parse(doc).WithQuery(query).Render()
}

// interruptChoice runs the streaming or the tool-call menu until the user
// picks what leaves it. [q] composes the queued reply in place; [r]
// composes the text to send. Backing out of either returns to the menu,
// or resumes when the action is configured (there is no menu to return
// to). It returns ActionContinue to resume, ActionStop on escalation (a
// graceful shutdown: ts.shutdown is set), ActionReply or ActionRespond
// with the composed text, or the stopping action picked.
func (q *Query) interruptChoice(ctx context.Context, rs *runState, ts *turnState, m interrupt.Menu, configured interrupt.Action, inEditor config.ComposeInEditor) (interrupt.Action, string) {
	for {
		act, escalated := q.menu(ctx, m, configured)
		if escalated {
			ts.shutdown = true
			return interrupt.ActionStop, ""
		}
		switch act {
		case interrupt.ActionQueueReply:
			eff := q.composeSlot(ctx, rs, "queue_reply", inEditor)
			if eff == run.SubmitReplaced || eff == run.SubmitUnchanged || configured != interrupt.ActionUnknown {
				return interrupt.ActionContinue, ""
			}
		case interrupt.ActionReply, interrupt.ActionRespond:
			purpose := "reply"
			if act == interrupt.ActionRespond {
				purpose = "respond"
			}
			if text, ok := q.composeText(ctx, purpose, inEditor); ok {
				return act, text
			}
			if configured != interrupt.ActionUnknown {
				return interrupt.ActionContinue, ""
			}
		default:
			return act, ""
		}
	}
}

// streamingInterrupt runs the streaming menu. It returns the actions that
// end or redirect the turn, or nil to resume streaming.
func (q *Query) streamingInterrupt(ctx context.Context, rs *runState, ts *turnState, cancel func(), drain func() error) []turn.Action {
	act, text := q.interruptChoice(ctx, rs, ts, interrupt.StreamingMenu, streamingAction(rs), rs.cfg.Interrupt.Streaming.ComposeInEditor)
	switch act {
	case interrupt.ActionReply:
		cancel()
		if err := drain(); err != nil {
			return []turn.Action{{Kind: turn.ActionEnd, Err: err}}
		}
		q.endBlock(ts)
		return ts.m.Reply(text, conversation.AuthorUser)
	case interrupt.ActionStop:
		cancel()
		if err := drain(); err != nil {
			return []turn.Action{{Kind: turn.ActionEnd, Err: err}}
		}
		return ts.m.Stop(nil)
	case interrupt.ActionAbort:
		cancel()
		_ = drain()
		return ts.m.Abort()
	}
	return nil
}

// toolCallInterrupt runs the tool-call menu while tools run. finish
// cancels the running tools and waits for them. handled is false to keep
// waiting for the tools.
func (q *Query) toolCallInterrupt(ctx context.Context, rs *runState, ts *turnState, finish func()) (end batchEnd, text string, handled bool) {
	act, text := q.interruptChoice(ctx, rs, ts, interrupt.ToolCallMenu, toolCallAction(rs), rs.cfg.Interrupt.ToolCall.ComposeInEditor)
	switch act {
	case interrupt.ActionRespond:
		end = batchRespond
	case interrupt.ActionStop:
		end = batchStop
	case interrupt.ActionRestart:
		end = batchRestart
	default:
		return 0, "", false
	}
	finish()
	return end, text, true
}
