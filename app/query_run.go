package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/run"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// The steps of Query.Run before its turns: the run's configuration (with
// the trust question), its state, model and attachments, then the message.

// pickOrFork is the conversation the run continues ("" for a new one),
// or, with --fork, its fork.
func (q *Query) pickOrFork(ctx context.Context, loc workspace.Location, in QueryInput) (conversation.ID, error) {
	existing, err := q.pickConversation(ctx, loc, in)
	if err == nil && in.Flags.Fork {
		existing, err = q.forkFor(ctx, loc, existing, in.Flags)
	}
	return existing, err
}

// runPrep is what Query.Run carries from its configuration to its turns.
type runPrep struct {
	res  config.Resolved
	src  ports.ConfigSource
	note string // the model choice's note (DemoHint, ...)
}

// prepareRun loads the run's configuration and builds its state: the
// model and its provider, the style, the attachments.
func (q *Query) prepareRun(ctx context.Context, in QueryInput, opened Opened, existing conversation.ID, layers []ports.ConfigLayer, history *turn.Transcript) (*runState, runPrep, error) {
	loc := opened.Location
	res, src, untrusted, err := q.runConfig(ctx, in, loc, layers)
	if err != nil {
		return nil, runPrep{}, err
	}
	rs := &runState{loc: loc, cfg: res.Config, trust: res.Trust, configSrc: src, approvals: run.NewApprovals(), chrome: map[string]bool{}, userConfigDir: in.UserConfigDir}
	if in.Auto != "" {
		m, err := config.ParseAutoMode(in.Auto)
		if err != nil {
			return nil, runPrep{}, &UsageError{Msg: "--auto: " + err.Error()}
		}
		rs.cfg.Conversation.Tools.Auto = m
	}
	q.interrupts.SetCooldown(rs.cfg.Interrupt.EscalationCooldown())
	if untrusted != "" {
		q.chromeLine(rs, untrusted)
	}
	if opened.FirstDefault && !in.NoPersist && !in.sessionTurn {
		q.chromeLine(rs, fmt.Sprintf("Not in a jp workspace: conversations go to the default workspace, %s (jp init makes this directory a workspace).", opened.DefaultDir))
	}
	if rs.params, err = modelParams(rs.cfg); err != nil {
		return nil, runPrep{}, err
	}
	rs.hideReasoning, rs.schema, rs.compact = in.HideReasoning, in.Schema, in.Compact
	q.applyStyle(rs, in)
	if len(in.Schema) > 0 && !json.Valid(in.Schema) {
		return nil, runPrep{}, &UsageError{Msg: "--schema: not valid JSON (give a JSON Schema object, or a file holding one)"}
	}
	rs.history = history
	note, err := q.runModel(ctx, rs, in, existing)
	if err != nil {
		return nil, runPrep{}, err
	}
	if err := q.runAttachments(ctx, rs, in); err != nil {
		return nil, runPrep{}, err
	}
	return rs, runPrep{res: res, src: src, note: note}, nil
}

// runConfig loads the run's configuration: the files, the conversation's
// layers and the command line. An untrusted checkout's configuration is
// offered for trust once (a session asks at its first turn); untrusted is
// the notice when it stays held back.
func (q *Query) runConfig(ctx context.Context, in QueryInput, loc workspace.Location, layers []ports.ConfigLayer) (res config.Resolved, src ports.ConfigSource, untrusted string, err error) {
	overrides := in.Overrides
	if in.Model != "" {
		overrides = append(slices.Clone(overrides), modelOverride(in.Model))
	}
	src = ports.ConfigSource{
		UserConfigDir: in.UserConfigDir, WorkspaceRoot: loc.Root, LaunchDir: in.LaunchDir,
		Env: in.Environ, Conversation: layers, Overrides: overrides, AskTrust: true,
	}
	if res, err = q.config.Load(ctx, src); err != nil || !res.Trust.Ignored() {
		return res, src, "", err
	}
	prompter := q.prompter
	if in.sessionTurn {
		prompter = nil
	}
	trusted, err := askTrust(ctx, prompter, q.trust, res.Trust)
	if err != nil {
		return res, src, "", err
	}
	if trusted {
		if res, err = q.config.Load(ctx, src); err != nil {
			return res, src, "", err
		}
	}
	if res.Trust.Ignored() {
		untrusted = res.Trust.Notice()
	}
	return res, src, untrusted, nil
}

// runModel picks the run's model (the flag, else a continued
// conversation's last model when the configuration names none) and makes
// its provider; it returns the choice's note.
func (q *Query) runModel(ctx context.Context, rs *runState, in QueryInput, existing conversation.ID) (string, error) {
	last := ""
	if existing != "" && in.Model == "" && rs.cfg.Assistant.Model.ID == "" {
		last = rs.history.LastModel()
	}
	model, note, err := q.chooseModel(cmp.Or(in.Model, last), rs.cfg)
	if err != nil {
		return "", err
	}
	rs.model = model
	rs.provider, err = q.providers.Provider(ctx, rs.cfg, model)
	if err != nil {
		if last != "" {
			msg := fmt.Sprintf("conversation %s last used %s: %v (or pick another model with --model)", existing, last, err)
			return "", &UserError{Msg: msg, Err: err}
		}
		return "", &UserError{Msg: err.Error(), Err: err}
	}
	return note, nil
}

// runAttachments reads the run's attachments (the sticky ones recorded
// for the conversation) and checks the model takes their images.
func (q *Query) runAttachments(ctx context.Context, rs *runState, in QueryInput) error {
	leftOut := func(line string) { q.chromeLine(rs, line) }
	readIn := in
	rs.stickyAttach, readIn.Attach = stickyAttach(rs.loc, in, rs.cfg.Conversation.Attachments, leftOut)
	var err error
	if rs.attached, err = q.attachments(ctx, rs.loc, rs.cfg, readIn, leftOut); err != nil {
		return err
	}
	rs.attached = append(rs.attached, in.attached...)
	return checkImages(rs.model, rs.attached)
}

// runMsg is the run's message, or done when there is nothing to send
// (abandoned, or empty: its line is printed).
type runMsg struct {
	text        string
	fromCompose bool
	in          QueryInput      // in, seeded by --replay or a quote
	res         config.Resolved // the configuration, as the editor's meta section left it
	done        bool
}

// runMessage gets the message (the argument, stdin or the editor), renders
// a template, checks its size and applies configuration edited in the
// editor's meta section.
func (q *Query) runMessage(ctx context.Context, rs *runState, in QueryInput, existing conversation.ID, prep runPrep) (runMsg, error) {
	var err error
	if in.Flags.Replay {
		if in, err = q.replaySeed(ctx, rs, existing, in); err != nil {
			return runMsg{}, err
		}
	}
	in = q.quoteSeed(rs, in)
	loc := rs.loc
	text, fromCompose, composedDoc, err := q.message(ctx, rs, loc, existing, prep.res.Tree, in)
	fromCompose = fromCompose || in.Composed
	if errors.Is(err, errAbandoned) {
		return runMsg{done: true}, nil // its one line is printed
	}
	if err == nil && in.Flags.Template {
		var rendered string
		if rendered, err = renderTemplate(text, rs.cfg); err != nil && fromCompose {
			q.keepAbandoned(ctx, loc, existing, text) // what was typed is not lost
		}
		text = rendered
	}
	if err != nil {
		return runMsg{}, err
	}
	if strings.TrimSpace(text) == "" {
		q.chromeLine(rs, "Nothing to send: the message is empty (any draft was kept).")
		return runMsg{done: true}, nil
	}
	if err := conversation.CheckSize("the message", text, rs.cfg.Conversation.Limits.MessageBytes, "conversation.limits.message_bytes"); err != nil {
		return runMsg{}, &UserError{Msg: err.Error(), Err: err}
	}
	res := prep.res
	if edited := editorConfigChanged(composedDoc, rs.preamble); edited != "" {
		if res, err = q.applyEditorConfig(ctx, rs, prep.src, edited, existing, composedDoc); err != nil {
			return runMsg{}, err
		}
	}
	return runMsg{text: text, fromCompose: fromCompose, in: in, res: res}, nil
}

// createFor creates the run's new conversation, titled from text, and
// locks it; a --tmp one gets its expiry. On a lock failure a --tmp
// conversation is removed again.
func (q *Query) createFor(ctx context.Context, loc workspace.Location, in QueryInput, text string) (conversation.ID, func() error, error) {
	id, err := q.store.Create(ctx, loc, ports.NewConversation{Title: titleFrom(text), Local: in.Local || in.Tmp})
	if err != nil {
		return "", nil, err
	}
	release, err := q.lock(ctx, loc, id)
	if err != nil {
		if in.Tmp {
			_ = q.store.Remove(context.WithoutCancel(ctx), loc, id)
		}
		return "", nil, err
	}
	if in.Tmp {
		if err := q.setExpiry(ctx, loc, id, in.TmpFor); err != nil {
			_ = release()
			return id, nil, err
		}
	}
	return id, release, nil
}
