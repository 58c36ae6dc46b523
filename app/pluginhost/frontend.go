package pluginhost

import (
	"context"
	"errors"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/turn"
)

// What a frontend (jp serve web) asks of the conversation it shows, as a
// terminal session has it: the context meter and compaction
// (docs/plugins.md). Multi-scope plugins only (router.go), each addressed
// to one checkout.

// contextMeter is jp conversation show's last line for a plugin: the
// conversation's history as the next request would carry it (compaction
// overlays applied) and the system prompt, against the window of the
// model the checkout's configuration names.
func (s *session) contextMeter(ctx context.Context, c *checkout, req plugin.ContextMeter) (plugin.Message, error) {
	id := conversation.ID(req.Conversation)
	if _, err := s.h.store.Get(ctx, c.loc, id); err != nil {
		return nil, err
	}
	t := turn.NewTranscript(0)
	if err := s.h.store.ScanEvents(ctx, c.loc, id, func(e conversation.Event) error {
		t.AddCopy(e)
		return nil
	}); err != nil {
		return nil, err
	}
	res, err := s.configFor(ctx, c)
	if err != nil {
		return nil, err
	}
	model := ""
	if res.Config.Assistant.Model.ID != "" {
		model, _ = res.Config.ResolveModel(res.Config.Assistant.Model.ID)
	}
	m := app.ContextMeterOf(res.Config, model, turn.EstimateTokens(t.Messages()))
	return plugin.Meter{ID: req.ID, Conversation: req.Conversation, Model: model, Tokens: m.Tokens, Window: m.Window}, nil
}

// compact is jp conversation compact without flags: the configured rules
// (conversation.compaction.rules, or the default rule), under the
// conversation's lock, with the configuration a turn in the checkout
// starts from. Nothing is removed: compaction appends overlays.
func (s *session) compact(ctx context.Context, c *checkout, req plugin.Compact) (plugin.Message, error) {
	res, err := s.h.query.Compact(ctx, app.CompactInput{
		Loc: c.loc, Conversation: conversation.ID(req.Conversation), Spec: app.CompactSpec{DryRun: req.DryRun},
		ConfigSources: app.ConfigSources{UserConfigDir: s.in.UserConfigDir, LaunchDir: c.loc.Root, Environ: s.in.Environ, Overrides: s.in.Overrides},
	})
	if err != nil {
		return nil, err
	}
	return plugin.Compacted{ID: req.ID, Conversation: req.Conversation, DryRun: req.DryRun, Added: len(res.Added),
		Turns: res.Turns, TokensBefore: res.TokensBefore, TokensAfter: res.TokensAfter}, nil
}

// errNoHistory answers the history requests when jp keeps no history.
var errNoHistory = errors.New("jp keeps no message history here")

// readHistory is the session's message history, the messages Up recalls
// in jp's composer (docs/session.md): machine-wide, so it names no
// checkout.
func (s *session) readHistory(ctx context.Context, req plugin.ReadHistory) (plugin.Message, error) {
	if s.h.history == nil {
		return nil, errNoHistory
	}
	msgs, err := s.h.history.Recent(ctx)
	if err != nil {
		return nil, err
	}
	if msgs == nil {
		msgs = []string{}
	}
	return plugin.History{ID: req.ID, Data: msgs}, nil
}

// addHistory records a message a frontend sent, as the terminal session
// records one (the history's own bounds apply).
func (s *session) addHistory(ctx context.Context, req plugin.AddHistory) (plugin.Message, error) {
	if s.h.history == nil {
		return nil, errNoHistory
	}
	if err := s.h.history.Add(ctx, req.Text); err != nil {
		return nil, err
	}
	return plugin.HistoryAdded{ID: req.ID}, nil
}
