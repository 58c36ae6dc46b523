package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/run"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// DelegateHooks are how a delegated turn (docs/plugins.md) reaches the plugin
// that asked for it instead of the terminal.
type DelegateHooks struct {
	// OnEvent is called with every conversation event once it is stored.
	OnEvent func(conversation.Event)
	// Approve asks whether a tool call may run; diff is the unified diff
	// a write tool's call will apply ("" for other tools). why, when set,
	// is the call's result when it does not run (a timeout). An error
	// means the turn is being stopped.
	Approve func(ctx context.Context, call llm.ToolCall, diff string) (ok bool, why string, err error)
}

// Delegate returns a copy of the use case whose output goes to printer,
// whose stop signal is interrupts' Shutdown, and whose events and tool
// approvals go through hooks. Everything else (storage, providers, tools
// and the MCP pool) is shared.
func (q *Query) Delegate(printer ports.Printer, interrupts ports.Interrupts, hooks DelegateHooks) *Query {
	d := *q
	d.printer, d.interrupts, d.approve = printer, interrupts, hooks.Approve
	if hooks.OnEvent != nil {
		d.store = notifyingStore{ConversationStore: q.store, onAppend: hooks.OnEvent}
	}
	return &d
}

// notifyingStore tells onAppend about every event once it is stored: a
// delegated turn's events reach the plugin through the same port that
// records them.
type notifyingStore struct {
	ports.ConversationStore
	onAppend func(conversation.Event)
}

func (s notifyingStore) Append(ctx context.Context, loc workspace.Location, id conversation.ID, evs ...conversation.Event) error {
	if err := s.ConversationStore.Append(ctx, loc, id, evs...); err != nil {
		return err
	}
	for _, ev := range evs {
		s.onAppend(ev)
	}
	return nil
}

// DelegatedInput is one delegated turn.
type DelegatedInput struct {
	// Loc is the addressed checkout; Config its resolved configuration.
	Loc    workspace.Location
	Config config.Config
	// Conversation is the conversation the turn continues.
	Conversation conversation.ID
	// Content, Schema and Author make the turn's chat_request.
	Content string
	Schema  json.RawMessage
	Author  string
	// Attachments are the query's attachment specs, read relative to
	// the checkout and confined to it.
	Attachments []string
	// Expected is the query's expected_last_root (nil when not sent).
	Expected *conversation.LastRoot
	// LockHeld is set when the plugin already holds the conversation's
	// lock: the turn runs under it.
	LockHeld bool
	// Started is called once the precondition passed, before the turn's
	// first event.
	Started func()
}

// ErrNotStarted wraps the errors of a delegated turn that never started
// (its Started was not called): the request is answered with an error.
var ErrNotStarted = errors.New("the turn did not start")

// RunDelegated runs one Turn for a plugin: it takes the conversation lock
// (unless the plugin holds it), checks the last-root record under it
// (before any root is recorded or tool runs), then runs the
// same turn phases as jp query in the addressed checkout.
func (q *Query) RunDelegated(ctx context.Context, in DelegatedInput) (turn.End, error) {
	notStarted := func(err error) (turn.End, error) {
		return turn.EndUnknown, errors.Join(ErrNotStarted, err)
	}
	if !in.LockHeld {
		release, err := q.lock(ctx, in.Loc, in.Conversation)
		if err != nil {
			return notStarted(err)
		}
		defer func() { _ = release() }()
	}
	sum, err := q.store.Get(ctx, in.Loc, in.Conversation)
	if err != nil {
		return notStarted(err)
	}
	live := sum.LastRoot != nil && sum.LastRoot.Live != nil && *sum.LastRoot.Live
	if err := conversation.CheckLastRoot(in.Loc.Root, sum.LastRoot, live, in.Expected); err != nil {
		return notStarted(err)
	}
	history, err := q.history(ctx, in.Loc, in.Conversation)
	if err != nil {
		return notStarted(err)
	}
	// As jp q does, a conversation continues on the model it last used
	// unless the configuration names one.
	last := ""
	if in.Config.Assistant.Model.ID == "" {
		last = history.LastModel()
	}
	model, _, err := q.chooseModel(last, in.Config)
	if err != nil {
		return notStarted(err)
	}
	provider, err := q.providers.Provider(ctx, in.Config, model)
	if err != nil {
		if last != "" {
			msg := fmt.Sprintf("conversation %s last used %s: %v (or set assistant.model.id)", in.Conversation, last, err)
			return notStarted(&UserError{Msg: msg, Err: err})
		}
		return notStarted(&UserError{Msg: err.Error(), Err: err})
	}
	rs := &runState{loc: in.Loc, id: in.Conversation, cfg: in.Config, model: model, provider: provider,
		approvals: run.NewApprovals(), chrome: map[string]bool{}, history: history}
	if rs.params, err = modelParams(in.Config); err != nil {
		return notStarted(err)
	}
	attached, err := q.delegatedAttachments(ctx, in)
	if err != nil {
		return notStarted(err)
	}
	if err := checkImages(model, attached); err != nil {
		return notStarted(err)
	}
	in.Started()
	end, err := q.runTurnPhases(ctx, rs, turn.Request{Root: in.Loc.Root, Content: in.Content, Author: in.Author, Schema: in.Schema, Attachments: attached})
	if ferr := q.printer.Flush(); err == nil {
		err = ferr
	}
	return end, err
}
