package ports

import (
	"context"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/filesnap"
	"github.com/jpcli/jp/domain/workspace"
)

// FileSnapshots keeps, in the user-local store beside a conversation,
// what the files its tools changed looked like before each turn's first
// change (content or absence), so that jp conversation rewind can put
// them back. Paths are relative to the checkout loc.Root, slash-separated.
// Not to be confused with BlockCheckpoints (a streamed answer's text).
type FileSnapshots interface {
	// CaptureFiles keeps the current state of files in the checkout for turn
	// (a turn_start event's ID), unless the turn has them already; tool
	// names the tool about to change them. Then the oldest turns are
	// dropped until the kept contents take at most maxBytes (<= 0: no
	// bound); dropped lists them.
	CaptureFiles(ctx context.Context, loc workspace.Location, id conversation.ID, turn, tool string, files []string, maxBytes int64) (dropped []string, err error)
	// WroteFiles records the state files are in now, as jp's tool of turn
	// left them: what a rewind expects to find.
	WroteFiles(ctx context.Context, loc workspace.Location, id conversation.ID, turn string, files []string) error
	// SnapshotIndex returns the conversation's records (empty when it has none).
	SnapshotIndex(ctx context.Context, loc workspace.Location, id conversation.ID) (filesnap.Index, error)
	// FileStates reads the state of files in the checkout loc.Root now.
	FileStates(ctx context.Context, loc workspace.Location, files []string) (map[string]filesnap.State, error)
	// RestoreFiles puts each file back in its To state (its kept content, or
	// removes it), each file atomically, then drops the records of the
	// turns undone (their changes are undone). A file whose content is no
	// longer kept is an error naming it, before anything is written.
	RestoreFiles(ctx context.Context, loc workspace.Location, id conversation.ID, restores []filesnap.Restore, undone map[string]bool) error
}

// GitCommitter commits files of a checkout (conversation.tools.git_commit
// = "turn"): only the files named, on the current branch, never amending
// and never pushing.
type GitCommitter interface {
	// CommitFiles commits files (relative to root) with message and
	// returns the new commit's short hash; "" when there was nothing to
	// commit (the files are as HEAD has them).
	CommitFiles(ctx context.Context, root string, files []string, message string) (string, error)
}
