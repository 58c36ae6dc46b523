package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// The message box of a conversation page is the conversation's draft:
// QUERY_MESSAGE.md in its user-local directory, the file jp q -i ID opens
// in its composer. The page starts from it and saves into it as the user
// types, always naming the revision it last saw, so a draft changed
// elsewhere (a terminal) is never overwritten.

// codeDraftChanged is the code of a 409 answer (and of a draft outcome)
// when jp's draft changed since the revision the page sent.
const codeDraftChanged = "draft_changed"

// errDraftChanged: the draft is no longer at the revision the page named.
var errDraftChanged = errors.New("the conversation's draft changed since this page read it (in a terminal?), so it was left as it is: reload the page to see it")

// maxRevision bounds a revision from a page (jp's are short hex strings).
const maxRevision = 256

// draftState is the draft a conversation page starts from.
type draftState struct {
	Text     string `json:"text"`
	Revision string `json:"revision"`
}

// draftRequest is the body of PUT /api/draft.
type draftRequest struct {
	Workspace    string  `json:"workspace"`
	Root         string  `json:"root"`
	Conversation string  `json:"conversation"`
	Text         *string `json:"text"`
	Revision     string  `json:"revision"`
}

// draftOutcome says what became of the draft when a sent message started
// a turn: emptied (at Revision), or kept (Code draft_changed when it had
// changed elsewhere, else Error says why jp could not empty it).
type draftOutcome struct {
	Cleared  bool   `json:"cleared"`
	Revision string `json:"revision,omitempty"`
	Code     string `json:"code,omitempty"`
	Error    string `json:"error,omitempty"`
}

// checkAddress validates a request's workspace, checkout root and
// conversation, answering 400 with one line when they are not usable.
func checkAddress(w http.ResponseWriter, ws, root, conv string) (workspace.Ref, bool) {
	ref := workspace.Ref{ID: ws, Root: root}
	if _, err := workspace.ValidateRef(ref); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return ref, false
	}
	if root == "" && !isDefault(ws) {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "root is required: name the checkout"})
		return ref, false
	}
	if _, err := conversation.ParseID(conv); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return ref, false
	}
	return ref, true
}

// checkRevision refuses a revision jp cannot have given.
func checkRevision(rev string) string {
	if len(rev) > maxRevision || strings.ContainsFunc(rev, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return "revision is not one jp gave: send the revision of the last draft read or written (\"\" when there was none)"
	}
	return ""
}

// apiDraft saves the message box into jp's draft: 200 {revision} with the
// new revision; 409 {error, code: "draft_changed"} when the draft is no
// longer at the revision sent (it changed elsewhere and was left as it
// is); 400 for a bad request; 502 when jp could not write it.
func (s *Server) apiDraft(w http.ResponseWriter, r *http.Request) {
	var q draftRequest
	if !readJSON(w, r, &q) {
		return
	}
	ref, ok := checkAddress(w, q.Workspace, q.Root, q.Conversation)
	if !ok {
		return
	}
	if q.Text == nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: `text is required ("" empties the draft)`})
		return
	}
	if msg := checkRevision(q.Revision); msg != "" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: msg})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	rev, err := s.saveDraft(ctx, ref, q.Conversation, *q.Text, q.Revision)
	switch {
	case errors.Is(err, errDraftChanged):
		writeJSON(w, http.StatusConflict, apiError{Error: err.Error(), Code: codeDraftChanged})
		return
	case err != nil:
		s.log("save the draft of " + q.Conversation + ": " + err.Error())
		writeJSON(w, http.StatusBadGateway, apiError{Error: "jp could not save the draft: " + hostMessage(err)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"revision": rev})
}

// saveDraft writes text as the draft's query text if the draft is still
// at revision, and returns the new revision. The revision "" stands for
// "no draft, or one without text": jp's write_draft has no "only if there
// is none", so the draft is read first and written only when it holds no
// text, at the revision just read (a write elsewhere between the two
// requests is the one race left). It returns errDraftChanged when the
// draft moved on; a draft that already holds text is not written again.
func (s *Server) saveDraft(ctx context.Context, ref workspace.Ref, conv, text, revision string) (string, error) {
	if revision == "" {
		cur, err := s.host.ReadDraft(ctx, ref, conv)
		switch {
		case err != nil:
			return "", err
		case cur.Text == text && cur.Revision != "":
			return cur.Revision, nil
		case cur.Text != "":
			return "", errDraftChanged
		}
		revision = cur.Revision // "" when there is no draft: written as is
	}
	rev, err := s.host.WriteDraft(ctx, ref, conv, text, revision)
	if err == nil {
		return rev, nil
	}
	var he plugin.Error
	if revision == "" || !errors.As(err, &he) {
		return "", err
	}
	// jp refused the write: a revision mismatch when the draft is at
	// another revision now (its message is for people; the revision is
	// what tells).
	cur, rerr := s.host.ReadDraft(ctx, ref, conv)
	switch {
	case rerr != nil || cur.Revision == revision:
		return "", err
	case cur.Text == text && cur.Revision != "":
		return cur.Revision, nil // a save whose answer the page missed
	}
	return "", errDraftChanged
}

// clearDraft empties the draft once a sent message started a turn,
// unless it changed since the revision the page knew.
func (s *Server) clearDraft(ctx context.Context, ref workspace.Ref, conv, revision string) *draftOutcome {
	rev, err := s.saveDraft(ctx, ref, conv, "", revision)
	switch {
	case err == nil:
		return &draftOutcome{Cleared: true, Revision: rev}
	case errors.Is(err, errDraftChanged):
		return &draftOutcome{Code: codeDraftChanged, Error: "the conversation's draft changed in another place (a terminal?) while this message was sent, so it was left as it is: reload the page to see it"}
	}
	s.log("empty the draft of " + conv + " after its turn started: " + err.Error())
	return &draftOutcome{Error: "jp could not empty the draft: " + hostMessage(err)}
}

// hostMessage is what jp said, without the request name of a
// plugin.Error.
func hostMessage(err error) string {
	var he plugin.Error
	if errors.As(err, &he) {
		return he.Message
	}
	return err.Error()
}
