package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Session runs session mode (docs/session.md): a turn as jp q runs it,
// then the composer again, until an empty submit, Ctrl-D, Ctrl-C twice,
// /quit, a turn that fails, or a shutdown. Each message is sent by Run
// exactly as jp q sends it, so a session stores nothing a jp q does not.
//
// force (jp chat, jp q --loop) is session mode whatever query.loop says;
// without it the first turn runs as jp q, and the session goes on only
// when that turn's configuration says query.loop = "always".
func (q *Query) Session(ctx context.Context, in QueryInput, force bool) (QueryResult, error) {
	if force && in.NoPersist {
		return QueryResult{}, &UsageError{Msg: "--no-persist keeps a conversation for one turn, and a session needs it across turns: use --tmp for a session that is removed afterwards"}
	}
	s := &session{q: q, base: in}
	var res QueryResult
	if !force || in.HasMessage || in.NoEdit || !q.prompter.Interactive() {
		var err error
		res, err = q.Run(ctx, in)
		if err != nil || !s.goesOn(ctx, res, force) {
			return res, err
		}
		s.next = s.after(res)
	} else {
		s.next = in
	}
	for {
		out, done, err := s.step(ctx)
		if out.Conversation != "" || out.Sent {
			res = out
		}
		if err != nil || done {
			return res, err
		}
	}
}

// session is the state of one session between its turns.
type session struct {
	q    *Query
	base QueryInput // the command line's input
	next QueryInput // what the next message is sent with
	seed string     // text the next compose starts with (a command that failed)
	// edit opens the next compose in the external editor (/edit).
	edit bool
	// turns counts the turns this session sent.
	turns int
	// short caches the header's short ID of one conversation: listing
	// every conversation's metadata is paid once per conversation the
	// session switches to, not once per message.
	short struct{ id, short string }
}

// goesOn says whether the session continues after a turn that ended as res.
func (s *session) goesOn(ctx context.Context, res QueryResult, force bool) bool {
	if ctx.Err() != nil || !res.Sent || s.base.NoPersist {
		return false
	}
	if !force && res.Loop != config.LoopPolicyAlways {
		return false
	}
	s.turns++
	return true
}

// after is the input of the turn after one sent in res's conversation:
// the same conversation, and none of the first turn's one-time flags.
func (s *session) after(res QueryResult) QueryInput {
	in := s.base
	in.Conversation, in.New, in.Local, in.Tmp, in.TmpFor = string(res.Conversation), false, false, false, 0
	in.Message, in.HasMessage, in.Edit, in.Composed = "", false, false, false
	in.Schema, in.Attach, in.Stdin, in.HasStdin, in.Compact = nil, nil, "", false, nil
	in.Flags = QueryFlags{HideToolCalls: in.Flags.HideToolCalls}
	in.sessionTurn = true
	return in
}

// step composes one message and sends it, or runs a slash command. done
// ends the session.
func (s *session) step(ctx context.Context) (QueryResult, bool, error) {
	q := s.q
	info, err := s.peek(ctx)
	if err != nil {
		return QueryResult{}, true, err
	}
	seed, hadDraft := s.seed, false
	s.seed = ""
	if seed == "" && info.id != "" {
		if d, err := q.drafts.ReadDraft(ctx, info.loc, info.id); err == nil {
			seed, hadDraft = draft.Parse(d.Text).Query(), true
		}
	}
	edited := s.edit
	req := s.composeRequest(ctx, info, seed)
	text, err := q.compose(ctx, req)
	text = draft.Parse(text).Query()
	if edited && ctx.Err() == nil && (err != nil && !errors.Is(err, ports.ErrInterrupted) || err == nil && strings.TrimSpace(text) == "") {
		// /edit: an editor that failed, quit or saved nothing is back to
		// the composer, with the text it started from.
		if err != nil {
			q.chromeNote("/edit: " + err.Error())
		}
		s.seed = seed
		return QueryResult{}, false, nil
	}
	if err != nil {
		return QueryResult{}, true, s.composeFailed(ctx, info, err, text, seed, hadDraft)
	}
	if strings.TrimSpace(text) == "" {
		if hadDraft && info.id != "" {
			// The draft was emptied: there is nothing left to keep.
			if derr := q.drafts.DeleteDraft(context.WithoutCancel(ctx), info.loc, info.id); derr != nil && !errors.Is(derr, ports.ErrNotFound) {
				return QueryResult{}, true, derr
			}
		}
		return QueryResult{}, true, nil
	}
	if cmd, ok := parseSlash(text); ok {
		done, err := s.runCommand(ctx, info, cmd, text)
		return QueryResult{}, done, err
	}
	return s.send(ctx, info, text)
}

// composeRequest is the composer's request for the next message: seeded
// with seed, autosaved as the conversation's draft (a /cfg line never is),
// in the editor after /edit.
func (s *session) composeRequest(ctx context.Context, info sessionInfo, seed string) ports.ComposeRequest {
	q := s.q
	req := ports.ComposeRequest{
		Purpose: "query", Initial: seed, Session: true, Header: info.header(q.clock.Now()),
		History: info.history, Commands: SessionCommands, Root: info.loc.Root,
		NoEditor: true, Editor: info.cfg.Editor.Cmd,
	}
	if s.edit {
		req.InEditor, req.FallbackInline, s.edit = true, true, false
	}
	if info.id != "" {
		loc, id := info.loc, info.id
		req.Autosave = func(text string) {
			// A /cfg line may hold a secret being typed: it is never
			// written to disk (the command keeps no text either).
			if t := strings.TrimSpace(text); t != "" && !strings.HasPrefix(t, "/cfg") {
				_ = q.keepDraft(context.WithoutCancel(ctx), loc, id, text)
			}
		}
	}
	return req
}

// composeFailed ends the session after the composer failed (Ctrl-D,
// Ctrl-C twice, a shutdown, no terminal), keeping what was typed and not
// sent as the draft; the error is for the caller when it is not one of
// those.
func (s *session) composeFailed(ctx context.Context, info sessionInfo, err error, text, seed string, hadDraft bool) error {
	q := s.q
	// What was typed and not sent is the draft.
	if strings.TrimSpace(text) != "" && (text != seed || !hadDraft) {
		q.keepAbandoned(ctx, info.loc, info.id, text)
	}
	if errors.Is(err, ports.ErrUnavailable) && s.turns == 0 {
		return err // a script step that does not fit says which
	}
	if errors.Is(err, ports.ErrCancelled) || errors.Is(err, ports.ErrInterrupted) || errors.Is(err, ports.ErrUnavailable) || ctx.Err() != nil {
		return nil
	}
	return err
}

// runCommand runs a slash command; done ends the session. A command that
// ran leaves no draft.
func (s *session) runCommand(ctx context.Context, info sessionInfo, cmd slash, text string) (done bool, err error) {
	q := s.q
	done = s.command(ctx, info, cmd, text)
	if s.seed == "" && info.id != "" {
		// The command ran: its text, autosaved while typed, is no
		// draft (a command that failed keeps it, to be fixed).
		if derr := q.drafts.DeleteDraft(context.WithoutCancel(ctx), info.loc, info.id); derr != nil && !errors.Is(derr, ports.ErrNotFound) {
			return true, derr
		}
	}
	return done, nil
}

// send sends text as the next turn (a leading "//" sends one slash).
func (s *session) send(ctx context.Context, info sessionInfo, text string) (QueryResult, bool, error) {
	q := s.q
	text = strings.TrimPrefix(text, "/") // "//..." sends a leading slash
	in := s.next
	in.Message, in.HasMessage, in.Composed = text, true, true
	in.attached = s.atAttachments(ctx, info, text)
	if q.sent != nil {
		if err := q.sent.Add(ctx, text); err != nil && q.Log != nil {
			q.Log.Debug("message history not written", "err", err) // never the text
		}
	}
	res, err := q.Run(ctx, in)
	if err != nil {
		return res, true, err
	}
	if !res.Sent {
		return res, true, nil
	}
	s.turns++
	if ctx.Err() != nil {
		return res, true, nil
	}
	if res.End != turn.EndCompleted {
		q.chromeNote(fmt.Sprintf("The turn ended %s: the session goes on (Ctrl-D ends it).", res.End))
	}
	s.next = s.after(res)
	return res, false, nil
}

// sessionInfo is what the composer's header says and what completion
// offers: where the next message goes.
type sessionInfo struct {
	loc        workspace.Location
	id         conversation.ID // "" when the next message starts a conversation
	short      string          // the shortest prefix of id that names it alone (jp c ls's)
	title      string
	model      string
	meter      llm.ContextMeter
	lastActive time.Time
	cfg        config.Config
	history    []string // this conversation's messages, then the user's recent ones
}

// shortID is the shortest prefix of id that names it alone among loc's
// conversations (jp c ls's short ID), or the whole ID when it is not
// listed.
func (s *session) shortID(ctx context.Context, loc workspace.Location, id conversation.ID) string {
	if s.short.id == string(id) {
		return s.short.short
	}
	short := string(id)
	list, err := s.q.store.List(ctx, loc)
	if err != nil {
		return short // not cached: the next message asks again
	}
	ids := make([]conversation.ID, len(list))
	for i, c := range list {
		ids[i] = c.ID
	}
	if sh, ok := conversation.ShortIDs(ids, shortIDMin)[id]; ok {
		short = sh
	}
	s.short.id, s.short.short = string(id), short
	return short
}

// peek finds the conversation the next message goes to, the model it
// would use and the size of its next request, without locking it.
func (s *session) peek(ctx context.Context) (sessionInfo, error) {
	q, in := s.q, s.next
	opened, err := q.ws.OpenOrDefault(ctx, in.Target, in.LaunchDir, false)
	if err != nil {
		return sessionInfo{}, err
	}
	info := sessionInfo{loc: opened.Location}
	if in.Conversation != "" {
		if info.id, err = resolveConversation(ctx, q.store, info.loc, in.Conversation); err != nil {
			return sessionInfo{}, err
		}
	} else if !in.New && !in.Local && !in.Tmp && !in.NoPersist {
		if info.id, err = activeConversation(ctx, q.store, info.loc); err != nil {
			return sessionInfo{}, err
		}
	}
	if info.id != "" {
		info.short = s.shortID(ctx, info.loc, info.id)
	}
	var recent []string
	if q.sent != nil {
		recent, _ = q.sent.Recent(ctx) // a history that cannot be read recalls nothing
	}
	overrides := in.Overrides
	if in.Model != "" {
		overrides = append(overrides[:len(overrides):len(overrides)], modelOverride(in.Model))
	}
	res, err := q.conversationConfig(ctx, info.loc, info.id, ConfigSources{UserConfigDir: in.UserConfigDir, LaunchDir: in.LaunchDir, Environ: in.Environ, Overrides: overrides})
	if err != nil {
		return sessionInfo{}, err
	}
	info.cfg = res.Config
	req := llm.Request{System: info.cfg.SystemPrompt()}
	last := ""
	if info.id != "" {
		sum, err := q.store.Get(ctx, info.loc, info.id)
		if err != nil {
			return sessionInfo{}, userNotFound(err)
		}
		info.title, info.lastActive = sum.Metadata.Title, sum.Metadata.LastActivatedAt
		h, err := q.history(ctx, info.loc, info.id)
		if err != nil {
			return sessionInfo{}, err
		}
		last = h.LastModel()
		req.Messages = h.Messages()
		for _, m := range h.RawMessages() {
			if m.Role == llm.RoleUser && strings.TrimSpace(m.Text) != "" && m.ToolCallID == "" {
				info.history = append(info.history, m.Text)
			}
		}
	}
	// Up walks this conversation's messages first, then the recent ones
	// of every conversation: the recent ones go first in the list (Up
	// reaches them last).
	info.history = append(recent, info.history...)
	if in.Model != "" || info.cfg.Assistant.Model.ID != "" {
		last = ""
	}
	if m, _, err := q.chooseModel(firstNonEmpty(in.Model, last), info.cfg); err == nil {
		info.model = m.String()
		info.meter = meterOf(info.cfg, m, req)
	} else {
		info.model = "(" + err.Error() + ")"
	}
	return info, nil
}

// header is the composer's first line: "title · 1234 · model · ctx
// 1.2k/200k · 3 h ago" (the age when the conversation was last active over
// an hour ago).
func (i sessionInfo) header(now time.Time) string {
	var parts []string
	switch {
	case i.id == "":
		parts = append(parts, "new conversation")
	case i.title != "":
		parts = append(parts, i.title, i.short)
	default:
		parts = append(parts, i.short)
	}
	parts = append(parts, i.model)
	if i.id != "" || i.meter.Window > 0 {
		parts = append(parts, i.meter.String())
	}
	if !i.lastActive.IsZero() && now.Sub(i.lastActive) > time.Hour {
		parts = append(parts, "last active "+ago(now.Sub(i.lastActive)))
	}
	return strings.Join(parts, " · ")
}

// ago says how long ago d was, in its largest unit.
func ago(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
	case d >= 2*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d/time.Hour))
	}
	return "an hour ago"
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
