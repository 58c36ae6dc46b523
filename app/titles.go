package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
)

// Generated titles (docs/configuration.md, "conversation.title"). When a
// conversation's first turn starts, jp q asks conversation.title.model
// (default: the conversation's model; "none": never) for a short title
// made from the first message, in the background, beside the answer: the
// answer never waits for it, queued turns go on, and the title is written
// as soon as it comes, while the run still holds the conversation's lock.
// The run never waits for it either: when the run ends, a title request
// still under way is cancelled, the goroutine is waited for (a cancelled
// request returns at once, so it never outlives the run nor its lock),
// and the conversation is marked title_pending in metadata.local.json;
// the next jp q on it asks again, beside its own turn, with the first
// exchange. A title the user set is never replaced: the generated one is
// written only while the title is still the one made from the first
// message. A failure leaves that title as it was and is logged (jp -v),
// never printed: the answer matters, the title does not.

// maxGeneratedTitle caps a generated title, in characters.
const maxGeneratedTitle = 80

// titlePrompt is the system prompt of a title request.
const titlePrompt = "You write titles for conversations. Answer with one short title (at most eight words) " +
	"that says what the conversation is about: no quotes, no trailing period, nothing else."

// titleJob is a title being generated in the background of a run.
type titleJob struct {
	ctx       context.Context // the run's, for the pending mark at its end
	cancel    context.CancelFunc
	done      chan struct{}
	fromMark  bool  // started because the conversation was marked title_pending
	cancelled bool  // set before done closes: the run ended before the title came
	err       error // set before done closes
}

// startTitle starts generating the title, beside the turn about to send
// text, when that turn is the conversation's first (text is its first
// message) or an earlier run left the title pending. It runs at most once
// per run.
func (q *Query) startTitle(ctx context.Context, rs *runState, text string) {
	if rs.title != nil || rs.noTitle {
		return
	}
	first, answer := rs.history.FirstExchange()
	fromMark := false
	if first != "" || rs.history.CompletedTurns() > 0 {
		lm, err := q.store.LocalMetadata(ctx, rs.loc, rs.id)
		if err != nil || !lm.TitlePending() {
			return
		}
		fromMark = true
	} else {
		first = text
	}
	model, on, err := titleModel(rs.cfg, rs.model)
	if !on {
		return
	}
	auto := titleFrom(first)
	loc, id, cfg := rs.loc, rs.id, rs.cfg
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	job := &titleJob{ctx: context.WithoutCancel(ctx), cancel: cancel, done: make(chan struct{}), fromMark: fromMark}
	rs.title = job
	go func() {
		defer close(job.done)
		if err == nil {
			err = q.writeTitle(tctx, cfg, loc, id, model, first, answer, auto)
		}
		job.err = err
		job.cancelled = err != nil && tctx.Err() != nil
		if err != nil && !job.cancelled && q.Log != nil {
			q.Log.Info("title not generated; the first message stays the title", "conversation", string(id), "err", err.Error())
		}
	}()
}

// finishTitle ends the run's title job without waiting for the model: it
// cancels a request still under way and waits for the goroutine to stop
// (a title already received is still written). A title that did not come
// in time is left to the next run (title_pending); one that came, or
// failed for good, clears that mark. It runs before the run releases the
// conversation's lock.
func (q *Query) finishTitle(rs *runState) {
	job := rs.title
	if job == nil {
		return
	}
	job.cancel()
	<-job.done
	if !job.cancelled && !job.fromMark {
		return
	}
	pending := job.cancelled
	err := q.store.UpdateLocalMetadata(job.ctx, rs.loc, rs.id, func(m *conversation.LocalMetadata) error {
		m.SetTitlePending(pending)
		return nil
	})
	if q.Log == nil {
		return
	}
	if err != nil {
		q.Log.Info("title pending mark not written", "conversation", string(rs.id), "err", err.Error())
	} else if pending {
		q.Log.Info("title not ready when the run ended; the next run asks for it", "conversation", string(rs.id))
	}
}

// writeTitle asks model for the title and writes it, unless the title is
// no longer keep (the one made from the first message). keep "" writes it
// whatever the title is (jp conversation title --generate).
func (q *Query) writeTitle(ctx context.Context, cfg config.Config, loc workspace.Location, id conversation.ID, model llm.ModelID, first, answer, keep string) error {
	title, err := q.askTitle(ctx, cfg, model, first, answer)
	if err != nil {
		return err
	}
	// Received is written, even when the run is ending meanwhile.
	return q.store.UpdateMetadata(context.WithoutCancel(ctx), loc, id, func(m *conversation.Metadata) error {
		if keep != "" && m.Title != keep {
			return nil // set by the user meanwhile
		}
		m.Title = title
		return nil
	})
}

// askTitle sends the title request and returns the sanitised title.
func (q *Query) askTitle(ctx context.Context, cfg config.Config, model llm.ModelID, first, answer string) (string, error) {
	if strings.TrimSpace(first) == "" {
		return "", errors.New("the conversation has no message to title")
	}
	p, err := q.providers.Provider(ctx, cfg, model)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	err = p.Stream(ctx, llm.Request{
		Model: model.Model, System: titlePrompt, Title: true,
		Messages: []llm.Message{{Role: llm.RoleUser, Text: titleInput(first, answer)}},
		Params:   llm.Params{MaxTokens: 64},
	}, func(e llm.Event) error {
		if e.Kind == llm.EventTextDelta && b.Len() < 4096 {
			b.WriteString(e.Text)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", model, err)
	}
	title := sanitizeTitle(b.String())
	if title == "" {
		return "", fmt.Errorf("%s answered no title", model)
	}
	return title, nil
}

// titleInput is the user message of a title request: the first message,
// then the start of the first answer.
func titleInput(first, answer string) string {
	const maxFirst, maxAnswer = 2000, 1000
	s := capRunes(strings.TrimSpace(first), maxFirst)
	if a := strings.TrimSpace(answer); a != "" {
		s += "\n\n---\nThe assistant answered:\n" + capRunes(a, maxAnswer)
	}
	return s
}

func capRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// sanitizeTitle makes a model's answer a title: its first non-empty line,
// without control characters, markdown heading marks, a "Title:" prefix,
// surrounding quotes or a trailing period, capped at maxGeneratedTitle
// characters.
func sanitizeTitle(s string) string {
	var line string
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	line = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, line)
	line = strings.Join(strings.Fields(line), " ")
	line = strings.TrimLeft(line, "#* ")
	if len(line) >= 6 && strings.EqualFold(line[:6], "title:") {
		line = strings.TrimSpace(line[6:])
	}
	line = strings.Trim(line, "\"'`*“”‘’ ")
	line = strings.TrimSuffix(line, ".")
	if r := []rune(line); len(r) > maxGeneratedTitle {
		line = strings.TrimSpace(string(r[:maxGeneratedTitle-1])) + "…"
	}
	return strings.TrimSpace(line)
}

// titleModel resolves conversation.title.model: on is false for "none";
// "" is the conversation's model.
func titleModel(cfg config.Config, convModel llm.ModelID) (llm.ModelID, bool, error) {
	raw := strings.TrimSpace(cfg.Conversation.Title.Model)
	switch raw {
	case config.TitleModelNone:
		return llm.ModelID{}, false, nil
	case "":
		return convModel, true, nil
	}
	resolved, err := cfg.ResolveModel(raw)
	if err != nil {
		return llm.ModelID{}, true, fmt.Errorf("conversation.title.model: %w", err)
	}
	m, err := llm.ParseModelID(resolved)
	if err != nil {
		return llm.ModelID{}, true, fmt.Errorf("conversation.title.model: %w", err)
	}
	return m, true, nil
}

// TitleInput is jp conversation title --generate.
type TitleInput struct {
	Loc          workspace.Location
	Conversation conversation.ID
	ConfigSources
}

// GenerateTitle asks conversation.title.model for the conversation's
// title now and writes it, whatever the title was (the user asked for
// it), under the conversation's lock. It returns the new title.
func (q *Query) GenerateTitle(ctx context.Context, in TitleInput) (string, error) {
	res, err := q.conversationConfig(ctx, in.Loc, in.Conversation, in.ConfigSources)
	if err != nil {
		return "", err
	}
	release, err := q.lock(ctx, in.Loc, in.Conversation)
	if err != nil {
		return "", err
	}
	defer func() { _ = release() }()
	h, err := q.history(ctx, in.Loc, in.Conversation)
	if err != nil {
		return "", userNotFound(err)
	}
	first, answer := h.FirstExchange()
	if strings.TrimSpace(first) == "" {
		return "", &UserError{Msg: fmt.Sprintf("conversation %s has no message to make a title from", in.Conversation)}
	}
	conv, _, err := q.chooseModel(h.LastModel(), res.Config)
	if err != nil {
		return "", err
	}
	model, on, err := titleModel(res.Config, conv)
	if !on {
		return "", &UserError{Msg: `conversation.title.model is "none": set it to a model (or leave it unset for the conversation's model) to generate titles`}
	}
	if err != nil {
		return "", &UserError{Msg: err.Error(), Err: err}
	}
	title, err := q.askTitle(ctx, res.Config, model, first, answer)
	if err != nil {
		return "", &UserError{Msg: "generate the title: " + err.Error(), Err: err}
	}
	err = q.store.UpdateMetadata(ctx, in.Loc, in.Conversation, func(m *conversation.Metadata) error {
		m.Title = title
		return nil
	})
	return title, err
}
