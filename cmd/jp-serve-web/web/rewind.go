package web

import (
	"context"
	"net/http"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// Rewind and the trust question of the conversation and checkout pages:
// jp's rewind and trust requests (docs/plugins.md), addressed to the
// checkout the page views.

// rewindRequest is the body of POST /api/rewind.
type rewindRequest struct {
	Workspace    string `json:"workspace"`
	Root         string `json:"root"`
	Conversation string `json:"conversation"`
	Turn         int    `json:"turn"`
	DryRun       bool   `json:"dry_run"`
}

// apiRewind restores the files the conversation's tools changed after
// turn and forks the conversation there, as jp conversation rewind does,
// or (dry_run) says what that would do. The answer is jp's rewound.
func (s *Server) apiRewind(w http.ResponseWriter, r *http.Request) {
	var q rewindRequest
	if !readJSON(w, r, &q) {
		return
	}
	ref, ok := conversationRef(w, q.Workspace, q.Root, q.Conversation)
	if !ok {
		return
	}
	if q.Turn < 0 {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "turn counts from 1 (0 undoes every turn)"})
		return
	}
	if s.turns.runningOn(q.Workspace, q.Conversation) != "" {
		writeJSON(w, http.StatusConflict, apiError{Error: "a turn is running on this conversation: rewind it when the turn is over"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	rw, err := s.host.Rewind(ctx, ref, q.Conversation, q.Turn, q.DryRun)
	if err != nil {
		s.hostFailed(w, "rewind the conversation", err)
		return
	}
	if rw.Files == nil {
		rw.Files = []plugin.RewoundFile{}
	}
	if rw.Conflicts == nil {
		rw.Conflicts = []plugin.RewoundFile{}
	}
	rw.ID = ""
	writeJSON(w, http.StatusOK, rw)
}

// trustRequest is the body of POST /api/trust.
type trustRequest struct {
	Workspace string `json:"workspace"`
	Root      string `json:"root"`
	// Hash is the review's the page showed (GET /api/trust): jp trusts
	// only that configuration.
	Hash string `json:"hash"`
}

// apiTrustState answers whether the checkout is trusted and what its
// configuration holds that runs or sends (jp's trust with dry_run).
func (s *Server) apiTrustState(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.trust(w, r, q.Get("workspace"), q.Get("root"), true, "")
}

// apiTrust trusts the checkout, as jp workspace trust does; the page asks
// the user first.
func (s *Server) apiTrust(w http.ResponseWriter, r *http.Request) {
	var q trustRequest
	if !readJSON(w, r, &q) {
		return
	}
	if q.Hash == "" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "hash is required: the review the user was shown (GET /api/trust)"})
		return
	}
	s.trust(w, r, q.Workspace, q.Root, false, q.Hash)
}

// trust asks jp to review (dryRun) or trust the checkout and answers jp's
// trusted.
func (s *Server) trust(w http.ResponseWriter, r *http.Request, ws, root string, dryRun bool, hash string) {
	ref := workspace.Ref{ID: ws, Root: root}
	if _, err := workspace.ValidateRef(ref); err != nil || root == "" {
		msg := "root is required: the checkout to trust"
		if err != nil {
			msg = err.Error()
		}
		writeJSON(w, http.StatusBadRequest, apiError{Error: msg})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	var t plugin.Trusted
	var err error
	if dryRun {
		t, err = s.host.Trust(ctx, ref, true)
	} else {
		t, err = s.host.TrustShown(ctx, ref, hash)
	}
	if err != nil {
		s.hostFailed(w, "trust the checkout", err)
		return
	}
	if t.Held == nil {
		t.Held = []plugin.HeldKey{}
	}
	t.ID = ""
	writeJSON(w, http.StatusOK, t)
}
