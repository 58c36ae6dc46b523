package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// fakeHost is jp as the server's tests play it: canned answers, and a
// record of what was asked.
type fakeHost struct {
	mu         sync.Mutex
	workspaces []plugin.WorkspaceEntry
	convs      map[string][]plugin.ConversationSummary // by root
	events     map[string]plugin.Events                // by conversation
	err        error                                   // answers every read when set
	pageLimit  int                                     // events per read_events page (0: all that follow)
	pageReads  []int                                   // the offset of each page read

	queries    []queryCall
	queryFn    func(workspace.Ref, plugin.Query) (Stream, error)
	interrupts []interruptCall
	responds   []respondCall
	created    []createCall

	drafts      map[string]plugin.Draft // by conversation; no entry: no draft
	draftSeq    int                     // the last revision given
	draftErr    error                   // answers every draft request when set
	draftWrites []draftWrite

	config map[string]string // read_config answers (JSON) by path

	meter    plugin.Meter // context_meter's answer
	compacts []compactCall
	rewinds  []rewindCall
	trusts   []trustCall
	trusted  map[string]bool // checkout roots trusted
	// untrusted makes every checkout untrusted (holding one MCP server)
	// until trusted; otherwise every checkout is.
	untrusted bool
	history   []string // the message history, oldest first
}

type draftWrite struct {
	Ref                  workspace.Ref
	Conv, Text, Revision string
}

type queryCall struct {
	Ref   workspace.Ref
	Query plugin.Query
}
type interruptCall struct {
	Ref  workspace.Ref
	Conv string
}
type respondCall struct{ CallID, Action string }
type createCall struct {
	Ref   workspace.Ref
	Title string
}

func (f *fakeHost) ListWorkspaces(context.Context) ([]plugin.WorkspaceEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return append([]plugin.WorkspaceEntry(nil), f.workspaces...), nil
}

func (f *fakeHost) ListConversations(_ context.Context, ref workspace.Ref) ([]plugin.ConversationSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return f.convs[ref.Root], nil
}

func (f *fakeHost) ReadEvents(_ context.Context, _ workspace.Ref, conv string) (plugin.Events, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return plugin.Events{}, f.err
	}
	ev, ok := f.events[conv]
	if !ok {
		return plugin.Events{}, plugin.Error{Request: "read_events", Message: "conversation " + conv + " not found"}
	}
	return ev, nil
}

// ReadEventsPage answers as jp does: the stored events from offset on
// (at most pageLimit), the block in flight on the last page only.
func (f *fakeHost) ReadEventsPage(ctx context.Context, ref workspace.Ref, conv string, offset int) (plugin.Events, error) {
	ev, err := f.ReadEvents(ctx, ref, conv)
	if err != nil {
		return ev, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pageReads = append(f.pageReads, offset)
	stored := len(ev.Data)
	var last struct{ ID string }
	if stored > 0 && json.Unmarshal(ev.Data[stored-1], &last) == nil && strings.HasPrefix(last.ID, partialPrefix) {
		stored--
	}
	next, data := stored, ev.Data[min(offset, stored):]
	if offset > stored {
		data = nil
	}
	if f.pageLimit > 0 && len(data) > f.pageLimit {
		data, next, ev.More = data[:f.pageLimit], offset+f.pageLimit, true
	}
	ev.Data, ev.NextOffset = data, &next
	return ev, nil
}

func (f *fakeHost) CreateConversation(_ context.Context, ref workspace.Ref, title string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.created = append(f.created, createCall{ref, title})
	return "17127584511", nil
}

func (f *fakeHost) Query(_ context.Context, ref workspace.Ref, q plugin.Query) (Stream, error) {
	f.mu.Lock()
	f.queries = append(f.queries, queryCall{ref, q})
	fn := f.queryFn
	f.mu.Unlock()
	return fn(ref, q)
}

func (f *fakeHost) Interrupt(_ context.Context, ref workspace.Ref, conv string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.interrupts = append(f.interrupts, interruptCall{ref, conv})
	return nil
}

func (f *fakeHost) Respond(callID, action string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.responds = append(f.responds, respondCall{callID, action})
	return nil
}

// ReadDraft answers as jp does: text and revision, both "" without a
// draft.
func (f *fakeHost) ReadDraft(_ context.Context, _ workspace.Ref, conv string) (plugin.Draft, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.draftErr != nil {
		return plugin.Draft{}, f.draftErr
	}
	d := f.drafts[conv]
	d.Conversation = conv
	return d, nil
}

// WriteDraft answers as jp does: a new revision on every write, and with
// revision set, jp's refusal unless the draft is still at it.
func (f *fakeHost) WriteDraft(_ context.Context, ref workspace.Ref, conv, text, revision string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.draftWrites = append(f.draftWrites, draftWrite{ref, conv, text, revision})
	if f.draftErr != nil {
		return "", f.draftErr
	}
	if revision != "" && f.drafts[conv].Revision != revision {
		return "", plugin.Error{Request: "write_draft", Message: fmt.Sprintf("the draft is no longer at revision %s (it changed since it was read): read_draft again: revision mismatch", revision)}
	}
	return f.putDraft(conv, text), nil
}

// setDraft writes a draft as another jp (a terminal) would, returning
// its revision.
func (f *fakeHost) setDraft(conv, text string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.putDraft(conv, text)
}

func (f *fakeHost) putDraft(conv, text string) string {
	if f.drafts == nil {
		f.drafts = map[string]plugin.Draft{}
	}
	f.draftSeq++
	rev := fmt.Sprintf("r%d", f.draftSeq)
	f.drafts[conv] = plugin.Draft{Text: text, Revision: rev}
	return rev
}

// draft is the conversation's draft as the fake jp holds it.
func (f *fakeHost) draft(conv string) plugin.Draft {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.drafts[conv]
}

func (f *fakeHost) writes() []draftWrite {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]draftWrite(nil), f.draftWrites...)
}

// fakeStream is a delegated turn the test drives: push events, then end.
type fakeStream struct {
	items     chan streamItem
	closeOnce sync.Once
	closed    chan struct{}

	mu     sync.Mutex
	result plugin.QueryComplete
}

type streamItem struct {
	ev  plugin.Event
	err error
}

func newFakeStream() *fakeStream {
	return &fakeStream{items: make(chan streamItem, 64), closed: make(chan struct{})}
}

func (s *fakeStream) push(data string) { s.items <- streamItem{ev: plugin.Event{Data: []byte(data)}} }

func (s *fakeStream) ask(data string) {
	s.items <- streamItem{ev: plugin.Event{Data: []byte(data), Respond: plugin.RespondToolApproval}}
}

func (s *fakeStream) end(qc plugin.QueryComplete) {
	s.mu.Lock()
	s.result = qc
	s.mu.Unlock()
	s.items <- streamItem{err: io.EOF}
}

func (s *fakeStream) fail(err error) { s.items <- streamItem{err: err} }

func (s *fakeStream) Next(ctx context.Context) (plugin.Event, error) {
	select {
	case it := <-s.items:
		return it.ev, it.err
	case <-ctx.Done():
		return plugin.Event{}, ctx.Err()
	case <-s.closed:
		return plugin.Event{}, io.ErrClosedPipe
	}
}

func (s *fakeStream) Result() plugin.QueryComplete {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.result
}

func (s *fakeStream) Close() { s.closeOnce.Do(func() { close(s.closed) }) }

func (s *fakeStream) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// ReadConfig answers from config (by dot path); a path it lacks is jp's
// "no such key" refusal.
func (f *fakeHost) ReadConfig(_ context.Context, _ workspace.Ref, path string) (json.RawMessage, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if v, ok := f.config[path]; ok {
		return json.RawMessage(v), nil
	}
	return nil, plugin.Error{Request: "read_config", Message: "no configuration key " + path}
}

// ContextMeter answers meter, or jp's refusal for an unknown conversation.
func (f *fakeHost) ContextMeter(_ context.Context, _ workspace.Ref, conv string) (plugin.Meter, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.events[conv]; !ok {
		return plugin.Meter{}, plugin.Error{Request: "context_meter", Message: "conversation " + conv + " not found"}
	}
	m := f.meter
	m.Conversation = conv
	return m, nil
}

// Compact records the call and answers compacted.
func (f *fakeHost) Compact(_ context.Context, ref workspace.Ref, conv string, dryRun bool) (plugin.Compacted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.compacts = append(f.compacts, compactCall{Ref: ref, Conv: conv, DryRun: dryRun})
	if _, ok := f.events[conv]; !ok {
		return plugin.Compacted{}, plugin.Error{Request: "compact", Message: "conversation " + conv + " not found"}
	}
	return plugin.Compacted{Conversation: conv, DryRun: dryRun, Added: 1, Turns: 3, TokensBefore: 1200, TokensAfter: 300}, nil
}

type compactCall struct {
	Ref    workspace.Ref
	Conv   string
	DryRun bool
}

func (f *fakeHost) ReadHistory(context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.history...), nil
}

func (f *fakeHost) AddHistory(_ context.Context, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.history = append(f.history, text)
	return nil
}

type rewindCall struct {
	Ref    workspace.Ref
	Conv   string
	Turn   int
	DryRun bool
}

type trustCall struct {
	Ref    workspace.Ref
	DryRun bool
}

// Rewind records the call and answers a rewind of turn 2 restoring
// greet.txt (a fork unless dryRun), or jp's refusal for an unknown
// conversation.
func (f *fakeHost) Rewind(_ context.Context, ref workspace.Ref, conv string, turn int, dryRun bool) (plugin.Rewound, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rewinds = append(f.rewinds, rewindCall{Ref: ref, Conv: conv, Turn: turn, DryRun: dryRun})
	if _, ok := f.events[conv]; !ok {
		return plugin.Rewound{}, plugin.Error{Request: "rewind", Message: "conversation " + conv + " not found"}
	}
	r := plugin.Rewound{Conversation: conv, DryRun: dryRun, Turns: 2, Undone: []int{2},
		Files: []plugin.RewoundFile{{Path: "greet.txt", Action: "restore", Turns: []int{2}}}, Conflicts: []plugin.RewoundFile{}}
	if !dryRun {
		r.Fork = "17127583950"
	}
	return r, nil
}

// Trust records the call; with untrusted, a checkout is untrusted,
// holding one MCP server, until a trust that is not a dry run.
func (f *fakeHost) Trust(_ context.Context, ref workspace.Ref, dryRun bool) (plugin.Trusted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trusts = append(f.trusts, trustCall{Ref: ref, DryRun: dryRun})
	if f.trusted == nil {
		f.trusted = map[string]bool{}
	}
	if !dryRun {
		f.trusted[ref.Root] = true
	}
	return plugin.Trusted{Root: ref.Root, DryRun: dryRun, Trusted: !f.untrusted || f.trusted[ref.Root],
		Held: []plugin.HeldKey{{Key: "mcp.servers.git", Does: "runs: git-mcp (MCP server git)"}}, Hash: fakeTrustHash}, nil
}

// fakeTrustHash is the fake checkout's review hash.
const fakeTrustHash = "h1"

// TrustShown trusts as jp does: only the configuration the hash names.
func (f *fakeHost) TrustShown(ctx context.Context, ref workspace.Ref, hash string) (plugin.Trusted, error) {
	if hash != fakeTrustHash {
		f.mu.Lock()
		f.trusts = append(f.trusts, trustCall{Ref: ref, DryRun: false})
		f.mu.Unlock()
		return plugin.Trusted{}, plugin.Error{Request: plugin.TypeTrust, Message: "the configuration of " + ref.Root + " changed since it was shown: review it again before trusting it"}
	}
	return f.Trust(ctx, ref, false)
}
