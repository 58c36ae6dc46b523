package ports

import (
	"errors"
	"fmt"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
)

// Sentinel errors adapters return so that callers can branch with errors.Is.
var (
	ErrNotFound         = errors.New("not found")
	ErrLocked           = errors.New("locked")
	ErrExists           = errors.New("already exists")
	ErrCorrupt          = errors.New("corrupt file")
	ErrRevisionMismatch = errors.New("revision mismatch")
	ErrNoWorkspace      = errors.New("not inside a workspace")
	ErrCancelled        = errors.New("cancelled")
	ErrInterrupted      = errors.New("interrupted")
	ErrUnavailable      = errors.New("unavailable")
	ErrUnsafePath       = errors.New("unsafe path")
)

// LinkError names a symbolic link (or other non-directory, non-file entry)
// found where jp keeps its own files, under a checkout's .jp/ or the data
// directory. jp does not follow it and writes nothing through it.
type LinkError struct {
	Path string
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link and jp does not follow links under .jp/ or its data directory; replace it with the real directory or file, or remove it", e.Path)
}

// Unwrap makes errors.Is(err, ErrUnsafePath) true.
func (e *LinkError) Unwrap() error { return ErrUnsafePath }

// LockedError says who holds a conversation lock.
type LockedError struct {
	Conversation string
	PID          int
}

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("conversation %s is locked by another jp process (pid %d); wait for it to finish or stop it", e.Conversation, e.PID)
	}
	return fmt.Sprintf("conversation %s is locked by another jp process; wait for it to finish or stop it", e.Conversation)
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Unwrap() error { return ErrLocked }

// CorruptError names a file that could not be parsed. The file is left as
// it was.
type CorruptError struct {
	Path string
	Err  error
	// Hint, when set, replaces the generic "fix or remove it by hand".
	Hint string
}

func (e *CorruptError) Error() string {
	hint := e.Hint
	if hint == "" {
		hint = "fix or remove it by hand"
	}
	return fmt.Sprintf("%s is not valid (%v); it was left untouched: %s", e.Path, e.Err, hint)
}

// Unwrap makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// NotFoundError names what was not found.
type NotFoundError struct {
	What string // e.g. "conversation 1712758392"
	Hint string // what to do, e.g. "list them with jp conversation ls"
}

func (e *NotFoundError) Error() string {
	if e.Hint != "" {
		return fmt.Sprintf("%s not found: %s", e.What, e.Hint)
	}
	return e.What + " not found"
}

// Unwrap makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// ConversationNotFound is the not-found error of a conversation ID, with
// what to do.
func ConversationNotFound(id conversation.ID) error {
	return &NotFoundError{What: "conversation " + string(id), Hint: "list conversations with jp conversation ls"}
}

// WorkspaceExistsError refuses to init a directory that is already a
// workspace; errors.Is(err, ErrExists) is true.
type WorkspaceExistsError struct {
	Root string
	ID   workspace.ID
}

// Error names the directory and the workspace it already holds.
func (e *WorkspaceExistsError) Error() string {
	return fmt.Sprintf("%s is already a jp workspace (ID %s)", e.Root, e.ID)
}

// Unwrap makes errors.Is(err, ErrExists) true.
func (e *WorkspaceExistsError) Unwrap() error { return ErrExists }

// CheckoutCopyError says that a write reached the user-local copy of a
// conversation (the source of truth: what was written is saved) but not
// its copy in the checkout, which stays as it was until a later write
// updates it.
type CheckoutCopyError struct {
	ID  conversation.ID
	Err error
}

func (e *CheckoutCopyError) Error() string {
	return fmt.Sprintf("the checkout copy of conversation %s could not be updated: %v", e.ID, e.Err)
}

func (e *CheckoutCopyError) Unwrap() error { return e.Err }

// ErrForeignOwner is wrapped by ForeignOwnerError.
var ErrForeignOwner = errors.New("owned by another user")

// ForeignOwnerError refuses a workspace whose .jp/ or .jp.toml another user
// owns (neither the current user nor root), as git refuses such a
// repository: obeying it would run that user's configuration with the
// current user's rights.
type ForeignOwnerError struct {
	Path  string // the .jp directory or .jp.toml file
	Dir   string // the directory to list in safe_directories
	Owner string // the owner's user name, or its numeric ID
	// ConfigFile is the user configuration file that allows it; empty
	// when unknown.
	ConfigFile string
}

// Error is one line: what is refused, whose it is, and how to allow it.
func (e *ForeignOwnerError) Error() string {
	file := e.ConfigFile
	if file == "" {
		file = "your user configuration file (<config>/config.toml)"
	}
	return fmt.Sprintf("refusing the workspace at %s: %s is owned by %s, not by you or root; if you trust it, add safe_directories = [%q] to %s",
		e.Dir, e.Path, e.Owner, e.Dir, file)
}

// Unwrap makes errors.Is(err, ErrForeignOwner) true.
func (e *ForeignOwnerError) Unwrap() error { return ErrForeignOwner }
