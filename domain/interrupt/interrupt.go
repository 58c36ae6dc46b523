// Package interrupt holds what Ctrl-C does, as data: the three menus of
// docs/interrupts.md (streaming, tool call, countdown) with their keys, labels and
// actions, the escalation counter with its cooldown, and the countdown
// line. Rendering and signals live in adapters (terminal, headless); the
// engine in app/ acts on the Actions chosen here. See docs/interrupts.md.
package interrupt

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Action is what the user chose in an interrupt menu.
type Action int

// Actions of the three menus.
const (
	ActionUnknown Action = iota
	// Streaming and tool-call menus.
	ActionContinue
	ActionReply      // streaming: stop the stream and send a message in the same turn
	ActionRespond    // tool call: cancel the tools, the message is their result
	ActionQueueReply // both: compose a reply sent after the turn ends
	ActionStop       // both: save (streaming) or cancel tools (tool call), and exit
	ActionAbort      // streaming: discard the partial response and exit
	ActionRestart    // tool call: cancel the tools and run the batch again
	// Countdown menu.
	ActionSendNow
	ActionEditDraft
	ActionKeepDraft
	ActionDiscardDraft
)

var actionNames = map[Action]string{
	ActionContinue: "continue", ActionReply: "reply", ActionRespond: "respond",
	ActionQueueReply: "queue_reply", ActionStop: "stop", ActionAbort: "abort",
	ActionRestart: "restart", ActionSendNow: "send", ActionEditDraft: "edit",
	ActionKeepDraft: "keep", ActionDiscardDraft: "discard",
}

// String names the action as configuration spells it.
func (a Action) String() string {
	if s, ok := actionNames[a]; ok {
		return s
	}
	return "unknown"
}

// Item is one entry of a menu.
type Item struct {
	Key    string
	Label  string
	Action Action
}

// Menu is an interrupt menu: a title and its items, in display order.
type Menu struct {
	// Kind names the context: "streaming", "tool_call", "countdown".
	Kind  string
	Title string
	Items []Item
}

// The three menus, with exactly the seed's keys and labels.
var (
	StreamingMenu = Menu{Kind: "streaming", Title: "Interrupted", Items: []Item{
		{"c", "Continue", ActionContinue},
		{"r", "Reply (stop & respond)", ActionReply},
		{"q", "Queue reply (finish, then respond)", ActionQueueReply},
		{"s", "Stop (save & exit)", ActionStop},
		{"a", "Abort (discard & exit)", ActionAbort},
	}}
	ToolCallMenu = Menu{Kind: "tool_call", Title: "Interrupted", Items: []Item{
		{"c", "Continue", ActionContinue},
		{"r", "Stop & respond", ActionRespond},
		{"q", "Queue reply (finish, then respond)", ActionQueueReply},
		{"s", "Stop (cancel & exit)", ActionStop},
		{"t", "Restart", ActionRestart},
	}}
	CountdownMenu = Menu{Kind: "countdown", Title: "Queued reply", Items: []Item{
		{"n", "Send now", ActionSendNow},
		{"e", "Edit draft", ActionEditDraft},
		{"k", "Keep draft (don't send)", ActionKeepDraft},
		{"d", "Discard draft", ActionDiscardDraft},
	}}
)

// Line renders the menu's items on one line: "[c] Continue  [r] ...".
func (m Menu) Line() string {
	s := ""
	for i, it := range m.Items {
		if i > 0 {
			s += "  "
		}
		s += "[" + it.Key + "] " + it.Label
	}
	return s
}

// Pick maps a pressed key to its action.
func (m Menu) Pick(key string) (Action, bool) {
	for _, it := range m.Items {
		if it.Key == key {
			return it.Action, true
		}
	}
	return ActionUnknown, false
}

// ParseStreamingAction maps interrupt.streaming.action to a menu action;
// "prompt" (show the menu) is ActionUnknown with ok = true.
func ParseStreamingAction(s string) (Action, bool) { return StreamingMenu.configured(s) }

// ParseToolCallAction maps interrupt.tool_call.action likewise.
func ParseToolCallAction(s string) (Action, bool) { return ToolCallMenu.configured(s) }

// ParseCountdownAction maps interrupt.loop_countdown.action likewise.
func ParseCountdownAction(s string) (Action, bool) { return CountdownMenu.configured(s) }

// configured maps a configured action of this menu, spelled as
// Action.String, to the action: the configuration offers exactly the
// menu's actions, plus "prompt" (and "" for unset), which is
// ActionUnknown: show the menu.
func (m Menu) configured(s string) (Action, bool) {
	if s == "prompt" || s == "" {
		return ActionUnknown, true
	}
	for _, it := range m.Items {
		if it.Action.String() == s {
			return it.Action, true
		}
	}
	return ActionUnknown, false
}

// Level is what one Ctrl-C press means after escalation.
type Level int

// Escalation levels.
const (
	LevelUnknown Level = iota
	// LevelHandler: the first press goes to the topmost handler (with no
	// handler it is a graceful shutdown).
	LevelHandler
	// LevelShutdown: the second press begins a graceful shutdown.
	LevelShutdown
	// LevelExit: the third press exits at once with code 130.
	LevelExit
)

// Escalation counts Ctrl-C presses; the count resets when no press came
// for the cooldown. It is pure: callers pass the time of each press.
type Escalation struct {
	Cooldown time.Duration
	count    int
	last     time.Time
}

// Press records a press at now and returns its level.
func (e *Escalation) Press(now time.Time) Level {
	if e.count > 0 && e.Cooldown > 0 && now.Sub(e.last) > e.Cooldown {
		e.count = 0
	}
	e.count++
	e.last = now
	switch e.count {
	case 1:
		return LevelHandler
	case 2:
		return LevelShutdown
	}
	return LevelExit
}

// Reset starts the count over (a handler was answered).
func (e *Escalation) Reset() { e.count = 0 }

// Count is the number of presses since the last reset.
func (e *Escalation) Count() int { return e.count }

// CountdownRedraw is what redraws the countdown line in place: a
// carriage return, the line, and as many spaces as the previous line
// (prev, "" for the first draw) was longer, so that the rest of the line
// is cleared on every redraw: "10s" going to "9s" leaves no stray
// character behind. It needs no terminal escape, so it passes the
// printer's control-character filter.
func CountdownRedraw(remaining time.Duration, prev string) string {
	line := CountdownLine(remaining)
	pad := utf8.RuneCountInString(prev) - utf8.RuneCountInString(line)
	return "\r" + line + strings.Repeat(" ", max(pad, 0))
}

// CountdownLine is the chrome line shown while a queued reply waits.
func CountdownLine(remaining time.Duration) string {
	secs := int((remaining + time.Second - 1) / time.Second)
	if secs < 0 {
		secs = 0
	}
	return fmt.Sprintf("⏳ Sending queued reply in %ds… (^C to review)", secs)
}
