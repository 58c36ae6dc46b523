// Package run holds what lives for one Run (one jp invocation, one or more
// Turns): the turn-loop policy, the answers remembered for the rest of the
// run, and the tool permission decision.
//
// The turn loop (app.Query) runs Turns within a Run; runTurnPhases runs
// the phases within one Turn (see domain/turn). Nothing here outlives the
// process: remembered answers are not stored anywhere.
package run

import (
	"fmt"

	"github.com/jpcli/jp/domain/config"
)

// PersistLevel is how long an answer to a tool question is remembered.
type PersistLevel int

// Persist levels (there is no Turn level).
const (
	PersistLevelUnknown PersistLevel = iota
	// PersistLevelNone: this time only.
	PersistLevelNone
	// PersistLevelRun: for the rest of this invocation.
	PersistLevelRun
	// PersistLevelConversation: for every later run of this conversation
	// (stored in its metadata).
	PersistLevelConversation
	// PersistLevelWorkspace: written into the configuration file.
	PersistLevelWorkspace
)

// String names the level.
func (p PersistLevel) String() string {
	switch p {
	case PersistLevelNone:
		return "none"
	case PersistLevelRun:
		return "run"
	case PersistLevelConversation:
		return "conversation"
	case PersistLevelWorkspace:
		return "workspace"
	}
	return "unknown"
}

// Decision is what to do with one tool call.
type Decision int

// Decisions.
const (
	DecisionUnknown Decision = iota
	DecisionRun
	DecisionSkip
	DecisionAsk
	DecisionDeny
	// DecisionEdit: open the arguments in the editor, then ask.
	DecisionEdit
)

// Permission answers of the tool permission prompt.
const (
	AnswerRun          = "y"
	AnswerRunRemember  = "Y"
	AnswerSkip         = "n"
	AnswerSkipRemember = "N"
	// AnswerEdit opens the call's arguments in the editor, then asks
	// again (with the new diff).
	AnswerEdit = "e"
	// AnswerAlwaysConversation runs it, and every later call of the tool
	// in this conversation, without asking.
	AnswerAlwaysConversation = "c"
	// AnswerAlwaysWorkspace runs it and writes run = "unattended" for the
	// tool into the workspace's .jp/config.toml (the user config outside a
	// workspace).
	AnswerAlwaysWorkspace = "w"
)

// PermissionOption is one key of the permission prompt.
type PermissionOption struct {
	Key   string
	Label string
}

// PermissionOptions is the tool permission prompt, in order:
// [y] run  [Y] run, remember for this run  [n] skip  [N] skip, remember for this run
var PermissionOptions = []PermissionOption{
	{AnswerRun, "run"},
	{AnswerRunRemember, "run, remember for this run"},
	{AnswerSkip, "skip"},
	{AnswerSkipRemember, "skip, remember for this run"},
	{AnswerEdit, "edit the arguments"},
	{AnswerAlwaysConversation, "always for this conversation"},
	{AnswerAlwaysWorkspace, "always for this workspace"},
}

// ParsePermission maps a prompt key to a decision and its persist level.
func ParsePermission(key string) (Decision, PersistLevel, error) {
	switch key {
	case AnswerRun:
		return DecisionRun, PersistLevelNone, nil
	case AnswerRunRemember:
		return DecisionRun, PersistLevelRun, nil
	case AnswerSkip:
		return DecisionSkip, PersistLevelNone, nil
	case AnswerSkipRemember:
		return DecisionSkip, PersistLevelRun, nil
	case AnswerEdit:
		return DecisionEdit, PersistLevelNone, nil
	case AnswerAlwaysConversation:
		return DecisionRun, PersistLevelConversation, nil
	case AnswerAlwaysWorkspace:
		return DecisionRun, PersistLevelWorkspace, nil
	}
	return DecisionUnknown, PersistLevelUnknown, fmt.Errorf("unknown permission answer %q: expected y, Y, n, N, e, c or w", key)
}

// Approvals are the answers remembered for the Run, keyed by tool name.
// They live in the turn-loop driver, so a [Y] in turn 1 holds in a queued
// turn 2. Not safe for concurrent use: the engine asks one question at a
// time.
type Approvals struct {
	remembered map[string]Decision
}

// NewApprovals returns an empty set.
func NewApprovals() *Approvals { return &Approvals{remembered: map[string]Decision{}} }

// Decide applies the policy and any remembered answer to a call of tool.
func (a *Approvals) Decide(tool string, p config.RunPolicy) Decision {
	switch p {
	case config.RunPolicyUnattended:
		return DecisionRun
	case config.RunPolicyDeny:
		return DecisionDeny
	case config.RunPolicySkip:
		return DecisionSkip
	}
	if d, ok := a.remembered[tool]; ok {
		return d
	}
	if p == config.RunPolicyEdit {
		return DecisionEdit
	}
	return DecisionAsk
}

// Record notes an answer; answers of PersistLevelRun and longer are
// remembered for the rest of the run (the caller stores the longer ones).
func (a *Approvals) Record(tool string, d Decision, lvl PersistLevel) {
	if lvl >= PersistLevelRun {
		a.remembered[tool] = d
	}
}

// Slot is the one queued reply of a Run (docs/interrupts.md). It caches the draft
// file, which is the slot's durable form: the caller writes the draft when
// the slot is filled and deletes it when the slot is sent or discarded.
type Slot struct {
	text   string
	filled bool
}

// Text returns the queued text and whether there is one.
func (s *Slot) Text() (string, bool) { return s.text, s.filled }

// Fill sets the slot (a draft left by an earlier run is not a queued
// reply: only this Run's [q] fills the slot).
func (s *Slot) Fill(text string) { s.text, s.filled = text, true }

// Clear empties the slot.
func (s *Slot) Clear() { s.text, s.filled = "", false }

// SubmitEffect is what a compose of the slot did (the seed's submit table).
type SubmitEffect int

// Submit effects.
const (
	SubmitUnknown SubmitEffect = iota
	// SubmitUnchanged: the slot keeps the same text.
	SubmitUnchanged
	// SubmitReplaced: the slot holds the new text (write the draft).
	SubmitReplaced
	// SubmitCleared: the buffer was emptied; the slot is cleared (remove
	// the draft) and the user goes back to the menu.
	SubmitCleared
	// SubmitAborted: Ctrl+C in the composer; nothing changes, back to the
	// menu.
	SubmitAborted
)

// Submit applies a compose result to the slot. aborted is true for Ctrl+C
// (or ESC) in the composer.
func (s *Slot) Submit(text string, aborted bool) SubmitEffect {
	switch {
	case aborted:
		return SubmitAborted
	case isBlank(text):
		s.Clear()
		return SubmitCleared
	case s.filled && text == s.text:
		return SubmitUnchanged
	}
	s.Fill(text)
	return SubmitReplaced
}

func isBlank(s string) bool {
	for _, r := range s {
		if r != ' ' && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}
