package pluginsdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/workspace"
)

const multiInit = `{"type":"init","version":2,"options":{"port":1},"args":[],"log_level":1,"output_format":"text","paths":{"user_data":"/d","user_config":"/c"}}`

// TestAtAddressesEveryRequest: an addressed view sends its reference on
// every data and mutation request, the Client's own methods send none,
// and list_workspaces never does.
func TestAtAddressesEveryRequest(t *testing.T) {
	ref := workspace.Ref{ID: "a1b2c3d", Root: "/src/wt"}
	f := start(t, multiInit, func(ctx context.Context, c *pluginsdk.Client) error {
		at := c.At(ref)
		if got, ok := at.Ref(); !ok || got != ref {
			t.Errorf("Ref = %v, %v", got, ok)
		}
		steps := []func() error{
			func() error { _, err := at.ListConversations(ctx); return err },
			func() error { _, err := at.ReadEvents(ctx, "17127583920"); return err },
			func() error { _, err := at.ReadConfig(ctx, "a.b"); return err },
			func() error { _, err := at.ReadDraft(ctx, "17127583920"); return err },
			func() error { _, err := at.WriteDraft(ctx, "17127583920", "x", "r1"); return err },
			func() error { _, err := at.CreateConversation(ctx, "T", true); return err },
			func() error { return at.SetTitle(ctx, "17127583920", "T") },
			func() error { return at.Archive(ctx, "17127583920") },
			func() error { return at.Unarchive(ctx, "17127583920") },
			func() error { return at.Lock(ctx, "17127583920") },
			func() error { return at.Unlock(ctx, "17127583920") },
			func() error { return at.Interrupt(ctx, "17127583920") },
			func() error { _, err := c.ListWorkspaces(ctx); return err },
			func() error { _, err := c.ListConversations(ctx); return err },
		}
		for i, step := range steps {
			if err := step(); err != nil {
				return fmt.Errorf("step %d: %w", i, err)
			}
		}
		return nil
	})
	f.Recv() // ready
	answers := map[string]string{
		"list_conversations": `"type":"conversations","data":[]`, "read_events": `"type":"events","conversation":"17127583920","data":[]`,
		"read_config": `"type":"config","data":{}`, "read_draft": `"type":"draft","conversation":"17127583920","text":"","revision":""`,
		"write_draft": `"type":"draft_written","revision":"r2"`, "create_conversation": `"type":"created","conversation":"17127583921"`,
		"set_title": `"type":"title_set"`, "archive": `"type":"archived"`, "unarchive": `"type":"unarchived"`,
		"lock": `"type":"locked"`, "unlock": `"type":"unlocked"`, "interrupt": `"type":"interrupted"`,
		"list_workspaces": `"type":"workspaces","data":[]`,
	}
	for i := range 14 {
		r := f.Recv()
		typ, _ := r["type"].(string)
		ws, has := r["workspace"].(map[string]any)
		switch {
		case typ == "list_workspaces" || i == 13:
			if has || r["workspace"] != nil {
				t.Errorf("%s carries a workspace: %v", typ, r)
			}
		case !has || ws["id"] != ref.ID || ws["root"] != ref.Root:
			t.Errorf("%s workspace = %v", typ, r["workspace"])
		}
		a, ok := answers[typ]
		if !ok {
			t.Fatalf("unexpected request %v", r)
		}
		// jp writes the id right after the type (the SDK's header reader
		// relies on that order, as DecodeHeader's fast path does).
		typePart, rest, _ := strings.Cut(a, ",")
		line := fmt.Sprintf(`{%s,"id":%q`, typePart, r["id"])
		if rest != "" {
			line += "," + rest
		}
		f.Send(line + "}")
	}
	if m := f.Recv(); m["type"] != "exit" || m["code"] != float64(0) {
		t.Fatalf("exit = %v", m)
	}
	f.End()
}

func TestListWorkspaces(t *testing.T) {
	f := start(t, multiInit, func(ctx context.Context, c *pluginsdk.Client) error {
		ws, err := c.ListWorkspaces(ctx)
		if err != nil {
			return err
		}
		if len(ws) != 2 || ws[0].ID != "a1b2c3d" || !ws[0].Launch || len(ws[0].Roots) != 1 ||
			ws[0].Roots[0].Path != "/p" || ws[0].Roots[0].LastUsed.IsZero() || ws[1].Roots == nil || len(ws[1].Roots) != 0 {
			t.Errorf("workspaces = %+v", ws)
		}
		return nil
	})
	f.Recv()
	r := f.Recv()
	if r["type"] != "list_workspaces" {
		t.Fatalf("request = %v", r)
	}
	f.Send(fmt.Sprintf(`{"type":"workspaces","id":%q,"data":[{"id":"a1b2c3d","slug":"p","launch":true,"roots":[{"path":"/p","storage":"/p/.jp","last_used":"2026-09-08T10:12:00Z"}]},{"id":"x9y8z7w","slug":"old","launch":false,"roots":[]}]}`, r["id"]))
	f.Recv()
	f.End()
}

// collect reads a stream to its end.
func collect(ctx context.Context, s *pluginsdk.QueryStream) ([]plugin.Event, error) {
	var evs []plugin.Event
	for {
		ev, err := s.Next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return evs, nil
			}
			return evs, err
		}
		evs = append(evs, ev)
	}
}

// TestQueryStream: the reader routes event pushes to the query by id
// while other requests are answered in between, and query_complete ends
// the stream with its result.
func TestQueryStream(t *testing.T) {
	ref := workspace.Ref{ID: "a1b2c3d", Root: "/a"}
	expected := &conversation.LastRoot{Path: "/a", LastUsed: time.Date(2026, 9, 26, 9, 14, 0, 0, time.UTC)}
	f := start(t, multiInit, func(ctx context.Context, c *pluginsdk.Client) error {
		s, err := c.At(ref).Query(ctx, plugin.Query{Conversation: "17127583920", Content: "hi", ExpectedLastRoot: expected})
		if err != nil {
			return err
		}
		defer s.Close()
		if s.Conversation() != "17127583920" || s.ID() == "" {
			t.Errorf("stream = %q %q", s.Conversation(), s.ID())
		}
		// Another request while the turn streams.
		if _, err := c.At(ref).ReadConfig(ctx, "x"); err != nil {
			return err
		}
		evs, err := collect(ctx, s)
		if err != nil {
			return err
		}
		var types []string
		for _, ev := range evs {
			types = append(types, pluginsdk.DataType(ev))
		}
		if fmt.Sprint(types) != "[turn_start chat_response_delta chat_response_delta tool_approval chat_response turn_end]" {
			t.Errorf("events = %v", types)
		}
		if evs[3].Respond != plugin.RespondToolApproval {
			t.Errorf("approval push = %+v", evs[3])
		}
		var d plugin.DeltaData
		if err := json.Unmarshal(evs[1].Data, &d); err != nil || d.Text != "Hel" {
			t.Errorf("delta = %s", evs[1].Data)
		}
		if r := s.Result(); r.Outcome != conversation.OutcomeCompleted || r.Conversation != "17127583920" {
			t.Errorf("result = %+v", r)
		}
		if _, err := s.Next(ctx); !errors.Is(err, io.EOF) {
			t.Errorf("Next after the end = %v", err)
		}
		return nil
	})
	f.Recv()
	q := f.Recv()
	if q["type"] != "query" || q["content"] != "hi" || q["workspace"].(map[string]any)["root"] != "/a" {
		t.Fatalf("query = %v", q)
	}
	if lr := q["expected_last_root"].(map[string]any); lr["path"] != "/a" || lr["last_used"] != "2026-09-26T09:14:00Z" {
		t.Fatalf("expected_last_root = %v", lr)
	}
	id := q["id"]
	f.Send(fmt.Sprintf(`{"type":"query_started","id":%q,"conversation":"17127583920"}`, id))
	f.Send(fmt.Sprintf(`{"type":"event","id":%q,"data":{"type":"turn_start","id":"e1","timestamp":"2026-09-26T09:14:00Z","root":"/a"}}`, id))
	cfg := f.Recv() // the read_config sent while the turn runs
	f.Send(fmt.Sprintf(`{"type":"event","id":%q,"data":{"type":"chat_response_delta","text":"Hel"}}`, id))
	f.Send(fmt.Sprintf(`{"type":"config","id":%q,"data":1}`, cfg["id"]))
	f.Send(fmt.Sprintf(`{"type":"event","id":%q,"data":{"type":"chat_response_delta","text":"lo"}}`, id))
	f.Send(fmt.Sprintf(`{"type":"event","id":%q,"respond":"tool_approval","data":{"type":"tool_approval","call_id":"c1","name":"echo","arguments":{}}}`, id))
	f.Send(fmt.Sprintf(`{"type":"event","id":%q,"data":{"type":"chat_response","id":"e2","timestamp":"2026-09-26T09:14:01Z","message":"Hello"}}`, id))
	f.Send(fmt.Sprintf(`{"type":"event","id":%q,"data":{"type":"turn_end","id":"e3","timestamp":"2026-09-26T09:14:01Z","outcome":"completed"}}`, id))
	f.Send(fmt.Sprintf(`{"type":"query_complete","id":%q,"conversation":"17127583920","outcome":"completed"}`, id))
	// A push after the end is dropped, not misdelivered.
	f.Send(fmt.Sprintf(`{"type":"event","id":%q,"data":{"type":"turn_end"}}`, id))
	if m := f.Recv(); m["type"] != "exit" || m["code"] != float64(0) {
		t.Fatalf("exit = %v", m)
	}
	f.End()
}

// TestQueryRefused: the last-root refusal comes back as a HostError with
// the stored record, and no stream.
func TestQueryRefused(t *testing.T) {
	f := start(t, multiInit, func(ctx context.Context, c *pluginsdk.Client) error {
		s, err := c.At(workspace.Ref{ID: "a1b2c3d", Root: "/b"}).Query(ctx, plugin.Query{Conversation: "17127583920", Content: "hi"})
		var he pluginsdk.HostError
		if s != nil || !errors.As(err, &he) || he.Request != "query" || he.LastRoot == nil ||
			he.LastRoot.Path != "/a" || he.LastRoot.Live == nil || !*he.LastRoot.Live {
			t.Errorf("Query = %v, %#v", s, err)
		}
		return nil
	})
	f.Recv()
	q := f.Recv()
	if _, has := q["expected_last_root"]; has {
		t.Errorf("query sent expected_last_root: %v", q)
	}
	f.Send(fmt.Sprintf(`{"type":"error","id":%q,"request":"query","message":"the conversation last ran in /a, another checkout","last_root":{"path":"/a","last_used":"2026-09-26T09:14:00Z","live":true}}`, q["id"]))
	f.Recv()
	f.End()
}

// TestQueryErrorMidStream: an error answer after query_started ends the
// stream with it, after the events before it.
func TestQueryErrorMidStream(t *testing.T) {
	f := start(t, multiInit, func(ctx context.Context, c *pluginsdk.Client) error {
		s, err := c.Query(ctx, plugin.Query{Conversation: "17127583920", Content: "hi"})
		if err != nil {
			return err
		}
		evs, err := collect(ctx, s)
		var he pluginsdk.HostError
		if len(evs) != 1 || !errors.As(err, &he) || he.Message != "boom" {
			t.Errorf("events %d, err %v", len(evs), err)
		}
		return nil
	})
	f.Recv()
	q := f.Recv()
	if _, has := q["workspace"]; has {
		t.Errorf("single-scope query carries a workspace: %v", q)
	}
	f.Send(fmt.Sprintf(`{"type":"query_started","id":%q,"conversation":"17127583920"}`, q["id"]))
	f.Send(fmt.Sprintf(`{"type":"event","id":%q,"data":{"type":"chat_response_delta","text":"x"}}`, q["id"]))
	f.Send(fmt.Sprintf(`{"type":"error","id":%q,"request":"query","message":"boom"}`, q["id"]))
	f.Recv()
	f.End()
}

// TestQueryStreamEndsWhenJPGoesAway: the end of the connection ends a
// running stream with ErrClosed (after what was queued).
func TestQueryStreamEndsWhenJPGoesAway(t *testing.T) {
	started := make(chan struct{})
	f := start(t, multiInit, func(ctx context.Context, c *pluginsdk.Client) error {
		s, err := c.Query(ctx, plugin.Query{Conversation: "17127583920", Content: "hi"})
		close(started)
		if err != nil {
			return err
		}
		evs, err := collect(context.Background(), s)
		if len(evs) != 1 || !errors.Is(err, pluginsdk.ErrClosed) {
			t.Errorf("events %d, err %v", len(evs), err)
		}
		return nil
	})
	f.Recv()
	q := f.Recv()
	f.Send(fmt.Sprintf(`{"type":"query_started","id":%q,"conversation":"17127583920"}`, q["id"]))
	f.Send(fmt.Sprintf(`{"type":"event","id":%q,"data":{"type":"chat_response_delta","text":"x"}}`, q["id"]))
	<-started
	f.End()
}

// TestQueryStreamClose: a closed stream drops what jp still sends for
// it, and the connection keeps serving other requests; a slow stream
// consumer never holds up another request's answer.
func TestQueryStreamClose(t *testing.T) {
	f := start(t, multiInit, func(ctx context.Context, c *pluginsdk.Client) error {
		s, err := c.Query(ctx, plugin.Query{Conversation: "17127583920", Content: "hi"})
		if err != nil {
			return err
		}
		// Nobody reads the stream while jp pushes many events and then
		// answers another request.
		if _, err := c.ReadConfig(ctx, "x"); err != nil {
			return err
		}
		s.Close()
		s.Close()
		if _, err := s.Next(ctx); !errors.Is(err, pluginsdk.ErrStreamClosed) {
			t.Errorf("Next after Close = %v", err)
		}
		_, err = c.ReadConfig(ctx, "y")
		return err
	})
	f.Recv()
	q := f.Recv()
	f.Send(fmt.Sprintf(`{"type":"query_started","id":%q,"conversation":"17127583920"}`, q["id"]))
	cfg := f.Recv()
	for range 1000 {
		f.Send(fmt.Sprintf(`{"type":"event","id":%q,"data":{"type":"chat_response_delta","text":"x"}}`, q["id"]))
	}
	f.Send(fmt.Sprintf(`{"type":"config","id":%q,"data":1}`, cfg["id"]))
	cfg = f.Recv()
	f.Send(fmt.Sprintf(`{"type":"event","id":%q,"data":{"type":"chat_response_delta","text":"late"}}`, q["id"]))
	f.Send(fmt.Sprintf(`{"type":"query_complete","id":%q,"conversation":"17127583920","outcome":"completed"}`, q["id"]))
	f.Send(fmt.Sprintf(`{"type":"config","id":%q,"data":2}`, cfg["id"]))
	if m := f.Recv(); m["type"] != "exit" || m["code"] != float64(0) {
		t.Fatalf("exit = %v", m)
	}
	f.End()
}

// TestQueryCancelledBeforeStart: a context that ends before
// query_started returns its error; a late query_started is dropped.
func TestQueryCancelledBeforeStart(t *testing.T) {
	sent := make(chan struct{})
	f := start(t, multiInit, func(ctx context.Context, c *pluginsdk.Client) error {
		qctx, cancel := context.WithCancel(ctx)
		go func() { <-sent; cancel() }()
		_, err := c.Query(qctx, plugin.Query{Conversation: "17127583920", Content: "hi"})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Query = %v", err)
		}
		_, err = c.ReadConfig(ctx, "x")
		return err
	})
	f.Recv()
	q := f.Recv()
	close(sent)
	cfg := f.Recv()
	f.Send(fmt.Sprintf(`{"type":"query_started","id":%q,"conversation":"17127583920"}`, q["id"]))
	f.Send(fmt.Sprintf(`{"type":"config","id":%q,"data":1}`, cfg["id"]))
	f.Recv()
	f.End()
}

// TestInterruptAndRespond: interrupt is a request with an answer;
// respond is one line without, checked before it is sent.
func TestInterruptAndRespond(t *testing.T) {
	f := start(t, multiInit, func(ctx context.Context, c *pluginsdk.Client) error {
		if err := c.Respond("call_0_0", "approve"); err != nil {
			return err
		}
		if err := c.Respond("call_0_0", "maybe"); err == nil || !errors.Is(err, plugin.ErrBadField) {
			t.Errorf("bad action = %v", err)
		}
		if err := c.Respond("", "reject"); err == nil {
			t.Error("empty call_id accepted")
		}
		err := c.At(workspace.Ref{ID: "a1b2c3d"}).Interrupt(ctx, "17127583920")
		var he pluginsdk.HostError
		if !errors.As(err, &he) || he.Message != "no delegated turn runs on 17127583920" {
			t.Errorf("Interrupt = %v", err)
		}
		return nil
	})
	f.Recv()
	if r := f.Recv(); fmt.Sprint(r) != "map[action:approve call_id:call_0_0 type:respond]" {
		t.Fatalf("respond = %v", r)
	}
	r := f.Recv()
	if r["type"] != "interrupt" || r["conversation"] != "17127583920" || fmt.Sprint(r["workspace"]) != "map[id:a1b2c3d]" {
		t.Fatalf("interrupt = %v", r)
	}
	f.Send(fmt.Sprintf(`{"type":"error","id":%q,"request":"interrupt","message":"no delegated turn runs on 17127583920"}`, r["id"]))
	f.Recv()
	f.End()
}

// TestShutdownLeavesStreamsToTheirContext: shutdown cancels the run's
// context, so a consumer waiting on it returns; the stream is closed by
// its owner and Main still sends exit.
func TestShutdownLeavesStreamsToTheirContext(t *testing.T) {
	f := start(t, multiInit, func(ctx context.Context, c *pluginsdk.Client) error {
		s, err := c.Query(ctx, plugin.Query{Conversation: "17127583920", Content: "hi"})
		if err != nil {
			return err
		}
		defer s.Close()
		if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Next = %v", err)
		}
		return pluginsdk.Exit(130, "")
	})
	f.Recv()
	q := f.Recv()
	f.Send(fmt.Sprintf(`{"type":"query_started","id":%q,"conversation":"17127583920"}`, q["id"]))
	f.Send(`{"type":"shutdown"}`)
	if m := f.Recv(); m["type"] != "exit" || m["code"] != float64(130) {
		t.Fatalf("exit = %v", m)
	}
	f.End()
}
