package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// previewingServer is a tool server whose tools write: the ToolServer
// and ToolPreviewer mocks together.
type previewingServer struct {
	*mocks.ToolServerMock
	*mocks.ToolPreviewerMock
}

// previewFixture runs turns whose fs_read tool previews its calls with
// preview.
func previewFixture(t *testing.T, preview func(name string, args json.RawMessage) (ports.ToolPreview, bool, error), resps ...resp) (*fixture, *mocks.ToolPreviewerMock) {
	t.Helper()
	pv := &mocks.ToolPreviewerMock{PreviewFunc: func(_ context.Context, name string, args json.RawMessage) (ports.ToolPreview, bool, error) {
		return preview(name, args)
	}}
	server := previewingServer{
		ToolServerMock: &mocks.ToolServerMock{
			ToolsFunc: func(context.Context) ([]llm.Tool, error) {
				return []llm.Tool{{Name: "fs_read", Parameters: json.RawMessage(`{"type":"object"}`)}}, nil
			},
			CallFunc: func(context.Context, string, json.RawMessage) (ports.ToolResult, error) {
				return ports.ToolResult{Content: "written"}, nil
			},
		},
		ToolPreviewerMock: pv,
	}
	f := newFixtureWith(t, func(d *app.QueryDeps) {
		d.Tools = &mocks.ToolSourceMock{OpenFunc: func(context.Context, config.Config, string) (ports.ToolServer, func(), error) {
			return server, func() {}, nil
		}}
	}, resps...)
	return f, pv
}

// The permission prompt of a write tool names what the call will do and
// shows the diff it will apply, planned from the call's own arguments.
func TestPermissionPromptShowsThePreview(t *testing.T) {
	f, pv := previewFixture(t, func(string, json.RawMessage) (ports.ToolPreview, bool, error) {
		return ports.ToolPreview{Summary: "modify a.txt (1 replacement)", Diff: "--- a/a.txt\n+++ b/a.txt\n", Files: []string{"a.txt"}}, true, nil
	}, resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("done")}})
	f.answers = []string{"y"}
	_, evs, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	calls := pv.PreviewCalls()
	if len(calls) != 1 || calls[0].Name != "fs_read" || string(calls[0].Args) != `{"path":"a.txt"}` {
		t.Fatalf("previews = %+v, want one of fs_read {\"path\":\"a.txt\"}", calls)
	}
	asked := f.prompter.AskCalls()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	if q := asked[0].Q; q.Message != "Run tool fs_read: modify a.txt (1 replacement)?" || q.Diff != "--- a/a.txt\n+++ b/a.txt\n" {
		t.Errorf("question = %q with diff %q", q.Message, q.Diff)
	}
	if evs[3].IsError || evs[3].Content != "written" {
		t.Errorf("result = %+v, want the approved call's", evs[3])
	}
}

// A call the preview says will fail is asked about with the reason and
// no diff; a tool with nothing to preview is asked about with its
// arguments.
func TestPermissionPromptSaysWhenTheCallWillFail(t *testing.T) {
	for _, tc := range []struct {
		name    string
		preview func(string, json.RawMessage) (ports.ToolPreview, bool, error)
		want    string
	}{
		{"preview error", func(string, json.RawMessage) (ports.ToolPreview, bool, error) {
			return ports.ToolPreview{}, false, errors.New("a.txt has no line \"foo\"")
		}, `Run tool fs_read? It will fail: a.txt has no line "foo"`},
		{"nothing to preview", func(string, json.RawMessage) (ports.ToolPreview, bool, error) {
			return ports.ToolPreview{}, false, nil
		}, `Run tool fs_read {"path":"a.txt"}?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := previewFixture(t, tc.preview, resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("done")}})
			f.answers = []string{"n"}
			if _, _, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true}); err != nil {
				t.Fatal(err)
			}
			asked := f.prompter.AskCalls()
			if len(asked) != 1 || asked[0].Q.Message != tc.want || asked[0].Q.Diff != "" {
				t.Fatalf("questions = %+v, want %q without a diff", asked, tc.want)
			}
		})
	}
}
