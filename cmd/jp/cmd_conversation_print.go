package main

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
)

// ConversationPrintCmd is jp conversation print (alias p), as the Rust jp
// has it: the conversation as a transcript, or the turns selected.
type ConversationPrintCmd struct {
	ID    string `arg:"" optional:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one (default: the active conversation)."`
	First int    `placeholder:"N" help:"Print the first N turns."`
	Last  int    `placeholder:"N" help:"Print the last N turns."`
	Turn  string `placeholder:"SPEC" help:"Print turns by number (1 is the first): 3, 1..5, 10.., ..10 or .. (all)."`
	From  string `placeholder:"N" help:"Start at turn N (1-based), or -N: the Nth from the end."`
	To    string `placeholder:"N" help:"End at turn N (1-based, included), or -N: the Nth from the end."`
	Style string `short:"s" enum:",user,chat,brief,full" default:"" placeholder:"STYLE" help:"user: your messages only; chat: yours and the answers; brief: also tool call names; full: everything (the default)."`
	// Compacted prints what the model is sent instead of the events.
	Compacted bool `help:"Print the conversation as the model sees it: its compactions applied (summaries, stripped reasoning and tool calls), with the estimated tokens."`
}

// Run prints the selected turns.
func (c *ConversationPrintCmd) Run(rt *Runtime) error {
	set := 0
	for _, on := range []bool{c.First != 0, c.Last != 0, c.Turn != "", c.From != "" || c.To != ""} {
		if on {
			set++
		}
	}
	if set > 1 {
		return &app.UsageError{Msg: "--first, --last, --turn and --from/--to each select turns: give one of them"}
	}
	if c.First < 0 || c.Last < 0 {
		return &app.UsageError{Msg: "--first and --last take a number of turns above 0"}
	}
	if c.Compacted && set > 0 {
		return &app.UsageError{Msg: "--compacted prints the whole conversation as the model sees it: give it without --first, --last, --turn or --from/--to"}
	}
	a, loc, id, record, err := rt.conversationToRead(c.ID)
	if err != nil {
		return err
	}
	defer record()
	if c.Compacted {
		return c.printCompacted(rt, a.Conversations, loc, id)
	}
	// The flags are checked before anything is read: any count of turns
	// gives the same usage errors.
	if _, _, err := c.selectTurns(math.MaxInt); err != nil {
		return err
	}
	n := math.MaxInt // not counted: the selection does not need it
	if c.fromEnd() {
		if n, err = a.Conversations.CountTurns(rt.Ctx, loc, id); err != nil {
			return err
		}
	}
	lo, hi, err := c.selectTurns(n)
	if err != nil {
		return err
	}
	return c.printTurns(rt, a.Conversations, loc, id, lo, hi)
}

// fromEnd reports whether the turns selected are counted from the end
// (--last, or a bound -N): they are counted before the first is printed.
func (c *ConversationPrintCmd) fromEnd() bool {
	return c.Last > 0 || strings.Contains(c.Turn, "-") || strings.HasPrefix(c.From, "-") || strings.HasPrefix(c.To, "-")
}

// errPrinted stops the read of a conversation once its last selected
// turn is printed.
var errPrinted = errors.New("printed")

// printTurns prints the turns [lo, hi) as the conversation is read: the
// first line is out before the rest of a long conversation is read, and
// only one event is held at a time. A single --turn past the end is the
// error selectTurns gives for the count read.
func (c *ConversationPrintCmd) printTurns(rt *Runtime, convs *app.Conversations, loc workspace.Location, id conversation.ID, lo, hi int) error {
	w := bufio.NewWriter(rt.Streams.Out)
	defer w.Flush()
	turn, printing := -1, false
	each := func(e conversation.Event) error {
		if e.Type == conversation.EventTypeTurnStart || turn < 0 { // as app.Turns splits them
			if printing {
				fmt.Fprintln(w)
				printing = false
			}
			if turn++; turn >= hi {
				return errPrinted
			}
			if printing = turn >= lo; printing {
				fmt.Fprintf(w, "── turn %d\n", turn+1)
				if turn == lo {
					_ = w.Flush() // the first line before the rest is read
				}
			}
		}
		if printing {
			printEvent(w, e, c.Style)
		}
		return nil
	}
	err := convs.ShowEach(rt.Ctx, loc, id, func(conversation.Summary) error { return nil }, each)
	if err != nil && !errors.Is(err, errPrinted) {
		return err
	}
	if printing {
		fmt.Fprintln(w)
	}
	if err == nil {
		// All read: a selection past the end says so, as for a count.
		_, _, err = c.selectTurns(turn + 1)
	}
	if errors.Is(err, errPrinted) {
		return nil
	}
	return err
}

// selectTurns returns the half-open range [lo, hi) of the n turns the
// flags select (all of them without a selector; past the end is clipped).
func (c *ConversationPrintCmd) selectTurns(n int) (lo, hi int, err error) {
	switch {
	case c.First > 0:
		return 0, min(c.First, n), nil
	case c.Last > 0:
		return max(0, n-c.Last), n, nil
	case c.Turn != "":
		a, b, ok := strings.Cut(c.Turn, "..")
		from, err := turnBound("--turn", a, n, 1)
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			if from < 1 || from > n {
				return 0, 0, &app.UserError{Msg: fmt.Sprintf("--turn %s: the conversation has %s", c.Turn, plural(n, "turn", "turns"))}
			}
			return from - 1, from, nil
		}
		to, err := turnBound("--turn", b, n, n)
		if err != nil {
			return 0, 0, err
		}
		return clipTurns(from, to, n)
	case c.From != "" || c.To != "":
		from, err := turnBound("--from", c.From, n, 1)
		if err != nil {
			return 0, 0, err
		}
		to, err := turnBound("--to", c.To, n, n)
		if err != nil {
			return 0, 0, err
		}
		return clipTurns(from, to, n)
	}
	return 0, n, nil
}

// turnBound reads a 1-based turn number, -N from the end, or "" (def).
func turnBound(flag, s string, n, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v == 0 {
		return 0, &app.UsageError{Msg: fmt.Sprintf("%s %q is not a turn: give a turn number (1 is the first) or -N (the Nth from the end)", flag, s)}
	}
	if v < 0 {
		return n + v + 1, nil
	}
	return v, nil
}

// clipTurns turns an inclusive 1-based range into a half-open 0-based one
// within n turns.
func clipTurns(from, to, n int) (int, int, error) {
	lo, hi := max(from, 1)-1, min(to, n)
	if lo >= hi {
		return 0, 0, nil
	}
	return lo, hi, nil
}

// printEvent writes one event of jp c print in a style.
func printEvent(w *bufio.Writer, e conversation.Event, style string) {
	switch e.Type {
	case conversation.EventTypeChatRequest:
		writeEvent(w, e)
	case conversation.EventTypeChatResponse:
		if style == "user" || e.Reasoning != "" && style != "" && style != "full" {
			return
		}
		writeEvent(w, e)
	case conversation.EventTypeToolCallRequest:
		switch style {
		case "user", "chat":
		case "brief":
			fmt.Fprintf(w, "\n[tool call] %s\n", noControl(e.Name))
		default:
			writeEvent(w, e)
		}
	case conversation.EventTypeToolCallResponse:
		if style == "" || style == "full" {
			writeEvent(w, e)
		}
	}
}

// printCompacted prints the messages the model is sent, as print does
// events, then their estimated tokens.
func (c *ConversationPrintCmd) printCompacted(rt *Runtime, convs *app.Conversations, loc workspace.Location, id conversation.ID) error {
	msgs, tokens, err := convs.Projected(rt.Ctx, loc, id)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(rt.Streams.Out)
	defer w.Flush()
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			fmt.Fprintf(w, "\n[you]\n%s\n", m.Text)
			for _, a := range m.Attachments {
				fmt.Fprintf(w, "[attachment] %s (%s)\n", noControl(a.Name), noControl(a.MediaType))
			}
		case llm.RoleAssistant:
			if c.Style == "user" {
				continue
			}
			if m.Reasoning != "" && (c.Style == "" || c.Style == "full") {
				fmt.Fprintf(w, "\n[reasoning]\n%s\n", m.Reasoning)
			}
			if m.Text != "" {
				fmt.Fprintf(w, "\n[assistant]\n%s\n", m.Text)
			}
			for _, tc := range m.ToolCalls {
				switch c.Style {
				case "chat":
				case "brief":
					fmt.Fprintf(w, "[tool call] %s\n", noControl(tc.Name))
				default:
					fmt.Fprintf(w, "\n[tool call %s] %s %s\n", noControl(tc.ID), noControl(tc.Name), app.CompactJSON(tc.Arguments))
				}
			}
		case llm.RoleTool:
			if c.Style != "" && c.Style != "full" {
				continue
			}
			label := "tool result"
			if m.IsError {
				label = "tool error"
			}
			fmt.Fprintf(w, "[%s %s]\n%s\n", label, noControl(m.ToolCallID), strings.TrimRight(m.Text, "\n"))
		}
	}
	fmt.Fprintf(w, "\n── about %s tokens (estimated)\n", app.KTokens(tokens))
	return nil
}
