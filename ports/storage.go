package ports

import (
	"context"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
)

// NewConversation describes a conversation to create.
type NewConversation struct {
	Title string
	// Local conversations are kept in the user-local silo only and never
	// projected into the checkout.
	Local bool
	// Labels are the new conversation's labels, key to value (CreateFrom
	// only).
	Labels map[string]string
}

// ConversationStore keeps conversations: the user-local silo is the source
// of truth; non-local conversations are also projected into the checkout's
// .jp/conversations (docs/storage.md). All methods are safe for concurrent
// use; writers of one conversation serialise through the Locker.
type ConversationStore interface {
	// List returns the conversations visible from loc: the silo's plus those
	// only in loc.Root's projection. It reads metadata, never events.
	List(ctx context.Context, loc workspace.Location) ([]conversation.Summary, error)
	// Get returns one conversation's summary. Unknown IDs give a
	// *NotFoundError.
	Get(ctx context.Context, loc workspace.Location, id conversation.ID) (conversation.Summary, error)
	// Events returns the conversation's events in order.
	Events(ctx context.Context, loc workspace.Location, id conversation.ID) ([]conversation.Event, error)
	// ScanEvents calls fn with each of the conversation's events in order
	// (the events Events returns), reading them as it goes: a long
	// conversation is never held in memory whole. An error from fn stops
	// the scan and is returned as it is.
	ScanEvents(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(conversation.Event) error) error
	// Create makes a new, empty conversation and returns its ID.
	Create(ctx context.Context, loc workspace.Location, nc NewConversation) (conversation.ID, error)
	// CreateFrom makes a new conversation holding the events fill passes
	// to add, in order (checked against the stream invariants as they
	// come), and returns its ID. The conversation appears whole or not at
	// all: it is built aside and put in place once fill has returned, so
	// an error (from fill, returned as it is, or from add) or a killed
	// process leaves no conversation listed. Events are written as they
	// come, never held whole.
	CreateFrom(ctx context.Context, loc workspace.Location, nc NewConversation, fill func(add func(conversation.Event) error) error) (conversation.ID, error)
	// Append adds events after checking the stream invariants, bumps
	// events_count and last_activated_at, imports a projection-only
	// conversation first, and re-projects a non-local one into loc.Root.
	// When only that re-projection fails, the events are saved and the
	// error is a *CheckoutCopyError.
	Append(ctx context.Context, loc workspace.Location, id conversation.ID, evs ...conversation.Event) error
	// UpdateMetadata rewrites metadata.json through fn (and its projection).
	UpdateMetadata(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(*conversation.Metadata) error) error
	// LocalMetadata reads metadata.local.json (zero value when absent).
	LocalMetadata(ctx context.Context, loc workspace.Location, id conversation.ID) (conversation.LocalMetadata, error)
	// UpdateLocalMetadata rewrites metadata.local.json through fn, keeping
	// keys it does not know.
	UpdateLocalMetadata(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(*conversation.LocalMetadata) error) error
	// Active returns the conversation last recorded with SetActive for the
	// checkout loc.Root (machine-local, never projected); "" when none is.
	// The ID may name a conversation since removed.
	Active(ctx context.Context, loc workspace.Location) (conversation.ID, error)
	// SetActive records id as the checkout's active conversation (and the
	// terminal session's, when the store has one), keeping the one it
	// replaces as the previous one.
	SetActive(ctx context.Context, loc workspace.Location, id conversation.ID) error
	// Previous returns the conversation active before the current one in
	// the terminal session (else the checkout); "" when none is recorded.
	Previous(ctx context.Context, loc workspace.Location) (conversation.ID, error)
	// Remove deletes the conversation from the silo and from loc.Root's
	// projection.
	Remove(ctx context.Context, loc workspace.Location, id conversation.ID) error
	// Trash removes the conversation as Remove does, but keeps it in the
	// workspace's trash (user-local, never projected) so that Restore can
	// bring it back until TrashKeep has passed.
	Trash(ctx context.Context, loc workspace.Location, id conversation.ID) error
	// Trashed lists the workspace's trash, most recently removed first,
	// after deleting the entries kept longer than TrashKeep.
	Trashed(ctx context.Context, loc workspace.Location) ([]TrashedConversation, error)
	// Restore puts the most recently trashed copy of id back: into the
	// silo, projected into loc.Root unless it is --local. An ID not in the
	// trash is a *NotFoundError; one that exists again in loc is an error
	// wrapping ErrExists (nothing is overwritten).
	Restore(ctx context.Context, loc workspace.Location, id conversation.ID) error
}

// ExpiryRecord is what a ConversationStore may offer to spare a run the
// listing of every conversation to find the expired ones: a record of
// the earliest expiry the last sweep left, valid while no conversation
// was added to loc or given an expiry since. A store without it is
// listed whole at every sweep.
type ExpiryRecord interface {
	// SweepNeeded reports whether a conversation of loc other than keep
	// (the run's own, which the sweep leaves) may have expired by now,
	// and a token for the state of loc's conversations, taken before the
	// sweep lists them, to pass to RecordNextExpiry.
	SweepNeeded(ctx context.Context, loc workspace.Location, now time.Time, keep conversation.ID) (needed bool, state string)
	// RecordNextExpiry records the earliest expiry among the
	// conversations other than keep a sweep left (zero: none has one)
	// for state.
	RecordNextExpiry(ctx context.Context, loc workspace.Location, state string, next time.Time) error
}

// TrashKeep is how long a conversation removed with Trash can be
// restored.
const TrashKeep = 30 * 24 * time.Hour

// TrashedConversation is one entry of a workspace's trash.
type TrashedConversation struct {
	ID        conversation.ID
	Title     string
	RemovedAt time.Time
}

// Draft is the content of a conversation's QUERY_MESSAGE.md.
type Draft struct {
	Text string
	// Revision is opaque and changes on every write.
	Revision string
}

// DraftStore keeps the per-conversation draft (the queued-reply slot). It
// lives in the user-local silo only and is never projected.
type DraftStore interface {
	// ReadDraft returns the draft; a missing draft is a *NotFoundError.
	ReadDraft(ctx context.Context, loc workspace.Location, id conversation.ID) (Draft, error)
	// WriteDraft replaces the draft atomically. With ifRevision non-empty it
	// fails with ErrRevisionMismatch unless the draft still has it.
	WriteDraft(ctx context.Context, loc workspace.Location, id conversation.ID, text, ifRevision string) (string, error)
	// DeleteDraft removes the draft; a missing draft is not an error.
	DeleteDraft(ctx context.Context, loc workspace.Location, id conversation.ID) error
	// DraftPath is the draft's file path, for an external editor; empty
	// for stores without files.
	DraftPath(loc workspace.Location, id conversation.ID) string
}

// Found is the workspace containing a directory.
type Found struct {
	ID   workspace.ID
	Root string // canonical checkout root
}

// WorkspaceRegistry finds workspaces on disk and keeps the roots registry.
type WorkspaceRegistry interface {
	// Canonical returns the absolute, symlink-resolved form of dir.
	Canonical(dir string) (string, error)
	// Init creates .jp/.id and .jp/config.toml in dir; an existing
	// workspace gives an error wrapping ErrExists that names its ID.
	Init(ctx context.Context, dir string) (Found, error)
	// Find walks up from dir to the nearest directory holding .jp/.id;
	// ErrNoWorkspace when there is none.
	Find(ctx context.Context, dir string) (Found, error)
	// ReadID reads <root>/.jp/.id.
	ReadID(ctx context.Context, root string) (workspace.ID, error)
	// Register upserts roots/<root-key>.json for the checkout with
	// last_used = now, creating the silo (slugged from the root's base
	// name) when it does not exist yet.
	Register(ctx context.Context, f Found) error
	// Known lists every workspace with a silo, with liveness derived now.
	// It writes nothing.
	Known(ctx context.Context) ([]workspace.Known, error)
	// Lookup returns one known workspace; unknown IDs give a
	// *NotFoundError.
	Lookup(ctx context.Context, id workspace.ID) (workspace.Known, error)
	// DataDir is the jp data directory (for the log file).
	DataDir() string
}

// Locker serialises writers of one conversation across processes.
type Locker interface {
	// Lock takes the conversation's lock, waiting up to wait for another
	// holder. A lock still held then gives a *LockedError. The returned
	// release function is idempotent.
	Lock(ctx context.Context, loc workspace.Location, id conversation.ID, wait time.Duration) (release func() error, err error)
}

// BlockCheckpoints keeps the content block being streamed, so that a
// process killed in the middle of a long answer loses at most the text of
// the last fraction of a second. The checkpoint is not an event: readers
// of the conversation see it as a last chat_response while no event was
// recorded after it began, and the next writer of the conversation folds
// it in as one. Checkpoints are best effort and never synced to disk per
// call (a killed process leaves its writes in the page cache).
type BlockCheckpoints interface {
	// CheckpointBlock adds text to the checkpoint of the block in flight;
	// fresh starts a new block (of reasoning, or of message text),
	// replacing any earlier checkpoint.
	CheckpointBlock(ctx context.Context, loc workspace.Location, id conversation.ID, text string, reasoning, fresh bool) error
	// DropCheckpoint removes the checkpoint: the block was recorded as an
	// event. No checkpoint is not an error.
	DropCheckpoint(ctx context.Context, loc workspace.Location, id conversation.ID) error
}

// ConversationDirs is implemented by stores that keep each conversation
// in a directory of its own (jp c path).
type ConversationDirs interface {
	// ConversationDir returns the directory of conversation id: the
	// checkout's copy when there is one, else the user-local one. An
	// unknown ID gives a *NotFoundError.
	ConversationDir(ctx context.Context, loc workspace.Location, id conversation.ID) (string, error)
}

// ConversationConfigs is implemented by stores that keep a conversation's
// base configuration (the Rust jp's base_config.json).
type ConversationConfigs interface {
	// BaseConfig returns conversation id's base_config.json (nil when it
	// has none), and whether the conversation has a copy in the checkout
	// (its .jp/conversations, text a repository can commit: its
	// configuration is then the checkout's own). An unknown ID gives a
	// *NotFoundError.
	BaseConfig(ctx context.Context, loc workspace.Location, id conversation.ID) (data []byte, inCheckout bool, err error)
}

// EventRewriter is implemented by stores that can replace a
// conversation's events in one atomic write (jp q --replay drops the last
// turn this way, as the Rust jp does, so a Rust jp reading the file
// afterwards sees the same conversation).
type EventRewriter interface {
	// RewriteEvents replaces conversation id's events with what fn returns
	// given them, checked against the stream invariants: the events file
	// is replaced whole (temp file and rename) or not at all. Events read
	// from the files are written back as they were stored, unknown fields
	// and kinds included. The caller holds the conversation's lock.
	RewriteEvents(ctx context.Context, loc workspace.Location, id conversation.ID, fn func([]conversation.Event) ([]conversation.Event, error)) error
}
