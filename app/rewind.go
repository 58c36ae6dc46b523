package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/filesnap"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Rewind is jp conversation rewind (and, later, a session's /rewind):
// restore every file a conversation's tools changed after turn N, from
// the file snapshots kept before each turn's first change, and fork the
// conversation there or truncate it (an overlay that hides the later
// turns from the model, as a compaction does: the events stay).
type Rewind struct {
	store  ports.ConversationStore
	locker ports.Locker
	snaps  ports.FileSnapshots
	clock  ports.Clock
	ids    ports.IDGenerator
}

// NewRewind builds the use case.
func NewRewind(store ports.ConversationStore, locker ports.Locker, snaps ports.FileSnapshots, clock ports.Clock, ids ports.IDGenerator) *Rewind {
	return &Rewind{store: store, locker: locker, snaps: snaps, clock: clock, ids: ids}
}

// RewindMode is what happens to the conversation.
type RewindMode int

// Rewind modes.
const (
	// RewindFork copies turns 1..N into a new conversation, which becomes
	// the active one; the original stays whole.
	RewindFork RewindMode = iota
	// RewindTruncate appends an overlay to the conversation that hides the
	// turns after N from the model; their events stay.
	RewindTruncate
)

// RewindInput is one rewind.
type RewindInput struct {
	Loc          workspace.Location
	Conversation conversation.ID
	// Turn keeps the first Turn complete turns (as jp c fork --turn counts
	// them); every turn after it is undone. 0 undoes every turn.
	Turn   int
	Mode   RewindMode
	Force  bool // restore files changed since jp wrote them
	DryRun bool // say what would be done; change nothing
}

// RewindFile is one file a rewind restores.
type RewindFile struct {
	filesnap.Restore
	// TurnNumbers are the undone turns (1-based) that changed it.
	TurnNumbers []int
}

// Action is "restore", "delete" (jp created it) or "unchanged" (it is
// already as it was).
func (f RewindFile) Action() string {
	switch {
	case f.Noop():
		return "unchanged"
	case !f.To.Exists:
		return "delete"
	case !f.Current.Exists:
		return "recreate"
	default:
		return "restore"
	}
}

// UnrecordedCall is a tool call of an undone turn whose effects on files
// jp did not record (shell, local command and MCP tools).
type UnrecordedCall struct {
	Turn int
	Name string
}

// RewindResult says what the rewind did (or, with DryRun, would do).
type RewindResult struct {
	Turns      int // complete turns the conversation had
	Undone     []int
	Files      []RewindFile
	Conflicts  []RewindFile // changed since jp wrote them (restored only with Force)
	Unrecorded []UnrecordedCall
	// Fork is the new conversation (RewindFork, not DryRun).
	Fork conversation.ID
	// Overlay is the event hiding the undone turns (RewindTruncate).
	Overlay *conversation.Event
}

// recordedTools are the tools whose file changes jp records or that
// change no file: every other tool's effects are not recorded.
var recordedTools = []string{
	"fs_create_file", "fs_modify_file", "fs_delete_file", "fs_move_file",
	"fs_read_file", "fs_list_files", "fs_grep_files", "git_status", "git_diff", "git_log", "web_fetch",
}

// rewindTurn is one turn of the conversation as the rewind sees it.
type rewindTurn struct {
	startID  string
	number   int // 1-based among complete turns; 0 for an incomplete one
	rustIdx  int // the turn's index as compaction overlays count turns
	complete bool
	calls    []string
}

// scanTurns splits the conversation into turns.
func (r *Rewind) scanTurns(ctx context.Context, loc workspace.Location, id conversation.ID) ([]rewindTurn, int, error) {
	var turns []rewindTurn
	// The overlay's turn numbers count as the transcript counts them
	// (turn.Transcript.Turns): events before the first turn_start are
	// turn 0; turn_end and foreign events open no turn.
	rust, rustHas := 0, false
	lastType := conversation.EventTypeUnknown
	closeTurn := func() {
		if n := len(turns); n > 0 {
			turns[n-1].complete = lastType == conversation.EventTypeTurnEnd
		}
	}
	err := r.store.ScanEvents(ctx, loc, id, func(e conversation.Event) error {
		switch e.Type {
		case conversation.EventTypeForeign, conversation.EventTypeTurnEnd:
		case conversation.EventTypeTurnStart:
			if rustHas {
				rust++
			}
			rustHas = true
		default:
			rustHas = true
		}
		switch e.Type {
		case conversation.EventTypeTurnStart:
			closeTurn()
			turns = append(turns, rewindTurn{startID: e.ID, rustIdx: rust})
		case conversation.EventTypeToolCallRequest:
			if n := len(turns); n > 0 {
				turns[n-1].calls = append(turns[n-1].calls, e.Name)
			}
		}
		if e.Type != conversation.EventTypeForeign {
			lastType = e.Type
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	closeTurn()
	complete := 0
	for i := range turns {
		if turns[i].complete {
			complete++
			turns[i].number = complete
		}
	}
	return turns, complete, nil
}

// Run rewinds a conversation under its lock.
func (r *Rewind) Run(ctx context.Context, in RewindInput) (RewindResult, error) {
	if in.Turn < 0 {
		return RewindResult{}, &UsageError{Msg: "--turn counts from 1 (0 undoes every turn)"}
	}
	if in.Loc.Root == "" {
		return RewindResult{}, &UserError{Msg: "jp conversation rewind restores files in a checkout: run it inside the workspace the conversation belongs to"}
	}
	if _, err := r.store.Get(ctx, in.Loc, in.Conversation); err != nil {
		return RewindResult{}, userNotFound(err)
	}
	release, err := r.locker.Lock(ctx, in.Loc, in.Conversation, LockWait)
	if err != nil {
		return RewindResult{}, LockError(err)
	}
	defer func() { _ = release() }()

	turns, complete, err := r.scanTurns(ctx, in.Loc, in.Conversation)
	if err != nil {
		return RewindResult{}, err
	}
	out := RewindResult{Turns: complete}
	if in.Turn > complete {
		return out, &UserError{Msg: fmt.Sprintf("conversation %s has %d complete turns: rewind --turn 0 to %d", in.Conversation, complete, max(complete-1, 0))}
	}
	// Every turn after the in.Turn-th complete one is undone, complete or
	// not.
	cut := len(turns)
	for i := range turns {
		if countBefore(turns, i) >= in.Turn {
			cut = i
			break
		}
	}
	if cut >= len(turns) {
		return out, &UserError{Msg: fmt.Sprintf("conversation %s has no turn after turn %d: nothing to rewind", in.Conversation, in.Turn)}
	}
	undone, number := undoTurns(turns[cut:], in.Turn, &out)
	if err := r.planFiles(ctx, in, undone, number, &out); err != nil || in.DryRun {
		return out, err
	}
	if err := r.restoreFiles(ctx, in, undone, &out); err != nil {
		return out, err
	}
	return out, r.rewriteConversation(ctx, in, turns, cut, &out)
}

// undoTurns numbers the turns undone (an interrupted one where it stands)
// and lists them, with their calls whose files jp does not record, in out.
// It returns the undone turns' start IDs and their numbers.
func undoTurns(turns []rewindTurn, kept int, out *RewindResult) (undone map[string]bool, number map[string]int) {
	undone = map[string]bool{}
	number = map[string]int{}
	for i, t := range turns {
		undone[t.startID] = true
		n := t.number
		if n == 0 {
			n = kept + i + 1 // an interrupted turn: numbered where it stands
		}
		number[t.startID] = n
		out.Undone = append(out.Undone, n)
		for _, c := range t.calls {
			if !slices.Contains(recordedTools, c) {
				out.Unrecorded = append(out.Unrecorded, UnrecordedCall{Turn: n, Name: c})
			}
		}
	}
	return undone, number
}

// planFiles plans the restore of the files the undone turns changed
// (out.Files, out.Conflicts); snapshots dropped by the bound are an error.
func (r *Rewind) planFiles(ctx context.Context, in RewindInput, undone map[string]bool, number map[string]int, out *RewindResult) error {
	idx, err := r.snaps.SnapshotIndex(ctx, in.Loc, in.Conversation)
	if err != nil {
		return err
	}
	if lost := filesnap.DroppedAmong(idx, undone); len(lost) > 0 {
		var ns []string
		for _, t := range lost {
			ns = append(ns, fmt.Sprint(number[t]))
		}
		return &UserError{Msg: fmt.Sprintf("the file snapshots of turn %s were dropped to stay within conversation.tools.snapshots.max_mb: rewinding to turn %d cannot restore their files; rewind to a later turn, or raise the bound for the next time", strings.Join(ns, ", "), in.Turn)}
	}
	paths := filesnap.Paths(idx, undone)
	current, err := r.snaps.FileStates(ctx, in.Loc, paths)
	if err != nil {
		return &UserError{Msg: "read the files to restore: " + err.Error(), Err: err}
	}
	for _, p := range filesnap.Plan(idx, undone, current) {
		f := RewindFile{Restore: p}
		for _, t := range p.Turns {
			f.TurnNumbers = append(f.TurnNumbers, number[t])
		}
		out.Files = append(out.Files, f)
		if p.Conflict {
			out.Conflicts = append(out.Conflicts, f)
		}
	}
	return nil
}

// restoreFiles restores the planned files, refusing conflicts unless
// forced.
func (r *Rewind) restoreFiles(ctx context.Context, in RewindInput, undone map[string]bool, out *RewindResult) error {
	if len(out.Conflicts) > 0 && !in.Force {
		var names []string
		for _, c := range out.Conflicts {
			names = append(names, c.Path)
		}
		return &UserError{Msg: fmt.Sprintf("refusing to rewind: %s changed since jp wrote %s (not by jp); nothing was changed. See them with --dry-run; --force restores them anyway",
			strings.Join(names, ", "), map[bool]string{true: "it", false: "them"}[len(names) == 1])}
	}
	restores := make([]filesnap.Restore, len(out.Files))
	for i, f := range out.Files {
		restores[i] = f.Restore
	}
	if err := r.snaps.RestoreFiles(ctx, in.Loc, in.Conversation, restores, undone); err != nil {
		return &UserError{Msg: err.Error(), Err: err}
	}
	return nil
}

// rewriteConversation forks the conversation up to the kept turn, or
// overlays the undone turns with a compaction note.
func (r *Rewind) rewriteConversation(ctx context.Context, in RewindInput, turns []rewindTurn, cut int, out *RewindResult) error {
	switch in.Mode {
	case RewindFork:
		o := ForkOptions{UpTo: in.Turn, NoTurns: in.Turn == 0}
		nid, err := forkWith(ctx, r.store, in.Loc, in.Conversation, o)
		if err != nil {
			return fmt.Errorf("the files are restored, but forking the conversation failed: %w", err)
		}
		if err := r.store.SetActive(ctx, in.Loc, nid); err != nil {
			return err
		}
		out.Fork = nid
	case RewindTruncate:
		from, to := turns[cut].rustIdx, turns[len(turns)-1].rustIdx
		note := fmt.Sprintf("[The turns after turn %d were rewound: their file changes were undone. Continue from turn %d.]", in.Turn, in.Turn)
		ev := conversation.NewCompactionEvent(r.ids.NewID(), r.clock.Now().UTC(), conversation.Compaction{
			FromTurn: from, ToTurn: to, Summary: &note,
		})
		if err := r.store.Append(ctx, in.Loc, in.Conversation, ev); err != nil {
			return fmt.Errorf("the files are restored, but truncating the conversation failed: %w", err)
		}
		out.Overlay = &ev
	}
	return nil
}

// countBefore counts the complete turns before turns[i].
func countBefore(turns []rewindTurn, i int) int {
	n := 0
	for _, t := range turns[:i] {
		if t.complete {
			n++
		}
	}
	return n
}
