package web

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// keepFinished is how many finished turns stay replayable (a page that
// reconnects after the end still gets the whole turn).
const keepFinished = 64

// viewEvent is one server-sent event of a turn, as the page script reads
// it.
type viewEvent struct {
	// Kind is delta (streamed text), event (a stored conversation event,
	// rendered), approval (a tool approval question, rendered), answered
	// (an approval was answered: Outcome is the action), notice, or
	// complete (the last).
	Kind      string                 `json:"kind"`
	Type      string                 `json:"type,omitempty"`
	ID        string                 `json:"id,omitempty"`
	Text      string                 `json:"text,omitempty"`
	Reasoning bool                   `json:"reasoning,omitempty"`
	HTML      string                 `json:"html,omitempty"`
	CallID    string                 `json:"call_id,omitempty"`
	Outcome   string                 `json:"outcome,omitempty"`
	Error     string                 `json:"error,omitempty"`
	LastRoot  *conversation.LastRoot `json:"last_root,omitempty"`
}

// turn is a delegated turn the server follows: its stream is pumped into
// a replayable log of view events, which any number of event-stream
// requests read.
type turn struct {
	id   string
	ref  workspace.Ref // where it runs
	conv string

	mu        sync.Mutex
	log       [][]byte // JSON of each viewEvent
	done      bool
	changed   chan struct{}   // closed and replaced on every change
	approvals map[string]bool // call_id -> answered
}

func (t *turn) add(v viewEvent) {
	b, err := json.Marshal(v)
	if err != nil { // every field marshals; keep the page informed anyway
		b = []byte(`{"kind":"notice","text":"an event could not be encoded"}`)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	t.log = append(t.log, b)
	if v.Kind == "complete" {
		t.done = true
	}
	close(t.changed)
	t.changed = make(chan struct{})
}

// since returns the events from index i, whether the turn ended, and a
// channel closed at the next change.
func (t *turn) since(i int) ([][]byte, bool, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i > len(t.log) {
		i = len(t.log)
	}
	return t.log[i:], t.done, t.changed
}

// turnHub owns the turns and the goroutines that pump them.
type turnHub struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	byID     map[string]*turn
	running  map[string]*turn // by workspace ID and conversation
	finished []string
}

func newTurnHub() *turnHub {
	ctx, cancel := context.WithCancel(context.Background())
	return &turnHub{ctx: ctx, cancel: cancel, byID: map[string]*turn{}, running: map[string]*turn{}}
}

func runKey(ws, conv string) string { return ws + "/" + conv }

// stop ends every pump and waits for them.
func (h *turnHub) stop() {
	h.cancel()
	h.wg.Wait()
}

func (h *turnHub) get(id string) *turn {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byID[id]
}

// runningOn is the id of the turn running on a conversation, "" when
// none.
func (h *turnHub) runningOn(ws, conv string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t := h.running[runKey(ws, conv)]; t != nil {
		return t.id
	}
	return ""
}

// start registers a turn and starts its pump; false when the hub stopped.
func (h *turnHub) start(ref workspace.Ref, conv string, pump func(*turn)) (*turn, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ctx.Err() != nil {
		return nil, false
	}
	// Random, not sequential: a turn's ID addresses its events and its
	// approvals, so it must not be guessable (128 bits).
	t := &turn{id: newSecret(16), ref: ref, conv: conv, changed: make(chan struct{}), approvals: map[string]bool{}}
	h.byID[t.id] = t
	h.running[runKey(ref.ID, conv)] = t
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		pump(t)
		h.finish(t)
	}()
	return t, true
}

// finish moves a turn to the finished ones, forgetting the oldest.
func (h *turnHub) finish(t *turn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.running[runKey(t.ref.ID, t.conv)] == t {
		delete(h.running, runKey(t.ref.ID, t.conv))
	}
	h.finished = append(h.finished, t.id)
	for len(h.finished) > keepFinished {
		delete(h.byID, h.finished[0])
		h.finished = h.finished[1:]
	}
}

// queryRequest is the body of POST /api/query.
type queryRequest struct {
	Workspace        string                 `json:"workspace"`
	Root             string                 `json:"root"`
	Conversation     string                 `json:"conversation"`
	Content          string                 `json:"content"`
	ExpectedLastRoot *conversation.LastRoot `json:"expected_last_root"`
	// DraftRevision, when set, is the revision of the conversation's
	// draft the page last saw: once the turn started, the draft is
	// emptied, unless it changed since (it is then left as it is).
	DraftRevision string `json:"draft_revision"`
}

// queryAnswer is the 200 answer of POST /api/query: the turn, and what
// became of the draft when the request named its revision.
type queryAnswer struct {
	Turn  string        `json:"turn"`
	Draft *draftOutcome `json:"draft,omitempty"`
}

// apiError is every API error answer: LastRoot is set on a refusal by the
// last-root precondition, Code is draft_changed when a draft was not
// written because it changed elsewhere.
type apiError struct {
	Error    string                 `json:"error"`
	Code     string                 `json:"code,omitempty"`
	LastRoot *conversation.LastRoot `json:"last_root,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// readJSON decodes a small JSON body strictly.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeJSON(w, http.StatusUnsupportedMediaType, apiError{Error: "send the request as application/json"})
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "bad request body: " + err.Error()})
		return false
	}
	return true
}

// apiQuery starts a delegated turn: 200 {turn} once jp answered
// query_started, 409 with jp's refusal (and the stored record when the
// last-root precondition refused), 400 for a bad request.
func (s *Server) apiQuery(w http.ResponseWriter, r *http.Request) {
	var q queryRequest
	if !readJSON(w, r, &q) {
		return
	}
	ref := workspace.Ref{ID: q.Workspace, Root: q.Root}
	if _, err := workspace.ValidateRef(ref); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return
	}
	if q.Root == "" && !isDefault(q.Workspace) {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "root is required: name the checkout to run in"})
		return
	}
	if _, err := conversation.ParseID(q.Conversation); err != nil {
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
		return
	}
	if strings.TrimSpace(q.Content) == "" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "the message is empty"})
		return
	}
	if msg := checkRevision(q.DraftRevision); msg != "" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: "draft_revision: " + msg})
		return
	}
	if q.ExpectedLastRoot != nil {
		q.ExpectedLastRoot.Live = nil // a derived flag; jp ignores it
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	st, err := s.host.Query(ctx, ref, plugin.Query{Conversation: q.Conversation, Content: q.Content, ExpectedLastRoot: q.ExpectedLastRoot})
	if err != nil {
		var he plugin.Error
		if errors.As(err, &he) {
			writeJSON(w, http.StatusConflict, apiError{Error: he.Message, LastRoot: he.LastRoot})
			return
		}
		s.log("query: " + err.Error())
		writeJSON(w, http.StatusBadGateway, apiError{Error: "jp could not start the turn: " + err.Error()})
		return
	}
	t, ok := s.turns.start(ref, q.Conversation, func(t *turn) { s.pump(t, st) })
	if !ok {
		st.Close()
		writeJSON(w, http.StatusServiceUnavailable, apiError{Error: "jp serve web is shutting down"})
		return
	}
	s.remember(r.Context(), q.Content)
	ans := queryAnswer{Turn: t.id}
	if q.DraftRevision != "" {
		// The turn started: the message is sent, and the draft it was
		// typed in is done with. Even when the page went away meanwhile.
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(r.Context()), requestTimeout)
		defer dcancel()
		ans.Draft = s.clearDraft(dctx, ref, q.Conversation, q.DraftRevision)
	}
	writeJSON(w, http.StatusOK, ans)
}

// pump turns a stream's pushes into view events until it ends or the
// server stops.
func (s *Server) pump(t *turn, st Stream) {
	defer st.Close()
	ctx := s.turns.ctx
	for {
		ev, err := st.Next(ctx)
		if err != nil {
			t.add(s.completion(ctx, t, st, err))
			return
		}
		t.add(s.viewOfPush(t, ev))
	}
}

// completion is the last view event: the outcome, and the record the
// turn left so the page's next send expects the right one.
func (s *Server) completion(ctx context.Context, t *turn, st Stream, err error) viewEvent {
	v := viewEvent{Kind: "complete"}
	var he plugin.Error
	switch {
	case errors.Is(err, io.EOF):
		res := st.Result()
		v.Outcome, v.Error = string(res.Outcome), res.Error
	case errors.As(err, &he):
		v.Outcome, v.Error = string(conversation.OutcomeError), he.Message
	case ctx.Err() != nil:
		v.Error = "jp serve web stopped while the turn ran"
		return v
	default:
		v.Outcome, v.Error = string(conversation.OutcomeError), err.Error()
	}
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	// Only the record is wanted: a page past the end carries it and no
	// event.
	if evs, err := s.host.ReadEventsPage(rctx, t.ref, t.conv, math.MaxInt32); err == nil {
		v.LastRoot = evs.LastRoot
	} else {
		s.log("read the record after a turn: " + err.Error())
	}
	return v
}

// viewOfPush maps one push of a turn to its view event.
func (s *Server) viewOfPush(t *turn, ev plugin.Event) viewEvent {
	switch typ := pluginsdk.DataType(ev); {
	case typ == plugin.DataChatResponseDelta:
		var d plugin.DeltaData
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			return viewEvent{Kind: "notice", Text: "jp sent a delta that could not be read: " + err.Error()}
		}
		return viewEvent{Kind: "delta", Text: d.Text, Reasoning: d.Reasoning}
	case typ == plugin.DataToolApproval || ev.Respond == plugin.RespondToolApproval:
		var a plugin.ApprovalData
		if err := json.Unmarshal(ev.Data, &a); err != nil || a.CallID == "" {
			return viewEvent{Kind: "notice", Text: fmt.Sprintf("jp asked for a tool approval that could not be read: %s", ev.Data)}
		}
		h, err := s.renderApproval(a)
		if err != nil {
			return viewEvent{Kind: "notice", Text: err.Error()}
		}
		t.mu.Lock()
		t.approvals[a.CallID] = false
		t.mu.Unlock()
		return viewEvent{Kind: "approval", CallID: a.CallID, HTML: string(h)}
	}
	var ce conversation.Event
	if err := eventcodec.Unmarshal(ev.Data, &ce); err != nil {
		return viewEvent{Kind: "notice", Text: "jp sent an event that could not be read: " + err.Error()}
	}
	h, err := s.renderEvent(ce)
	if err != nil {
		return viewEvent{Kind: "notice", Text: err.Error()}
	}
	v := viewEvent{Kind: "event", Type: ce.Type.String(), ID: ce.ID, HTML: string(h), CallID: ce.CallID}
	if ce.Type == conversation.EventTypeChatResponse && ce.Message == "" && ce.Reasoning != "" {
		v.Reasoning = true
	}
	return v
}

// apiTurnEvents streams a turn's view events as server-sent events, from
// the start or from after Last-Event-ID, until the turn completes, the
// page goes away or the server shuts down.
func (s *Server) apiTurnEvents(w http.ResponseWriter, r *http.Request) {
	t := s.turns.get(r.PathValue("turn"))
	if t == nil {
		writeJSON(w, http.StatusNotFound, apiError{Error: "no such turn (jp serve web was restarted, or the turn is long over): reload the page"})
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, apiError{Error: "streaming is not supported here"})
		return
	}
	next := 0
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		if n, err := strconv.Atoi(id); err == nil && n >= 0 {
			next = n + 1
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	for {
		evs, done, changed := t.since(next)
		for _, b := range evs {
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", next, b); err != nil {
				return
			}
			next++
		}
		fl.Flush()
		if done && len(evs) == 0 {
			return
		}
		if done {
			continue // what arrived with the end was written; end after it
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		case <-s.quit:
			return
		}
	}
}

// apiInterrupt stops a running turn.
func (s *Server) apiInterrupt(w http.ResponseWriter, r *http.Request) {
	t := s.turns.get(r.PathValue("turn"))
	if t == nil {
		writeJSON(w, http.StatusNotFound, apiError{Error: "no such turn"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	if err := s.host.Interrupt(ctx, t.ref, t.conv); err != nil {
		var he plugin.Error
		if errors.As(err, &he) {
			writeJSON(w, http.StatusConflict, apiError{Error: he.Message})
			return
		}
		writeJSON(w, http.StatusBadGateway, apiError{Error: "jp could not stop the turn: " + err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"interrupted": true})
}

// respondRequest is the body of POST /api/turns/{turn}/respond.
type respondRequest struct {
	CallID string `json:"call_id"`
	Action string `json:"action"`
}

// apiRespond answers a tool approval the turn asked, once.
func (s *Server) apiRespond(w http.ResponseWriter, r *http.Request) {
	t := s.turns.get(r.PathValue("turn"))
	if t == nil {
		writeJSON(w, http.StatusNotFound, apiError{Error: "no such turn"})
		return
	}
	var q respondRequest
	if !readJSON(w, r, &q) {
		return
	}
	if q.Action != "approve" && q.Action != "reject" {
		writeJSON(w, http.StatusBadRequest, apiError{Error: fmt.Sprintf("action must be approve or reject, not %q", q.Action)})
		return
	}
	t.mu.Lock()
	answered, asked := t.approvals[q.CallID]
	if asked && !answered {
		t.approvals[q.CallID] = true
	}
	done := t.done
	t.mu.Unlock()
	switch {
	case !asked:
		writeJSON(w, http.StatusNotFound, apiError{Error: fmt.Sprintf("this turn asked no approval for tool call %q", q.CallID)})
		return
	case answered:
		writeJSON(w, http.StatusConflict, apiError{Error: "this tool call was answered already"})
		return
	case done:
		writeJSON(w, http.StatusConflict, apiError{Error: "the turn is over"})
		return
	}
	if err := s.host.Respond(q.CallID, q.Action); err != nil {
		t.mu.Lock()
		t.approvals[q.CallID] = false // not sent: it can be answered again
		t.mu.Unlock()
		writeJSON(w, http.StatusBadGateway, apiError{Error: "jp could not take the answer: " + err.Error()})
		return
	}
	// Pages that follow the turn (or replay it after a reload) show the
	// question answered.
	t.add(viewEvent{Kind: "answered", CallID: q.CallID, Outcome: q.Action})
	writeJSON(w, http.StatusOK, map[string]string{"action": q.Action})
}
