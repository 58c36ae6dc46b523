package plugin

import (
	"encoding/json"
	"fmt"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
)

// Wire names of the messages a plugin sends.
const (
	TypeReady              = "ready"
	TypeDescribe           = "describe" // also the host's request
	TypeExit               = "exit"
	TypePrint              = "print"
	TypeLog                = "log"
	TypeListConversations  = "list_conversations"
	TypeReadEvents         = "read_events"
	TypeReadConfig         = "read_config"
	TypeReadDraft          = "read_draft"
	TypeWriteDraft         = "write_draft"
	TypeCreateConversation = "create_conversation"
	TypeSetTitle           = "set_title"
	TypeArchive            = "archive"
	TypeUnarchive          = "unarchive"
	TypeLock               = "lock"
	TypeUnlock             = "unlock"
	TypeQuery              = "query"
	TypeInterrupt          = "interrupt"
	TypeRespond            = "respond"
	TypePrompt             = "prompt"
	TypeListWorkspaces     = "list_workspaces"
	TypePushEvents         = "push_events"
	TypeContextMeter       = "context_meter"
	TypeCompact            = "compact"
	TypeReadHistory        = "read_history"
	TypeAddHistory         = "add_history"
	TypeRewind             = "rewind"
	TypeTrust              = "trust"
)

// Ready answers init: the plugin is up. Protocol, when set, is the lowest
// protocol version the plugin needs (absent reads as 1).
type Ready struct {
	Protocol int `json:"protocol,omitempty"`
}

// Description answers the host's describe request: the manifest fields.
type Description struct {
	Manifest
}

// Exit ends the plugin's run: the host releases its locks and exits with
// Code, printing Reason when Code is not 0.
type Exit struct {
	Code   int    `json:"code"`
	Reason string `json:"reason,omitempty"`
}

// Print is user-facing output, routed through the host's printer. Channel
// is one of content (the default), chrome, tool_call, tool_result,
// reasoning, error; Language is the hint of the code format.
type Print struct {
	Text     string      `json:"text"`
	Channel  string      `json:"channel,omitempty"`
	Format   PrintFormat `json:"format,omitempty"`
	Language string      `json:"language,omitempty"`
}

// Log is a structured line for the host's log: Level is trace, debug,
// info, warn or error.
type Log struct {
	Level   string         `json:"level"`
	Message string         `json:"message"`
	Fields  map[string]any `json:"fields,omitempty"`
}

// ListConversations asks for the workspace's conversations; the answer is
// Conversations.
type ListConversations struct {
	ID        string         `json:"id,omitempty"`
	Workspace *workspace.Ref `json:"workspace,omitempty"`
}

// ConversationRequest is the shape of every request that names one
// conversation and nothing more: ReadEvents, ReadDraft, Archive,
// Unarchive, Lock, Unlock and Interrupt. Conversation is required.
type ConversationRequest struct {
	ID           string         `json:"id,omitempty"`
	Workspace    *workspace.Ref `json:"workspace,omitempty"`
	Conversation string         `json:"conversation"`
}

// ReadEvents asks for a conversation's events; the answer is Events.
// Without Offset and Limit it asks for all of them in one answer. With
// either it asks for a page (Paged): the stored events from index
// *Offset (0 when nil) on, at most Limit of them (0: no count bound), and
// never more than PageBytes of encoded events, whatever Limit allows; the
// answer's NextOffset and More say where the next page starts.
type ReadEvents struct {
	ID           string         `json:"id,omitempty"`
	Workspace    *workspace.Ref `json:"workspace,omitempty"`
	Conversation string         `json:"conversation"`
	Offset       *int           `json:"offset,omitempty"`
	Limit        int            `json:"limit,omitempty"`
}

// Paged reports whether r asks for a page rather than every event.
func (r ReadEvents) Paged() bool { return r.Offset != nil || r.Limit != 0 }

// From is the index of the first event r asks for (0 when none is named).
func (r ReadEvents) From() int {
	if r.Offset == nil {
		return 0
	}
	return *r.Offset
}

// PageBytes bounds the encoded events of one read_events page: a page
// stops before the event that would take it past this size, unless that
// event is the page's first (a page always makes progress).
const PageBytes = 1 << 20

// AskForPages ends jp's error answer to a read_events without offset and
// limit whose events are too long for one message (plugin.MaxLine): a
// plugin that finds it in the error's message reads the conversation a
// page at a time instead.
const AskForPages = "read it a page at a time (read_events offset and limit)"

// PartialIDPrefix starts the ID of the block in flight read_events ends
// with while an answer streams: a chat_response holding the text so far,
// not a stored event (docs/plugins.md, read_events).
const PartialIDPrefix = "partial-"

// ContextMeter asks for a conversation's context meter: the estimated
// size of its next request against the model's window, as jp
// conversation show ends with. The answer is Meter.
type ContextMeter ConversationRequest

// ReadHistory asks for the session's message history (the messages Up
// recalls in jp's composer, every workspace's): the answer is History.
type ReadHistory struct {
	ID string `json:"id,omitempty"`
}

// AddHistory records a message sent from a frontend in the message
// history, as the terminal session records one; the answer is
// HistoryAdded.
type AddHistory struct {
	ID   string `json:"id,omitempty"`
	Text string `json:"text"`
}

// Compact compacts a conversation by its configured rules
// (conversation.compaction.rules), as jp conversation compact without
// flags does; DryRun only says what would change. The answer is
// Compacted.
type Compact struct {
	ID           string         `json:"id,omitempty"`
	Workspace    *workspace.Ref `json:"workspace,omitempty"`
	Conversation string         `json:"conversation"`
	DryRun       bool           `json:"dry_run,omitempty"`
}

// Rewind is jp conversation rewind: restore the files the conversation's
// tools changed after turn Turn (complete turns, counted from 1; 0 undoes
// every turn) and fork the conversation there (the fork becomes the
// active conversation), or, with Truncate, hide the later turns from the
// model. Force restores files changed since jp wrote them too; DryRun
// only says what would change. The answer is Rewound.
type Rewind struct {
	ID           string         `json:"id,omitempty"`
	Workspace    *workspace.Ref `json:"workspace,omitempty"`
	Conversation string         `json:"conversation"`
	Turn         int            `json:"turn"`
	Truncate     bool           `json:"truncate,omitempty"`
	Force        bool           `json:"force,omitempty"`
	DryRun       bool           `json:"dry_run,omitempty"`
}

// TrustCheckout is jp workspace trust for the checkout the request names: record
// that the user trusts its configuration's keys that run programs or send
// data, so that they apply. DryRun only reviews: it says what the
// configuration holds and whether it is trusted, and writes nothing. The
// answer is Trusted.
type TrustCheckout struct {
	ID        string         `json:"id,omitempty"`
	Workspace *workspace.Ref `json:"workspace,omitempty"`
	DryRun    bool           `json:"dry_run,omitempty"`
	// Hash, when given, is the Hash of the review the user was shown (a
	// dry run's Trusted): jp trusts only if the configuration still
	// holds exactly those keys, and refuses otherwise, so a change made
	// between the question and the answer is never trusted unseen.
	Hash string `json:"hash,omitempty"`
}

// ReadConfig asks for the resolved configuration, or the subtree at Path
// (a dot path as in --cfg); the answer is Config.
type ReadConfig struct {
	ID        string         `json:"id,omitempty"`
	Workspace *workspace.Ref `json:"workspace,omitempty"`
	Path      string         `json:"path,omitempty"`
}

// ReadDraft asks for a conversation's draft (its query text); the answer
// is Draft.
type ReadDraft ConversationRequest

// WriteDraft replaces a draft's query text, keeping its meta section. With
// Revision it fails unless the draft still has that revision. Text is
// required (a pointer so that an absent field is told from "").
type WriteDraft struct {
	ID           string         `json:"id,omitempty"`
	Workspace    *workspace.Ref `json:"workspace,omitempty"`
	Conversation string         `json:"conversation"`
	Text         *string        `json:"text"`
	Revision     string         `json:"revision,omitempty"`
}

// CreateConversation makes a new conversation; the answer is Created.
type CreateConversation struct {
	ID        string         `json:"id,omitempty"`
	Workspace *workspace.Ref `json:"workspace,omitempty"`
	Title     string         `json:"title,omitempty"`
	Local     bool           `json:"local,omitempty"`
}

// SetTitle renames a conversation; the answer is TitleSet.
type SetTitle struct {
	ID           string         `json:"id,omitempty"`
	Workspace    *workspace.Ref `json:"workspace,omitempty"`
	Conversation string         `json:"conversation"`
	Title        string         `json:"title"`
}

// Archive hides a conversation from listings; the answer is Archived.
type Archive ConversationRequest

// Unarchive undoes Archive; the answer is Unarchived.
type Unarchive ConversationRequest

// Lock takes a conversation's lock for the plugin; the answer is Locked.
// The host releases it on Unlock, and when the plugin exits or dies.
type Lock ConversationRequest

// Unlock releases a lock the plugin took; the answer is Unlocked.
type Unlock ConversationRequest

// PushEvents appends events to a conversation whose lock the plugin
// holds (the protocol-1 write): the answer is EventsPushed. The events
// are checked against the stream's invariants as any append is; an event
// without an id or a timestamp gets one from the host.
type PushEvents struct {
	ID           string            `json:"id,omitempty"`
	Conversation string            `json:"conversation"`
	Events       []json.RawMessage `json:"events"`
}

// Query runs a delegated turn (docs/plugins.md): the answer is QueryStarted,
// then Event pushes, then QueryComplete, all with the query's id; a
// refusal (the last-root precondition, a lock held elsewhere) is an Error
// with that id. ExpectedLastRoot is the record the frontend showed the
// user (docs/plugins.md).
type Query struct {
	ID               string                 `json:"id,omitempty"`
	Workspace        *workspace.Ref         `json:"workspace,omitempty"`
	Conversation     string                 `json:"conversation"`
	Content          string                 `json:"content"`
	ExpectedLastRoot *conversation.LastRoot `json:"expected_last_root,omitempty"`
	Schema           json.RawMessage        `json:"schema,omitempty"`
	// Attachments are attached to the message as jp q -a does: paths
	// (files, directories, globs) relative to the addressed checkout and
	// inside it, cmd:COMMAND run there, or http(s) URLs.
	Attachments []string `json:"attachments,omitempty"`
}

// Interrupt stops the delegated turn running on a conversation as Stop
// would: what the turn has is saved, and its QueryComplete says stopped.
type Interrupt ConversationRequest

// Respond answers a pushed tool approval: Action is approve or reject.
type Respond struct {
	ID     string `json:"id,omitempty"`
	CallID string `json:"call_id"`
	Action string `json:"action"`
}

// ListWorkspaces asks for the known workspaces (docs/plugins.md).
type ListWorkspaces struct {
	ID string `json:"id,omitempty"`
}

// Prompt asks the user a question through the host (docs/plugins.md); the answer
// is PromptResponse. Options are required for select; Default is a bool
// for confirm and a string for text.
type Prompt struct {
	ID      string     `json:"id,omitempty"`
	Kind    PromptKind `json:"kind"`
	Message string     `json:"message"`
	Default any        `json:"default,omitempty"`
	Options []string   `json:"options,omitempty"`
}

// MessageType implementations.
func (Ready) MessageType() string              { return TypeReady }
func (Description) MessageType() string        { return TypeDescribe }
func (Exit) MessageType() string               { return TypeExit }
func (Print) MessageType() string              { return TypePrint }
func (Log) MessageType() string                { return TypeLog }
func (ListConversations) MessageType() string  { return TypeListConversations }
func (ReadEvents) MessageType() string         { return TypeReadEvents }
func (ReadConfig) MessageType() string         { return TypeReadConfig }
func (ReadDraft) MessageType() string          { return TypeReadDraft }
func (WriteDraft) MessageType() string         { return TypeWriteDraft }
func (CreateConversation) MessageType() string { return TypeCreateConversation }
func (SetTitle) MessageType() string           { return TypeSetTitle }
func (Archive) MessageType() string            { return TypeArchive }
func (Unarchive) MessageType() string          { return TypeUnarchive }
func (Lock) MessageType() string               { return TypeLock }
func (Unlock) MessageType() string             { return TypeUnlock }
func (Query) MessageType() string              { return TypeQuery }
func (Interrupt) MessageType() string          { return TypeInterrupt }
func (Respond) MessageType() string            { return TypeRespond }
func (ListWorkspaces) MessageType() string     { return TypeListWorkspaces }
func (Prompt) MessageType() string             { return TypePrompt }
func (PushEvents) MessageType() string         { return TypePushEvents }
func (ContextMeter) MessageType() string       { return TypeContextMeter }
func (Compact) MessageType() string            { return TypeCompact }
func (ReadHistory) MessageType() string        { return TypeReadHistory }
func (AddHistory) MessageType() string         { return TypeAddHistory }
func (Rewind) MessageType() string             { return TypeRewind }
func (TrustCheckout) MessageType() string      { return TypeTrust }

// Validate implementations: required fields and closed values. A
// conversation ID must be well-formed (digits only, no path characters).
func (Ready) Validate() error         { return nil }
func (d Description) Validate() error { return d.Manifest.Validate() }

// Validate checks the exit code is a process exit status.
func (e Exit) Validate() error {
	if e.Code < 0 || e.Code > 255 {
		return fmt.Errorf("%w: code must be between 0 and 255, not %d", ErrBadField, e.Code)
	}
	return nil
}

// Validate checks the channel name shape; the host checks it names one of
// its channels.
func (Print) Validate() error { return nil }

// Validate checks the level.
func (l Log) Validate() error {
	if _, err := ParseLogLevel(l.Level); err != nil {
		return fmt.Errorf("%w: level: %v", ErrBadField, err)
	}
	return nil
}

func (ListConversations) Validate() error { return nil }

// Validate checks the conversation and that the page's bounds are not
// negative.
func (r ReadEvents) Validate() error {
	if r.Offset != nil && *r.Offset < 0 {
		return fmt.Errorf("%w: offset must be 0 or more (the index of the first event wanted), not %d", ErrBadField, *r.Offset)
	}
	if r.Limit < 0 {
		return fmt.Errorf("%w: limit must be 0 (no bound) or more, not %d", ErrBadField, r.Limit)
	}
	return checkConversation(r.Conversation)
}

func (r ContextMeter) Validate() error { return checkConversation(r.Conversation) }
func (r Compact) Validate() error      { return checkConversation(r.Conversation) }
func (ReadHistory) Validate() error    { return nil }
func (TrustCheckout) Validate() error  { return nil }

// Validate checks the conversation and that the turn counts from 0.
func (r Rewind) Validate() error {
	if r.Turn < 0 {
		return fmt.Errorf("%w: turn counts from 1 (0 undoes every turn), not %d", ErrBadField, r.Turn)
	}
	return checkConversation(r.Conversation)
}

// Validate checks there is a message to record.
func (r AddHistory) Validate() error {
	if r.Text == "" {
		return fmt.Errorf("%w: text is required", ErrBadField)
	}
	return nil
}
func (ReadConfig) Validate() error         { return nil }
func (r ReadDraft) Validate() error        { return checkConversation(r.Conversation) }
func (CreateConversation) Validate() error { return nil }
func (r Archive) Validate() error          { return checkConversation(r.Conversation) }
func (r Unarchive) Validate() error        { return checkConversation(r.Conversation) }
func (r Lock) Validate() error             { return checkConversation(r.Conversation) }
func (r Unlock) Validate() error           { return checkConversation(r.Conversation) }

// Validate checks the conversation and that there is an event to push.
func (r PushEvents) Validate() error {
	if err := checkConversation(r.Conversation); err != nil {
		return err
	}
	if len(r.Events) == 0 {
		return fmt.Errorf("%w: events must hold at least one event", ErrBadField)
	}
	return nil
}
func (r Interrupt) Validate() error    { return checkConversation(r.Conversation) }
func (ListWorkspaces) Validate() error { return nil }

// Validate checks the conversation and that text is present.
func (r WriteDraft) Validate() error {
	if err := checkConversation(r.Conversation); err != nil {
		return err
	}
	if r.Text == nil {
		return missing("text")
	}
	return nil
}

// Validate checks the conversation and the title.
func (r SetTitle) Validate() error {
	if err := checkConversation(r.Conversation); err != nil {
		return err
	}
	if r.Title == "" {
		return missing("title")
	}
	return nil
}

// Validate checks the conversation and the content.
func (r Query) Validate() error {
	if err := checkConversation(r.Conversation); err != nil {
		return err
	}
	if r.Content == "" {
		return missing("content")
	}
	return nil
}

// Validate checks call_id and action.
func (r Respond) Validate() error {
	if r.CallID == "" {
		return missing("call_id")
	}
	if r.Action != "approve" && r.Action != "reject" {
		return fmt.Errorf("%w: action must be approve or reject, not %q", ErrBadField, r.Action)
	}
	return nil
}

// Validate checks the kind, the message, the options of a select and the
// type of the default.
func (p Prompt) Validate() error {
	if p.Kind == PromptKindUnknown {
		return missing("kind")
	}
	if p.Message == "" {
		return missing("message")
	}
	switch p.Kind {
	case PromptKindConfirm:
		if _, ok := p.Default.(bool); p.Default != nil && !ok {
			return fmt.Errorf("%w: default of a confirm must be a boolean", ErrBadField)
		}
	case PromptKindText:
		if _, ok := p.Default.(string); p.Default != nil && !ok {
			return fmt.Errorf("%w: default of a text prompt must be a string", ErrBadField)
		}
	case PromptKindSelect, PromptKindSecret:
		if p.Default != nil {
			return fmt.Errorf("%w: a %s prompt takes no default", ErrBadField, p.Kind)
		}
	}
	if p.Kind == PromptKindSelect {
		if len(p.Options) == 0 {
			return fmt.Errorf("%w: options of a select must be a non-empty array of strings", ErrBadField)
		}
		for i, o := range p.Options {
			if o == "" {
				return fmt.Errorf("%w: options[%d] is empty", ErrBadField, i)
			}
		}
	} else if len(p.Options) > 0 {
		return fmt.Errorf("%w: options are only for select prompts", ErrBadField)
	}
	return nil
}

// checkConversation requires a well-formed conversation ID.
func checkConversation(s string) error {
	if s == "" {
		return missing("conversation")
	}
	if _, err := conversation.ParseID(s); err != nil {
		return fmt.Errorf("%w: conversation: %v", ErrBadField, err)
	}
	return nil
}
