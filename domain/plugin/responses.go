package plugin

import (
	"encoding/json"
	"time"

	"github.com/jpcli/jp/domain/conversation"
)

// Wire names of the messages the host sends.
const (
	TypeInit           = "init"
	TypeShutdown       = "shutdown"
	TypeConversations  = "conversations"
	TypeEvents         = "events"
	TypeConfig         = "config"
	TypeDraft          = "draft"
	TypeDraftWritten   = "draft_written"
	TypeCreated        = "created"
	TypeTitleSet       = "title_set"
	TypeArchived       = "archived"
	TypeUnarchived     = "unarchived"
	TypeLocked         = "locked"
	TypeUnlocked       = "unlocked"
	TypeEventsPushed   = "events_pushed"
	TypeQueryStarted   = "query_started"
	TypeEvent          = "event"
	TypeQueryComplete  = "query_complete"
	TypeInterrupted    = "interrupted"
	TypePromptResponse = "prompt_response"
	TypeWorkspaces     = "workspaces"
	TypeMeter          = "meter"
	TypeCompacted      = "compacted"
	TypeHistory        = "history"
	TypeHistoryAdded   = "history_added"
	TypeRewound        = "rewound"
	TypeTrusted        = "trusted"
	TypeError          = "error"
)

// Init is the host's first message to a plugin it runs (instead of
// describe). For a single-scope plugin it carries the workspace and its
// resolved configuration.
type Init struct {
	// Version is the host's protocol version.
	Version int `json:"version"`
	// Options is plugins.command.<name>.options, {} when unset.
	Options json.RawMessage `json:"options"`
	// Args are the command-line arguments after the plugin's command path.
	Args []string `json:"args"`
	// LogLevel is the host's verbosity: 0 error, 1 warn, 2 info, 3 debug,
	// 4 trace.
	LogLevel LogLevel `json:"log_level"`
	// OutputFormat is "text" or "json" (--format).
	OutputFormat string `json:"output_format"`
	// Paths are jp's directories.
	Paths Paths `json:"paths"`
	// Workspace is the checkout the plugin works on (single scope).
	Workspace *WorkspaceInfo `json:"workspace,omitempty"`
	// Config is the resolved configuration tree (single scope).
	Config json.RawMessage `json:"config,omitempty"`
}

// Paths are jp's directories as init reports them.
type Paths struct {
	// UserData is <data>, $XDG_DATA_HOME/jp.
	UserData string `json:"user_data"`
	// UserConfig is <config>, $XDG_CONFIG_HOME/jp.
	UserConfig string `json:"user_config"`
	// UserWorkspace is the workspace's user-local silo (single scope).
	UserWorkspace string `json:"user_workspace,omitempty"`
}

// WorkspaceInfo is the checkout init hands a single-scope plugin.
type WorkspaceInfo struct {
	Root    string `json:"root"`
	Storage string `json:"storage"`
	ID      string `json:"id"`
}

// DescribeRequest asks the plugin to answer with its Description and exit.
type DescribeRequest struct{}

// Shutdown asks the plugin to stop gracefully and send exit.
type Shutdown struct{}

// ConversationSummary is one entry of Conversations.
type ConversationSummary struct {
	ID              string                 `json:"id"`
	Title           string                 `json:"title"`
	LastActivatedAt time.Time              `json:"last_activated_at"`
	PinnedAt        *time.Time             `json:"pinned_at,omitempty"`
	ArchivedAt      *time.Time             `json:"archived_at,omitempty"`
	EventsCount     int                    `json:"events_count"`
	LastRoot        *conversation.LastRoot `json:"last_root,omitempty"`
}

// SummaryOf converts a stored summary to its wire form.
func SummaryOf(s conversation.Summary) ConversationSummary {
	return ConversationSummary{
		ID: string(s.ID), Title: s.Metadata.Title, LastActivatedAt: s.Metadata.LastActivatedAt.UTC(),
		PinnedAt: utcPtr(s.Metadata.PinnedAt), ArchivedAt: utcPtr(s.Metadata.ArchivedAt),
		EventsCount: s.Metadata.EventsCount, LastRoot: s.LastRoot,
	}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Conversations answers ListConversations.
type Conversations struct {
	ID   string                `json:"id,omitempty"`
	Data []ConversationSummary `json:"data"`
}

// Events answers ReadEvents: the events as stored, each one JSON object
// in jp's stored form (docs/storage.md; adapters/eventcodec reads them).
type Events struct {
	ID           string                 `json:"id,omitempty"`
	Conversation string                 `json:"conversation"`
	Data         []json.RawMessage      `json:"data"`
	LastRoot     *conversation.LastRoot `json:"last_root,omitempty"`
	// NextOffset and More answer a paged request only (ReadEvents.Paged).
	// NextOffset is the offset of the next page: the request's offset plus
	// the stored events in Data (the block in flight is not one). More is
	// true when the page stopped before the conversation's end. A
	// NextOffset below the request's offset says the conversation holds
	// only NextOffset events now (rewound elsewhere).
	NextOffset *int `json:"next_offset,omitempty"`
	More       bool `json:"more,omitempty"`
}

// Config answers ReadConfig: Data is the tree or value at Path.
type Config struct {
	ID   string          `json:"id,omitempty"`
	Path string          `json:"path,omitempty"`
	Data json.RawMessage `json:"data"`
}

// Meter answers ContextMeter: Tokens estimates the conversation's next
// request (its history as compacted, and the system prompt; tools are
// not counted) for Model, whose context window is Window (0 when jp does
// not know it).
type Meter struct {
	ID           string `json:"id,omitempty"`
	Conversation string `json:"conversation"`
	Model        string `json:"model,omitempty"`
	Tokens       int    `json:"tokens"`
	Window       int    `json:"window,omitempty"`
}

// Compacted answers Compact: the overlays added (with DryRun: planned,
// nothing written), the conversation's turns, and the estimated tokens
// of its history before and after.
type Compacted struct {
	ID           string `json:"id,omitempty"`
	Conversation string `json:"conversation"`
	DryRun       bool   `json:"dry_run,omitempty"`
	Added        int    `json:"added"`
	Turns        int    `json:"turns"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
}

// History answers ReadHistory: the kept messages, oldest first.
type History struct {
	ID   string   `json:"id,omitempty"`
	Data []string `json:"data"`
}

// HistoryAdded answers AddHistory.
type HistoryAdded struct {
	ID string `json:"id,omitempty"`
}

// Rewound answers Rewind: the complete turns the conversation had, the
// turns undone, the files restored (with DryRun: that would be), the
// conflicts (files changed since jp wrote them: restored only with
// Force), the undone tool calls whose file changes jp did not record, and
// the fork (a new conversation) or Truncated.
type Rewound struct {
	ID           string           `json:"id,omitempty"`
	Conversation string           `json:"conversation"`
	DryRun       bool             `json:"dry_run,omitempty"`
	Turns        int              `json:"turns"`
	Undone       []int            `json:"undone"`
	Files        []RewoundFile    `json:"files"`
	Conflicts    []RewoundFile    `json:"conflicts"`
	Unrecorded   []UnrecordedCall `json:"unrecorded,omitempty"`
	Fork         string           `json:"fork,omitempty"`
	Truncated    bool             `json:"truncated,omitempty"`
}

// RewoundFile is one file of a rewind: its path (relative to the
// checkout), what happens to it (restore, recreate, delete or unchanged),
// and the undone turns that changed it.
type RewoundFile struct {
	Path   string `json:"path"`
	Action string `json:"action"`
	Turns  []int  `json:"turns,omitempty"`
}

// UnrecordedCall is an undone tool call whose file changes jp did not
// record (shell, local command and MCP tools): a rewind cannot undo them.
type UnrecordedCall struct {
	Turn int    `json:"turn"`
	Name string `json:"name"`
}

// Trusted answers Trust: the checkout's root, whether it is trusted (after
// the request; with DryRun: now), and the keys of its configuration that
// run or send (Held: what an untrusted checkout holds back).
type Trusted struct {
	ID      string    `json:"id,omitempty"`
	Root    string    `json:"root"`
	DryRun  bool      `json:"dry_run,omitempty"`
	Trusted bool      `json:"trusted"`
	Held    []HeldKey `json:"held"`
	// Hash identifies Held; a trust request may repeat it (TrustCheckout.Hash).
	Hash string `json:"hash,omitempty"`
}

// HeldKey is one configuration key that runs a program or sends data,
// and what it would make jp do.
type HeldKey struct {
	Key  string `json:"key"`
	Does string `json:"does"`
}

// Draft answers ReadDraft: the draft's query text (not its meta section)
// and its revision; both are "" when the conversation has no draft.
type Draft struct {
	ID           string `json:"id,omitempty"`
	Conversation string `json:"conversation"`
	Text         string `json:"text"`
	Revision     string `json:"revision"`
}

// DraftWritten answers WriteDraft with the draft's new revision.
type DraftWritten struct {
	ID       string `json:"id,omitempty"`
	Revision string `json:"revision"`
}

// Created answers CreateConversation.
type Created struct {
	ID           string `json:"id,omitempty"`
	Conversation string `json:"conversation"`
}

// Ack is the shape of every answer that carries nothing but the request's
// id: TitleSet, Archived, Unarchived, Locked, Unlocked and Interrupted.
type Ack struct {
	ID string `json:"id,omitempty"`
}

// TitleSet answers SetTitle.
type TitleSet Ack

// Archived answers Archive.
type Archived Ack

// Unarchived answers Unarchive.
type Unarchived Ack

// Locked answers Lock. Conversation is set for a protocol-1 plugin,
// whose answers name the conversation; a protocol-2 answer has the id
// only.
type Locked struct {
	ID           string `json:"id,omitempty"`
	Conversation string `json:"conversation,omitempty"`
}

// Unlocked answers Unlock, shaped as Locked.
type Unlocked struct {
	ID           string `json:"id,omitempty"`
	Conversation string `json:"conversation,omitempty"`
}

// EventsPushed answers PushEvents: Count events were appended.
type EventsPushed struct {
	ID           string `json:"id,omitempty"`
	Conversation string `json:"conversation"`
	Count        int    `json:"count"`
}

// QueryStarted is the first answer to Query.
type QueryStarted struct {
	ID           string `json:"id,omitempty"`
	Conversation string `json:"conversation"`
}

// Event is a push during a delegated turn, with the query's id. Data is
// one conversation event as stored (turn_start, chat_request,
// chat_response, tool_call_request, tool_call_response, turn_end), or a
// streamed piece (DeltaData), or a tool approval question (ApprovalData)
// when Respond is "tool_approval": the turn waits for a Respond with its
// call_id.
type Event struct {
	ID      string          `json:"id,omitempty"`
	Data    json.RawMessage `json:"data"`
	Respond string          `json:"respond,omitempty"`
}

// Data types of Event pushes that are not conversation events.
const (
	DataChatResponseDelta = "chat_response_delta"
	DataToolApproval      = "tool_approval"
	// RespondToolApproval is Event.Respond of an approval question.
	RespondToolApproval = "tool_approval"
)

// DeltaData is a streamed piece of the assistant's answer: Text is
// message text, or reasoning when Reasoning is set. The pieces of one
// block are followed by the chat_response event that holds them whole.
type DeltaData struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	Reasoning bool   `json:"reasoning,omitempty"`
}

// ApprovalData asks whether a tool call may run: answer it with Respond
// {call_id, action: approve|reject}. Unanswered within
// plugins.respond_timeout_secs, the call is rejected.
type ApprovalData struct {
	Type      string          `json:"type"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// Diff is the unified diff a write tool's call will apply (the
	// built-in fs_* tools); absent for other tools.
	Diff string `json:"diff,omitempty"`
}

// QueryComplete is the last answer to Query. Outcome is the turn_end
// outcome (completed, stopped, aborted, error); Error says what failed
// when it is error.
type QueryComplete struct {
	ID           string               `json:"id,omitempty"`
	Conversation string               `json:"conversation"`
	Outcome      conversation.Outcome `json:"outcome"`
	Error        string               `json:"error,omitempty"`
}

// Interrupted answers Interrupt.
type Interrupted Ack

// PromptResponse answers Prompt. Value is set when Outcome is answered: a
// bool for confirm, a string otherwise. Reason says why a prompt was
// unavailable.
type PromptResponse struct {
	ID      string        `json:"id,omitempty"`
	Outcome PromptOutcome `json:"outcome"`
	Value   any           `json:"value,omitempty"`
	Reason  string        `json:"reason,omitempty"`
}

// Redacted returns r with its value hidden, for logs: a secret answer must
// never reach a log line.
func (r PromptResponse) Redacted() PromptResponse {
	if r.Value != nil {
		r.Value = "[redacted]"
	}
	return r
}

// WorkspaceEntry is one entry of Workspaces (docs/plugins.md). Launch marks the
// workspace jp was launched in; Roots are its live checkouts, empty (never
// null) when every recorded one is gone.
type WorkspaceEntry struct {
	ID     string          `json:"id"`
	Slug   string          `json:"slug"`
	Launch bool            `json:"launch"`
	Roots  []WorkspaceRoot `json:"roots"`
	// Default marks the default workspace: what jp stores when it is used
	// outside any workspace. It has no checkout; requests address it by
	// its ID alone (no root).
	Default bool `json:"default,omitempty"`
}

// WorkspaceRoot is one live checkout of a WorkspaceEntry: Storage is
// <path>/.jp.
type WorkspaceRoot struct {
	Path     string    `json:"path"`
	Storage  string    `json:"storage"`
	LastUsed time.Time `json:"last_used"`
}

// Workspaces answers ListWorkspaces.
type Workspaces struct {
	ID   string           `json:"id,omitempty"`
	Data []WorkspaceEntry `json:"data"`
}

// Error answers a request the host could not parse, does not know, or
// failed: Request is the request's type ("" when unreadable).
//
// LastRoot is set on a query refused by the last-root precondition
// (docs/plugins.md): the record as stored now, with its derived live flag, for the
// frontend to show.
type Error struct {
	ID       string                 `json:"id,omitempty"`
	Request  string                 `json:"request,omitempty"`
	Message  string                 `json:"message"`
	LastRoot *conversation.LastRoot `json:"last_root,omitempty"`
}

// Error makes a received Error usable as a Go error.
func (e Error) Error() string {
	if e.Request == "" {
		return e.Message
	}
	return e.Request + ": " + e.Message
}

// MessageType implementations.
func (Init) MessageType() string            { return TypeInit }
func (DescribeRequest) MessageType() string { return TypeDescribe }
func (Shutdown) MessageType() string        { return TypeShutdown }
func (Conversations) MessageType() string   { return TypeConversations }
func (Events) MessageType() string          { return TypeEvents }
func (Config) MessageType() string          { return TypeConfig }
func (Draft) MessageType() string           { return TypeDraft }
func (Meter) MessageType() string           { return TypeMeter }
func (Compacted) MessageType() string       { return TypeCompacted }
func (History) MessageType() string         { return TypeHistory }
func (HistoryAdded) MessageType() string    { return TypeHistoryAdded }
func (Rewound) MessageType() string         { return TypeRewound }
func (Trusted) MessageType() string         { return TypeTrusted }
func (DraftWritten) MessageType() string    { return TypeDraftWritten }
func (Created) MessageType() string         { return TypeCreated }
func (TitleSet) MessageType() string        { return TypeTitleSet }
func (Archived) MessageType() string        { return TypeArchived }
func (Unarchived) MessageType() string      { return TypeUnarchived }
func (Locked) MessageType() string          { return TypeLocked }
func (Unlocked) MessageType() string        { return TypeUnlocked }
func (EventsPushed) MessageType() string    { return TypeEventsPushed }
func (QueryStarted) MessageType() string    { return TypeQueryStarted }
func (Event) MessageType() string           { return TypeEvent }
func (QueryComplete) MessageType() string   { return TypeQueryComplete }
func (Interrupted) MessageType() string     { return TypeInterrupted }
func (PromptResponse) MessageType() string  { return TypePromptResponse }
func (Workspaces) MessageType() string      { return TypeWorkspaces }
func (Error) MessageType() string           { return TypeError }
