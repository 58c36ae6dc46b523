package web

import (
	"context"
	"encoding/json"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// Host is what the web server asks jp for. NewSDKHost makes one from the
// plugin SDK's client; tests use a fake.
type Host interface {
	// ListWorkspaces lists every known workspace with its live checkouts.
	ListWorkspaces(ctx context.Context) ([]plugin.WorkspaceEntry, error)
	// ListConversations lists a checkout's conversations.
	ListConversations(ctx context.Context, ref workspace.Ref) ([]plugin.ConversationSummary, error)
	// ReadEvents reads a conversation's events and last-root record.
	ReadEvents(ctx context.Context, ref workspace.Ref, conversation string) (plugin.Events, error)
	// ReadEventsPage reads the conversation's stored events from index
	// offset on, a page (pluginsdk.Checkout.ReadEventsPage): NextOffset is
	// always set.
	ReadEventsPage(ctx context.Context, ref workspace.Ref, conversation string, offset int) (plugin.Events, error)
	// CreateConversation makes a conversation in a checkout.
	CreateConversation(ctx context.Context, ref workspace.Ref, title string) (string, error)
	// Query starts a delegated turn in a checkout; it returns once jp
	// answered query_started, or with jp's refusal (a plugin.Error).
	Query(ctx context.Context, ref workspace.Ref, q plugin.Query) (Stream, error)
	// Interrupt stops the delegated turn running on a conversation.
	Interrupt(ctx context.Context, ref workspace.Ref, conversation string) error
	// Respond answers a tool approval: action is approve or reject.
	Respond(callID, action string) error
	// ReadDraft reads a conversation's draft (QUERY_MESSAGE.md without its
	// meta section) and its revision; both are "" when there is none.
	ReadDraft(ctx context.Context, ref workspace.Ref, conversation string) (plugin.Draft, error)
	// WriteDraft replaces the draft's query text, keeping its meta
	// section, and returns the new revision. With revision set it fails
	// (a plugin.Error) unless the draft still has that revision.
	WriteDraft(ctx context.Context, ref workspace.Ref, conversation, text, revision string) (string, error)
	// ReadConfig reads the value at a dot path of the configuration a
	// turn in the checkout starts from, as JSON.
	ReadConfig(ctx context.Context, ref workspace.Ref, path string) (json.RawMessage, error)
	// ContextMeter reads a conversation's context meter.
	ContextMeter(ctx context.Context, ref workspace.Ref, conversation string) (plugin.Meter, error)
	// Compact compacts a conversation by its configured rules (dryRun:
	// only say what would change).
	Compact(ctx context.Context, ref workspace.Ref, conversation string, dryRun bool) (plugin.Compacted, error)
	// ReadHistory reads the session's message history, oldest first.
	ReadHistory(ctx context.Context) ([]string, error)
	// AddHistory records a sent message in it.
	AddHistory(ctx context.Context, text string) error
	// Rewind restores the files a conversation's tools changed after turn
	// and forks it there (dryRun: only say what would change).
	Rewind(ctx context.Context, ref workspace.Ref, conversation string, turn int, dryRun bool) (plugin.Rewound, error)
	// Trust trusts the checkout's configuration (dryRun: only review it).
	Trust(ctx context.Context, ref workspace.Ref, dryRun bool) (plugin.Trusted, error)
	// TrustShown trusts the checkout if its configuration is still the
	// one the review with hash showed.
	TrustShown(ctx context.Context, ref workspace.Ref, hash string) (plugin.Trusted, error)
}

// Stream is a running delegated turn (pluginsdk.QueryStream).
type Stream interface {
	Next(ctx context.Context) (plugin.Event, error)
	Result() plugin.QueryComplete
	Close()
}

// sdkHost adapts the SDK client: every request goes through an addressed
// view of the checkout it names.
type sdkHost struct{ c *pluginsdk.Client }

// NewSDKHost returns the Host a running plugin talks to jp through.
func NewSDKHost(c *pluginsdk.Client) Host { return sdkHost{c: c} }

func (h sdkHost) ListWorkspaces(ctx context.Context) ([]plugin.WorkspaceEntry, error) {
	return h.c.ListWorkspaces(ctx)
}

func (h sdkHost) ListConversations(ctx context.Context, ref workspace.Ref) ([]plugin.ConversationSummary, error) {
	return h.c.At(ref).ListConversations(ctx)
}

func (h sdkHost) ReadEvents(ctx context.Context, ref workspace.Ref, conversation string) (plugin.Events, error) {
	return h.c.At(ref).ReadEvents(ctx, conversation)
}

func (h sdkHost) ReadEventsPage(ctx context.Context, ref workspace.Ref, conversation string, offset int) (plugin.Events, error) {
	return h.c.At(ref).ReadEventsPage(ctx, conversation, offset, 0)
}

func (h sdkHost) CreateConversation(ctx context.Context, ref workspace.Ref, title string) (string, error) {
	return h.c.At(ref).CreateConversation(ctx, title, false)
}

func (h sdkHost) Query(ctx context.Context, ref workspace.Ref, q plugin.Query) (Stream, error) {
	s, err := h.c.At(ref).Query(ctx, q)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (h sdkHost) Interrupt(ctx context.Context, ref workspace.Ref, conversation string) error {
	return h.c.At(ref).Interrupt(ctx, conversation)
}

func (h sdkHost) Respond(callID, action string) error { return h.c.Respond(callID, action) }

func (h sdkHost) ReadDraft(ctx context.Context, ref workspace.Ref, conversation string) (plugin.Draft, error) {
	return h.c.At(ref).ReadDraft(ctx, conversation)
}

func (h sdkHost) WriteDraft(ctx context.Context, ref workspace.Ref, conversation, text, revision string) (string, error) {
	return h.c.At(ref).WriteDraft(ctx, conversation, text, revision)
}

func (h sdkHost) ReadConfig(ctx context.Context, ref workspace.Ref, path string) (json.RawMessage, error) {
	return h.c.At(ref).ReadConfig(ctx, path)
}

func (h sdkHost) ContextMeter(ctx context.Context, ref workspace.Ref, conversation string) (plugin.Meter, error) {
	return h.c.At(ref).ContextMeter(ctx, conversation)
}

func (h sdkHost) Compact(ctx context.Context, ref workspace.Ref, conversation string, dryRun bool) (plugin.Compacted, error) {
	return h.c.At(ref).Compact(ctx, conversation, dryRun)
}

func (h sdkHost) ReadHistory(ctx context.Context) ([]string, error) { return h.c.ReadHistory(ctx) }

func (h sdkHost) AddHistory(ctx context.Context, text string) error { return h.c.AddHistory(ctx, text) }

func (h sdkHost) Rewind(ctx context.Context, ref workspace.Ref, conversation string, turn int, dryRun bool) (plugin.Rewound, error) {
	return h.c.At(ref).Rewind(ctx, conversation, turn, pluginsdk.RewindOptions{DryRun: dryRun})
}

func (h sdkHost) Trust(ctx context.Context, ref workspace.Ref, dryRun bool) (plugin.Trusted, error) {
	return h.c.At(ref).Trust(ctx, dryRun)
}

func (h sdkHost) TrustShown(ctx context.Context, ref workspace.Ref, hash string) (plugin.Trusted, error) {
	return h.c.At(ref).TrustShown(ctx, hash)
}
