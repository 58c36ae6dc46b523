package app

import (
	"context"
	"time"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/interrupt"
	"github.com/jpcli/jp/domain/run"
	"github.com/jpcli/jp/ports"
)

// nextQueued decides, at a turn boundary, whether the queued reply is sent
// as the next Turn: query.loop, then the countdown and its menu.
func (q *Query) nextQueued(ctx context.Context, rs *runState) (string, bool, error) {
	q.takeTypeAhead(ctx, rs)
	text, ok := rs.slot.Text()
	if !ok {
		return "", false, nil
	}
	if rs.cfg.Query.Loop == config.LoopPolicyNever {
		q.chromeNote("A reply is queued; query.loop = \"never\" keeps it as the draft: run jp q to review and send it.")
		return "", false, nil
	}
	cd := rs.cfg.Interrupt.LoopCountdown
	if cd.DurationSecs <= 0 || !q.interrupts.Countdown() {
		return text, true, nil
	}
	return q.countdown(ctx, rs)
}

// countdown runs the send countdown on the chrome channel. Ctrl-C opens
// the countdown menu; [e] cancels the timer and returns to the menu with
// no countdown running.
func (q *Query) countdown(ctx context.Context, rs *runState) (string, bool, error) {
	cd := rs.cfg.Interrupt.LoopCountdown
	scope := q.interrupts.Push("countdown")
	defer scope.Pop()
	configured, _ := interrupt.ParseCountdownAction(cd.Action.String())
	remaining := cd.Duration()
	q.interrupts.Progress(ports.Progress{Turn: rs.turns, Phase: "countdown"})
	timerRunning := true
	shown := "" // the countdown line on screen, which a redraw must cover
	for {
		if timerRunning {
			q.printer.Write(ports.ChannelChrome, interrupt.CountdownRedraw(remaining, shown))
			shown = interrupt.CountdownLine(remaining)
			_ = q.printer.Flush()
			step := min(remaining, secondish)
			select {
			case <-q.timers.After(step):
				remaining -= step
				if remaining > 0 {
					continue
				}
				q.printer.EndBlock(ports.ChannelChrome)
				text, _ := rs.slot.Text()
				return text, true, nil
			case <-q.interrupts.Shutdown():
				q.printer.EndBlock(ports.ChannelChrome)
				q.chromeNote(keptLine)
				return "", false, errShutdown
			case <-ctx.Done():
				q.printer.EndBlock(ports.ChannelChrome)
				q.chromeNote(keptLine)
				return "", false, errShutdown
			case <-scope.C():
				q.printer.EndBlock(ports.ChannelChrome)
				shown = "" // the menu starts a new line
			}
		}
		act, escalated := q.menu(ctx, interrupt.CountdownMenu, configured)
		if escalated {
			// Escalation never takes the destructive branch: keep the draft.
			q.chromeNote(keptLine)
			return "", false, errShutdown
		}
		switch act {
		case interrupt.ActionSendNow:
			text, _ := rs.slot.Text()
			return text, true, nil
		case interrupt.ActionKeepDraft:
			q.chromeNote("Queued reply kept as the draft: run jp q to review and send it.")
			return "", false, nil
		case interrupt.ActionDiscardDraft:
			rs.slot.Clear()
			if err := q.drafts.DeleteDraft(context.WithoutCancel(ctx), rs.loc, rs.id); err != nil {
				return "", false, err
			}
			q.chromeNote("Queued reply discarded.")
			return "", false, nil
		case interrupt.ActionEditDraft:
			eff := q.composeSlot(ctx, rs, "edit_draft", cd.ComposeInEditor)
			if eff == run.SubmitCleared {
				// An emptied submit is [d] by another route.
				return "", false, nil
			}
			if configured == interrupt.ActionEditDraft {
				// The configured edit action restarts the countdown: there is
				// no menu to return to.
				remaining, timerRunning = cd.Duration(), true
				continue
			}
			timerRunning = false
		}
	}
}

// keptLine tells the user where a queued reply that was not sent is.
const keptLine = "Your queued reply is kept as the draft: run jp q to review and send it."

// secondish is the countdown's tick.
const secondish = time.Second
