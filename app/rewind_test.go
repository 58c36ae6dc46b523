package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/filesnap"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// snapsMock serves an index in which each turn of the scene's
// conversation changed "f" (turn i: content "v<i>" -> "v<i+1>"), and a
// current state of "f".
func snapsMock(t *testing.T, s *forkScene, current filesnap.State) *mocks.FileSnapshotsMock {
	t.Helper()
	var idx filesnap.Index
	err := s.store.ScanEvents(context.Background(), s.loc, s.id, func(e conversation.Event) error {
		if e.Type == conversation.EventTypeTurnStart {
			n := len(idx.Records)
			idx.Add(e.ID, "f", "fs_modify_file", s.clock.Now(), filesnap.State{Exists: true, Hash: "v" + string(rune('0'+n)), Size: 1})
			idx.Wrote(e.ID, "f", filesnap.State{Exists: true, Hash: "v" + string(rune('0'+n+1)), Size: 1})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return &mocks.FileSnapshotsMock{
		SnapshotIndexFunc: func(context.Context, workspace.Location, conversation.ID) (filesnap.Index, error) { return idx, nil },
		FileStatesFunc: func(_ context.Context, _ workspace.Location, files []string) (map[string]filesnap.State, error) {
			return map[string]filesnap.State{"f": current}, nil
		},
		RestoreFilesFunc: func(context.Context, workspace.Location, conversation.ID, []filesnap.Restore, map[string]bool) error {
			return nil
		},
	}
}

func TestRewindRestoresTheStateBeforeTheFirstUndoneTurnAndForks(t *testing.T) {
	s := newForkScene(t, 3, "")
	snaps := snapsMock(t, s, filesnap.State{Exists: true, Hash: "v3", Size: 1})
	r := app.NewRewind(s.store, s.store, snaps, s.clock, &mocks.IDGeneratorMock{NewIDFunc: func() string { return "x" }})
	ctx := context.Background()

	// A dry run reads and plans; it restores nothing.
	res, err := r.Run(ctx, app.RewindInput{Loc: s.loc, Conversation: s.id, Turn: 1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 || res.Files[0].To.Hash != "v1" || len(res.Undone) != 2 || len(snaps.RestoreFilesCalls()) != 0 {
		t.Fatalf("dry run: %+v, restores %d", res, len(snaps.RestoreFilesCalls()))
	}
	res, err = r.Run(ctx, app.RewindInput{Loc: s.loc, Conversation: s.id, Turn: 1})
	if err != nil {
		t.Fatal(err)
	}
	calls := snaps.RestoreFilesCalls()
	if len(calls) != 1 || len(calls[0].Undone) != 2 || calls[0].Restores[0].To.Hash != "v1" {
		t.Fatalf("restore calls %+v", calls)
	}
	if res.Fork == "" || res.Fork == s.id {
		t.Fatalf("no fork: %+v", res)
	}
}

func TestRewindRefusesAFileChangedSinceUnlessForced(t *testing.T) {
	s := newForkScene(t, 2, "")
	snaps := snapsMock(t, s, filesnap.State{Exists: true, Hash: "someone else's", Size: 1})
	r := app.NewRewind(s.store, s.store, snaps, s.clock, &mocks.IDGeneratorMock{NewIDFunc: func() string { return "x" }})
	_, err := r.Run(context.Background(), app.RewindInput{Loc: s.loc, Conversation: s.id, Turn: 1})
	var ue *app.UserError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "f changed since jp wrote it") || len(snaps.RestoreFilesCalls()) != 0 {
		t.Fatalf("err = %v, restores %d", err, len(snaps.RestoreFilesCalls()))
	}
	res, err := r.Run(context.Background(), app.RewindInput{Loc: s.loc, Conversation: s.id, Turn: 1, Force: true, Mode: app.RewindTruncate})
	if err != nil || len(snaps.RestoreFilesCalls()) != 1 || res.Overlay == nil || res.Overlay.Compaction.FromTurn != 1 {
		t.Fatalf("forced: %+v, %v", res, err)
	}
}

// A write tool's files are captured before the call runs and recorded
// after it, keyed by the turn; with git_commit = "turn" the turn's
// changed files are committed once, at its end, with a message naming
// the conversation and the turn.
func TestSnapshotsAndGitCommitAroundAWriteCall(t *testing.T) {
	var order []string
	snaps := &mocks.FileSnapshotsMock{
		CaptureFilesFunc: func(_ context.Context, _ workspace.Location, _ conversation.ID, turn, tool string, files []string, max int64) ([]string, error) {
			order = append(order, "capture "+tool+" "+strings.Join(files, ","))
			return nil, nil
		},
		WroteFilesFunc: func(_ context.Context, _ workspace.Location, _ conversation.ID, turn string, files []string) error {
			order = append(order, "wrote "+strings.Join(files, ","))
			return nil
		},
	}
	commits := &mocks.GitCommitterMock{CommitFilesFunc: func(_ context.Context, root string, files []string, msg string) (string, error) {
		order = append(order, "commit "+strings.Join(files, ","))
		return "abc1234", nil
	}}
	server := previewingServer{
		ToolServerMock: &mocks.ToolServerMock{
			ToolsFunc: func(context.Context) ([]llm.Tool, error) {
				return []llm.Tool{{Name: "fs_read", Parameters: json.RawMessage(`{"type":"object"}`)}}, nil
			},
			CallFunc: func(context.Context, string, json.RawMessage) (ports.ToolResult, error) {
				order = append(order, "call")
				return ports.ToolResult{Content: "written", Changed: []string{"a.txt"}}, nil
			},
		},
		ToolPreviewerMock: &mocks.ToolPreviewerMock{PreviewFunc: func(context.Context, string, json.RawMessage) (ports.ToolPreview, bool, error) {
			return ports.ToolPreview{Summary: "modify a.txt", Files: []string{"a.txt"}}, true, nil
		}},
	}
	f := newFixtureWith(t, func(d *app.QueryDeps) {
		d.Tools = &mocks.ToolSourceMock{OpenFunc: func(context.Context, config.Config, string) (ports.ToolServer, func(), error) {
			return server, func() {}, nil
		}}
		d.Snapshots, d.Commits = snaps, commits
	}, resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("done")}})
	f.cfg.Conversation.Tools.GitCommit = config.GitCommitTurn
	f.answers = []string{"y"}
	res, evs, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "capture fs_read a.txt|call|wrote a.txt|commit a.txt"
	if got := strings.Join(order, "|"); got != want {
		t.Fatalf("order = %s, want %s", got, want)
	}
	turnID := evs[0].ID
	if c := snaps.CaptureFilesCalls(); c[0].Turn != turnID || c[0].MaxBytes != 64<<20 {
		t.Errorf("capture keyed %q (bound %d), want the turn_start %q", c[0].Turn, c[0].MaxBytes, turnID)
	}
	msg := commits.CommitFilesCalls()[0].Message
	if !strings.HasPrefix(msg, "jp: conversation "+res.Conversation.String()+", turn 1\n") {
		t.Errorf("message = %q", msg)
	}
	if chrome := f.printer.text(ports.ChannelChrome); !strings.Contains(chrome, "git_commit: committed 1 file(s) of turn 1 as abc1234") {
		t.Errorf("no commit line in %q", chrome)
	}
}
