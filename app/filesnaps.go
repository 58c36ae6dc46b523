package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// File snapshots (not the block checkpoints of checkpoint.go): before a
// tool that previews its change (the built-in write tools) runs, the
// state of each file it will change is kept in the user-local store for
// the running turn, so that jp conversation rewind can put it back;
// after it ran, the state it left is recorded, so that a rewind can tell
// a file someone changed since. Shell commands and other tools write
// what they like: their effects are not recorded.

// snapshotting reports whether this run keeps file snapshots.
func (q *Query) snapshotting(rs *runState) bool {
	return q.snaps != nil && rs.loc.Root != "" && rs.id != "" && rs.turnID != "" &&
		rs.storage != "none" && !rs.cfg.Conversation.Tools.Snapshots.Off()
}

// snapshotBefore keeps the files the approved calls will change, before
// any of them runs (one at a time: the first capture of a file in a turn
// is its state before the turn). A capture that fails is a chrome line;
// the call still runs.
func (q *Query) snapshotBefore(ctx context.Context, rs *runState, ts *turnState, calls []llm.ToolCall, approved []bool) {
	if !q.snapshotting(rs) {
		return
	}
	pv, ok := ts.tools.(ports.ToolPreviewer)
	if !ok {
		return
	}
	wctx := context.WithoutCancel(ctx)
	limit := rs.cfg.Conversation.Tools.Snapshots
	for i, c := range calls {
		if !approved[i] {
			continue
		}
		p, ok, err := pv.Preview(ctx, c.Name, c.Arguments)
		if err != nil || !ok || p.Error != "" || len(p.Files) == 0 {
			continue // nothing it would change (a refused call writes nothing)
		}
		dropped, err := q.snaps.CaptureFiles(wctx, rs.loc, rs.id, rs.turnID, c.Name, p.Files, limit.MaxBytes())
		if errors.Is(err, ports.ErrNotFound) {
			return
		}
		if err != nil {
			q.chromeNote(fmt.Sprintf("jp could not keep a snapshot of %s (%v): jp conversation rewind will not restore it", strings.Join(p.Files, ", "), err))
			continue
		}
		if len(dropped) > 0 {
			q.chromeNote(fmt.Sprintf("File snapshots: dropped those of the %s to stay within conversation.tools.snapshots.max_mb = %d; a rewind to before them cannot restore files", pluralTurns(len(dropped)), limit.MaxMB))
		}
	}
}

func pluralTurns(n int) string {
	if n == 1 {
		return "oldest turn"
	}
	return fmt.Sprintf("%d oldest turns", n)
}

// snapshotAfter records the state a call left the files it changed in,
// and remembers them for git_commit. It runs in the call's goroutine.
func (q *Query) snapshotAfter(ctx context.Context, rs *runState, files []string) {
	rs.turnFilesMu.Lock()
	for _, f := range files {
		if !slices.Contains(rs.turnFiles, f) {
			rs.turnFiles = append(rs.turnFiles, f)
		}
	}
	rs.turnFilesMu.Unlock()
	if !q.snapshotting(rs) {
		return
	}
	if err := q.snaps.WroteFiles(context.WithoutCancel(ctx), rs.loc, rs.id, rs.turnID, files); err != nil && !errors.Is(err, ports.ErrNotFound) {
		q.chromeNote(fmt.Sprintf("jp could not record what it wrote to %s (%v): a rewind will not check it for changes made since", strings.Join(files, ", "), err))
	}
}

// gitCommitTurn commits the files jp's tools changed in the turn that
// just ended (conversation.tools.git_commit = "turn"), with a message
// naming the conversation and the turn, and says so in a chrome line.
func (q *Query) gitCommitTurn(ctx context.Context, rs *runState) {
	rs.turnFilesMu.Lock()
	files := slices.Clone(rs.turnFiles)
	rs.turnFiles = nil
	rs.turnFilesMu.Unlock()
	if q.commits == nil || rs.cfg.Conversation.Tools.GitCommit != config.GitCommitTurn || len(files) == 0 || rs.loc.Root == "" {
		return
	}
	slices.Sort(files)
	n := rs.history.Turns()
	msg := fmt.Sprintf("jp: conversation %s, turn %d\n\nFiles changed by jp's tools in turn %d of conversation %s:\n", rs.id, n, n, rs.id)
	for _, f := range files {
		msg += "  " + f + "\n"
	}
	hash, err := q.commits.CommitFiles(context.WithoutCancel(ctx), rs.loc.Root, files, msg)
	switch {
	case err != nil:
		q.chromeNote(fmt.Sprintf("git_commit: turn %d not committed: %v", n, err))
	case hash != "":
		q.chromeNote(fmt.Sprintf("git_commit: committed %d file(s) of turn %d as %s", len(files), n, hash))
	}
}
