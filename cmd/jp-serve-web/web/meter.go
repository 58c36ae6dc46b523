package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// The context meter and Compact of the conversation page: jp's
// context_meter and compact requests (docs/plugins.md), addressed to the
// checkout the page views.

// meterAnswer is GET /api/meter's answer.
type meterAnswer struct {
	// Text is the meter as the terminal shows it ("ctx 1.2k/32k").
	Text   string `json:"text"`
	Model  string `json:"model,omitempty"`
	Tokens int    `json:"tokens"`
	Window int    `json:"window,omitempty"`
}

// conversationRef reads and checks the checkout and conversation a meter
// or compact request names; it writes the 400 and returns false when
// they are bad.
func conversationRef(w http.ResponseWriter, ws, root, conv string) (workspace.Ref, bool) {
	ref := workspace.Ref{ID: ws, Root: root}
	if _, err := workspace.ValidateRef(ref); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return ref, false
	}
	if _, err := conversation.ParseID(conv); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return ref, false
	}
	return ref, true
}

// hostFailed answers a failed request to jp: 409 with jp's refusal, 502
// when jp could not be asked.
func (s *Server) hostFailed(w http.ResponseWriter, what string, err error) {
	var he plugin.Error
	if errors.As(err, &he) {
		writeJSON(w, http.StatusConflict, apiError{Error: he.Message})
		return
	}
	s.log(what + ": " + err.Error())
	writeJSON(w, http.StatusBadGateway, apiError{Error: "jp could not " + what + ": " + err.Error()})
}

// apiMeter answers the conversation's context meter.
func (s *Server) apiMeter(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ref, ok := conversationRef(w, q.Get("workspace"), q.Get("root"), q.Get("conversation"))
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	m, err := s.host.ContextMeter(ctx, ref, q.Get("conversation"))
	if err != nil {
		s.hostFailed(w, "read the context meter", err)
		return
	}
	writeJSON(w, http.StatusOK, meterAnswer{Text: llm.ContextMeter{Tokens: m.Tokens, Window: m.Window}.String(), Model: m.Model, Tokens: m.Tokens, Window: m.Window})
}

// compactRequest is the body of POST /api/compact.
type compactRequest struct {
	Workspace    string `json:"workspace"`
	Root         string `json:"root"`
	Conversation string `json:"conversation"`
	DryRun       bool   `json:"dry_run"`
}

// compactAnswer is POST /api/compact's answer.
type compactAnswer struct {
	DryRun       bool `json:"dry_run,omitempty"`
	Added        int  `json:"added"`
	Turns        int  `json:"turns"`
	TokensBefore int  `json:"tokens_before"`
	TokensAfter  int  `json:"tokens_after"`
}

// apiCompact compacts the conversation by its configured rules, as jp
// conversation compact does without flags, or (dry_run) says what that
// would do.
func (s *Server) apiCompact(w http.ResponseWriter, r *http.Request) {
	var q compactRequest
	if !readJSON(w, r, &q) {
		return
	}
	ref, ok := conversationRef(w, q.Workspace, q.Root, q.Conversation)
	if !ok {
		return
	}
	if s.turns.runningOn(q.Workspace, q.Conversation) != "" {
		writeJSON(w, http.StatusConflict, apiError{Error: "a turn is running on this conversation: compact it when the turn is over"})
		return
	}
	// A summary rule asks a model: that can take longer than a page's
	// read.
	ctx, cancel := context.WithTimeout(r.Context(), 5*requestTimeout)
	defer cancel()
	c, err := s.host.Compact(ctx, ref, q.Conversation, q.DryRun)
	if err != nil {
		s.hostFailed(w, "compact the conversation", err)
		return
	}
	writeJSON(w, http.StatusOK, compactAnswer{DryRun: c.DryRun, Added: c.Added, Turns: c.Turns, TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter})
}
