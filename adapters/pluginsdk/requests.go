package pluginsdk

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

// Checkout is a view of a Client that addresses one checkout on every
// data and mutation request: c.At(ref) for a multi-scope plugin, whose
// requests must each name a workspace (docs/plugins.md). The zero ref (from the
// Client's own methods) sends no workspace field, as a single-scope
// plugin must. A Checkout is a small value; make one per request or keep
// it, as convenient. Its methods are safe for concurrent use.
type Checkout struct {
	c   *Client
	ref *workspace.Ref
}

// At returns a view of c whose requests carry ref as their workspace.
// ref.Root may be "" only when the workspace has exactly one live
// checkout (jp answers an error otherwise).
func (c *Client) At(ref workspace.Ref) Checkout {
	return Checkout{c: c, ref: &ref}
}

// here is the unaddressed view a single-scope plugin's requests use.
func (c *Client) here() Checkout { return Checkout{c: c} }

// Ref returns the reference the view sends, and false for the
// unaddressed view of a single-scope plugin.
func (w Checkout) Ref() (workspace.Ref, bool) {
	if w.ref == nil {
		return workspace.Ref{}, false
	}
	return *w.ref, true
}

// ListConversations returns the workspace's conversations (single scope).
// See Checkout.ListConversations.
func (c *Client) ListConversations(ctx context.Context) ([]plugin.ConversationSummary, error) {
	return c.here().ListConversations(ctx)
}

// ReadEvents returns a conversation's events (single scope). See
// Checkout.ReadEvents.
func (c *Client) ReadEvents(ctx context.Context, conversation string) (plugin.Events, error) {
	return c.here().ReadEvents(ctx, conversation)
}

// ReadConfig returns the resolved configuration or a value of it (single
// scope). See Checkout.ReadConfig.
func (c *Client) ReadConfig(ctx context.Context, path string) (json.RawMessage, error) {
	return c.here().ReadConfig(ctx, path)
}

// ReadDraft returns a conversation's draft (single scope). See
// Checkout.ReadDraft.
func (c *Client) ReadDraft(ctx context.Context, conversation string) (plugin.Draft, error) {
	return c.here().ReadDraft(ctx, conversation)
}

// WriteDraft replaces a draft's query text (single scope). See
// Checkout.WriteDraft.
func (c *Client) WriteDraft(ctx context.Context, conversation, text, revision string) (string, error) {
	return c.here().WriteDraft(ctx, conversation, text, revision)
}

// CreateConversation makes a conversation (single scope). See
// Checkout.CreateConversation.
func (c *Client) CreateConversation(ctx context.Context, title string, local bool) (string, error) {
	return c.here().CreateConversation(ctx, title, local)
}

// SetTitle renames a conversation (single scope).
func (c *Client) SetTitle(ctx context.Context, conversation, title string) error {
	return c.here().SetTitle(ctx, conversation, title)
}

// Archive hides a conversation from listings (single scope).
func (c *Client) Archive(ctx context.Context, conversation string) error {
	return c.here().Archive(ctx, conversation)
}

// Unarchive undoes Archive (single scope).
func (c *Client) Unarchive(ctx context.Context, conversation string) error {
	return c.here().Unarchive(ctx, conversation)
}

// Lock takes a conversation's lock (single scope). See Checkout.Lock.
func (c *Client) Lock(ctx context.Context, conversation string) error {
	return c.here().Lock(ctx, conversation)
}

// Unlock releases a lock taken with Lock (single scope).
func (c *Client) Unlock(ctx context.Context, conversation string) error {
	return c.here().Unlock(ctx, conversation)
}

// Query runs a delegated turn (single scope). See Checkout.Query.
func (c *Client) Query(ctx context.Context, q plugin.Query) (*QueryStream, error) {
	return c.here().Query(ctx, q)
}

// Interrupt stops a delegated turn (single scope). See Checkout.Interrupt.
func (c *Client) Interrupt(ctx context.Context, conversation string) error {
	return c.here().Interrupt(ctx, conversation)
}

// request is the round trip of every data and mutation request: it sends
// the message build makes with a fresh id and returns jp's answer, which
// must be an R (an error answer is a HostError).
func request[R plugin.Message](ctx context.Context, c *Client, build func(id string) plugin.Message) (R, error) {
	id := c.newID()
	var resp R
	err := c.roundTrip(ctx, id, build(id), resp.MessageType(), &resp, false)
	return resp, err
}

// ack is request for an answer that carries nothing the caller uses: its
// type is checked, its body not decoded.
func ack[R plugin.Message](ctx context.Context, c *Client, build func(id string) plugin.Message) error {
	id := c.newID()
	var resp R
	return c.roundTrip(ctx, id, build(id), resp.MessageType(), nil, false)
}

// ListConversations returns the checkout's conversations, pinned first,
// then most recently active first; archived ones included (ArchivedAt).
// LastRoot, when set, is where the conversation's latest turn ran.
func (w Checkout) ListConversations(ctx context.Context) ([]plugin.ConversationSummary, error) {
	resp, err := request[plugin.Conversations](ctx, w.c, func(id string) plugin.Message {
		return plugin.ListConversations{ID: id, Workspace: w.ref}
	})
	return resp.Data, err
}

// ReadEvents returns a conversation's events as stored, and its last-root
// record when a turn recorded one. They come in one answer; when they are
// too long for one (jp says so: plugin.AskForPages), it reads them a page
// at a time (EventPages) and returns them together.
func (w Checkout) ReadEvents(ctx context.Context, conversation string) (plugin.Events, error) {
	resp, err := request[plugin.Events](ctx, w.c, func(id string) plugin.Message {
		return plugin.ReadEvents{ID: id, Workspace: w.ref, Conversation: conversation}
	})
	var he HostError
	if errors.As(err, &he) && strings.HasSuffix(he.Message, plugin.AskForPages) {
		return w.readAllPages(ctx, conversation)
	}
	return resp, err
}

// ReadConfig returns the resolved configuration ("" path) or the value at
// a dot path such as "assistant.model.id", as JSON. Addressed, it is the
// configuration a turn in that checkout starts from.
func (w Checkout) ReadConfig(ctx context.Context, path string) (json.RawMessage, error) {
	resp, err := request[plugin.Config](ctx, w.c, func(id string) plugin.Message {
		return plugin.ReadConfig{ID: id, Workspace: w.ref, Path: path}
	})
	return resp.Data, err
}

// ReadDraft returns a conversation's draft: its query text and revision
// (both "" when there is none).
func (w Checkout) ReadDraft(ctx context.Context, conversation string) (plugin.Draft, error) {
	return request[plugin.Draft](ctx, w.c, func(id string) plugin.Message {
		return plugin.ReadDraft{ID: id, Workspace: w.ref, Conversation: conversation}
	})
}

// WriteDraft replaces a draft's query text, keeping its meta section.
// With revision set it fails unless the draft still has that revision. It
// returns the new revision.
func (w Checkout) WriteDraft(ctx context.Context, conversation, text, revision string) (string, error) {
	resp, err := request[plugin.DraftWritten](ctx, w.c, func(id string) plugin.Message {
		return plugin.WriteDraft{ID: id, Workspace: w.ref, Conversation: conversation, Text: &text, Revision: revision}
	})
	return resp.Revision, err
}

// CreateConversation makes a conversation and returns its ID.
func (w Checkout) CreateConversation(ctx context.Context, title string, local bool) (string, error) {
	resp, err := request[plugin.Created](ctx, w.c, func(id string) plugin.Message {
		return plugin.CreateConversation{ID: id, Workspace: w.ref, Title: title, Local: local}
	})
	return resp.Conversation, err
}

// SetTitle renames a conversation.
func (w Checkout) SetTitle(ctx context.Context, conversation, title string) error {
	return ack[plugin.TitleSet](ctx, w.c, func(id string) plugin.Message {
		return plugin.SetTitle{ID: id, Workspace: w.ref, Conversation: conversation, Title: title}
	})
}

// Archive hides a conversation from listings.
func (w Checkout) Archive(ctx context.Context, conversation string) error {
	return ack[plugin.Archived](ctx, w.c, func(id string) plugin.Message {
		return plugin.Archive{ID: id, Workspace: w.ref, Conversation: conversation}
	})
}

// Unarchive undoes Archive.
func (w Checkout) Unarchive(ctx context.Context, conversation string) error {
	return ack[plugin.Unarchived](ctx, w.c, func(id string) plugin.Message {
		return plugin.Unarchive{ID: id, Workspace: w.ref, Conversation: conversation}
	})
}

// Lock takes a conversation's lock. jp releases it on Unlock, and when the
// plugin exits or dies.
func (w Checkout) Lock(ctx context.Context, conversation string) error {
	return ack[plugin.Locked](ctx, w.c, func(id string) plugin.Message {
		return plugin.Lock{ID: id, Workspace: w.ref, Conversation: conversation}
	})
}

// Unlock releases a lock taken with Lock.
func (w Checkout) Unlock(ctx context.Context, conversation string) error {
	return ack[plugin.Unlocked](ctx, w.c, func(id string) plugin.Message {
		return plugin.Unlock{ID: id, Workspace: w.ref, Conversation: conversation}
	})
}

// ListWorkspaces returns every workspace this machine knows, each with
// its live checkouts (Roots, empty when every recorded one is gone);
// Launch marks the one jp was launched in (docs/plugins.md). It names no
// workspace, so it is a method of the Client only.
func (c *Client) ListWorkspaces(ctx context.Context) ([]plugin.WorkspaceEntry, error) {
	resp, err := request[plugin.Workspaces](ctx, c, func(id string) plugin.Message {
		return plugin.ListWorkspaces{ID: id}
	})
	return resp.Data, err
}

// Print writes text to jp's content channel as is.
func (c *Client) Print(text string) error { return c.send(plugin.Print{Text: text}) }

// PrintTo writes text to a channel (content, chrome, tool_call,
// tool_result, reasoning, error) in a format.
func (c *Client) PrintTo(channel string, format plugin.PrintFormat, text string) error {
	return c.send(plugin.Print{Text: text, Channel: channel, Format: format})
}

// Log writes a line into jp's log at level (trace, debug, info, warn,
// error), attributed to the plugin.
func (c *Client) Log(level plugin.LogLevel, message string, fields map[string]any) error {
	return c.send(plugin.Log{Level: level.String(), Message: message, Fields: fields})
}

// Exit tells jp the plugin is done: jp exits with code, printing reason
// when code is not 0. Nothing may be sent after it.
func (c *Client) Exit(code int, reason string) error {
	return c.send(plugin.Exit{Code: code, Reason: reason})
}

// ContextMeter returns the conversation's context meter: the estimated
// tokens of its next request and the model's window (0 when jp does not
// know it). Multi-scope plugins only.
func (w Checkout) ContextMeter(ctx context.Context, conversation string) (plugin.Meter, error) {
	return request[plugin.Meter](ctx, w.c, func(id string) plugin.Message {
		return plugin.ContextMeter{ID: id, Workspace: w.ref, Conversation: conversation}
	})
}

// Compact compacts the conversation by its configured rules, as jp
// conversation compact without flags; with dryRun it only says what would
// change. Multi-scope plugins only.
func (w Checkout) Compact(ctx context.Context, conversation string, dryRun bool) (plugin.Compacted, error) {
	return request[plugin.Compacted](ctx, w.c, func(id string) plugin.Message {
		return plugin.Compact{ID: id, Workspace: w.ref, Conversation: conversation, DryRun: dryRun}
	})
}

// ReadHistory returns the session's message history, oldest first: the
// messages Up recalls in jp's composer, from every workspace.
// Multi-scope plugins only.
func (c *Client) ReadHistory(ctx context.Context) ([]string, error) {
	resp, err := request[plugin.History](ctx, c, func(id string) plugin.Message {
		return plugin.ReadHistory{ID: id}
	})
	return resp.Data, err
}

// AddHistory records a message the plugin sent in the message history,
// as the terminal session records one. Multi-scope plugins only.
func (c *Client) AddHistory(ctx context.Context, text string) error {
	return ack[plugin.HistoryAdded](ctx, c, func(id string) plugin.Message {
		return plugin.AddHistory{ID: id, Text: text}
	})
}

// RewindOptions are jp conversation rewind's flags: Truncate instead of a
// fork, Force to restore files changed since jp wrote them, DryRun to only
// say what would change.
type RewindOptions struct {
	Truncate, Force, DryRun bool
}

// Rewind restores the files the conversation's tools changed after turn
// (0 undoes every turn) and forks the conversation there (or truncates
// it), as jp conversation rewind does. Multi-scope plugins only.
func (w Checkout) Rewind(ctx context.Context, conversation string, turn int, o RewindOptions) (plugin.Rewound, error) {
	return request[plugin.Rewound](ctx, w.c, func(id string) plugin.Message {
		return plugin.Rewind{ID: id, Workspace: w.ref, Conversation: conversation, Turn: turn,
			Truncate: o.Truncate, Force: o.Force, DryRun: o.DryRun}
	})
}

// Trust trusts the checkout's configuration, as jp workspace trust does;
// with dryRun it only reviews (whether it is trusted and what an
// untrusted checkout holds back). Multi-scope plugins only.
func (w Checkout) Trust(ctx context.Context, dryRun bool) (plugin.Trusted, error) {
	return request[plugin.Trusted](ctx, w.c, func(id string) plugin.Message {
		return plugin.TrustCheckout{ID: id, Workspace: w.ref, DryRun: dryRun}
	})
}

// TrustShown trusts the checkout only if its configuration still holds
// what the review with this hash (a dry run's Trusted.Hash) showed the
// user; jp refuses a configuration that changed since.
func (w Checkout) TrustShown(ctx context.Context, hash string) (plugin.Trusted, error) {
	return request[plugin.Trusted](ctx, w.c, func(id string) plugin.Message {
		return plugin.TrustCheckout{ID: id, Workspace: w.ref, Hash: hash}
	})
}
