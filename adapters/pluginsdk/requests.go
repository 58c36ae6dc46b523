package pluginsdk

import (
	"context"
	"encoding/json"

	"github.com/jpcli/jp/domain/plugin"
)

// ListConversations returns the workspace's conversations, pinned first,
// then most recently active first; archived ones included (ArchivedAt).
func (c *Client) ListConversations(ctx context.Context) ([]plugin.ConversationSummary, error) {
	id := c.newID()
	var resp plugin.Conversations
	err := c.roundTrip(ctx, id, plugin.ListConversations{ID: id}, plugin.TypeConversations, &resp, false)
	return resp.Data, err
}

// ReadEvents returns a conversation's events as stored.
func (c *Client) ReadEvents(ctx context.Context, conversation string) (plugin.Events, error) {
	id := c.newID()
	var resp plugin.Events
	err := c.roundTrip(ctx, id, plugin.ReadEvents{ID: id, Conversation: conversation}, plugin.TypeEvents, &resp, false)
	return resp, err
}

// ReadConfig returns the resolved configuration ("" path) or the value at
// a dot path such as "assistant.model.id", as JSON.
func (c *Client) ReadConfig(ctx context.Context, path string) (json.RawMessage, error) {
	id := c.newID()
	var resp plugin.Config
	err := c.roundTrip(ctx, id, plugin.ReadConfig{ID: id, Path: path}, plugin.TypeConfig, &resp, false)
	return resp.Data, err
}

// ReadDraft returns a conversation's draft: its query text and revision
// (both "" when there is none).
func (c *Client) ReadDraft(ctx context.Context, conversation string) (plugin.Draft, error) {
	id := c.newID()
	var resp plugin.Draft
	err := c.roundTrip(ctx, id, plugin.ReadDraft{ID: id, Conversation: conversation}, plugin.TypeDraft, &resp, false)
	return resp, err
}

// WriteDraft replaces a draft's query text, keeping its meta section.
// With revision set it fails unless the draft still has that revision. It
// returns the new revision.
func (c *Client) WriteDraft(ctx context.Context, conversation, text, revision string) (string, error) {
	id := c.newID()
	var resp plugin.DraftWritten
	req := plugin.WriteDraft{ID: id, Conversation: conversation, Text: &text, Revision: revision}
	err := c.roundTrip(ctx, id, req, plugin.TypeDraftWritten, &resp, false)
	return resp.Revision, err
}

// CreateConversation makes a conversation and returns its ID.
func (c *Client) CreateConversation(ctx context.Context, title string, local bool) (string, error) {
	id := c.newID()
	var resp plugin.Created
	err := c.roundTrip(ctx, id, plugin.CreateConversation{ID: id, Title: title, Local: local}, plugin.TypeCreated, &resp, false)
	return resp.Conversation, err
}

// SetTitle renames a conversation.
func (c *Client) SetTitle(ctx context.Context, conversation, title string) error {
	id := c.newID()
	return c.roundTrip(ctx, id, plugin.SetTitle{ID: id, Conversation: conversation, Title: title}, plugin.TypeTitleSet, nil, false)
}

// Archive hides a conversation from listings.
func (c *Client) Archive(ctx context.Context, conversation string) error {
	id := c.newID()
	return c.roundTrip(ctx, id, plugin.Archive{ID: id, Conversation: conversation}, plugin.TypeArchived, nil, false)
}

// Unarchive undoes Archive.
func (c *Client) Unarchive(ctx context.Context, conversation string) error {
	id := c.newID()
	return c.roundTrip(ctx, id, plugin.Unarchive{ID: id, Conversation: conversation}, plugin.TypeUnarchived, nil, false)
}

// Lock takes a conversation's lock. jp releases it on Unlock, and when the
// plugin exits or dies.
func (c *Client) Lock(ctx context.Context, conversation string) error {
	id := c.newID()
	return c.roundTrip(ctx, id, plugin.Lock{ID: id, Conversation: conversation}, plugin.TypeLocked, nil, false)
}

// Unlock releases a lock taken with Lock.
func (c *Client) Unlock(ctx context.Context, conversation string) error {
	id := c.newID()
	return c.roundTrip(ctx, id, plugin.Unlock{ID: id, Conversation: conversation}, plugin.TypeUnlocked, nil, false)
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
