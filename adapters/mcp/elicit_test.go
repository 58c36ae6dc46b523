package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/headless"
	"github.com/jpcli/jp/internal/testkit"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// formSchema has one property of every kind the mapping knows, in an
// order that is not alphabetical.
const formSchema = `{"type":"object","properties":{
  "name": {"type":"string","title":"Name","description":"Your name"},
  "agree": {"type":"boolean","title":"Agree"},
  "hero": {"type":"string","oneOf":[{"const":"h1","title":"Superman"},{"const":"h2","title":"Wonder Woman"}]},
  "pet": {"type":"string","enum":["p1","p2"],"enumNames":["Cats","Dogs"]},
  "count": {"type":"integer","minimum":1,"maximum":10},
  "ratio": {"type":"number"},
  "tools": {"type":"array","items":{"type":"string","enum":["Guitar","Piano","Drums"]}},
  "email": {"type":"string","format":"email"}
},"required":["name","hero"]}`

// ask runs the fake server's ask tool with schema, answered by prompter,
// and returns the elicitation result the server received.
func ask(t *testing.T, prompter ports.Prompter, log *slog.Logger, schema string) map[string]any {
	t.Helper()
	p, _, _ := newTestPool(t, prompter)
	if log != nil {
		p.el.log = log
	}
	ts, release := mustLease(t, p, fakeSpec(t, t.TempDir(), ""), limits)
	defer release()
	args, _ := json.Marshal(map[string]string{"schema": schema})
	r, err := ts.Call(context.Background(), "fake__ask", args)
	if err != nil || r.IsError {
		t.Fatalf("ask: %+v %v", r, err)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(r.Content), &res); err != nil {
		t.Fatalf("result %q: %v", r.Content, err)
	}
	return res
}

func script(t *testing.T, text string) *headless.Script {
	t.Helper()
	s, err := headless.Parse("answers.txt", text)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Done(); err != nil {
			t.Errorf("script: %v", err)
		}
	})
	return s
}

func TestElicitationFormIsAskedPropertyByPropertyInServerOrder(t *testing.T) {
	s := script(t, `confirm @mcp:fake yes
text @mcp:fake Ada
confirm @mcp:fake yes
select @mcp:fake Wonder Woman
select @mcp:fake (no answer)
text @mcp:fake 11
text @mcp:fake seven
text @mcp:fake 7
text @mcp:fake ""
text @mcp:fake guitar, Drums
text @mcp:fake ada@example.com
`)
	res := ask(t, s.Prompter(), nil, formSchema)
	want := map[string]any{
		"action": "accept",
		"content": map[string]any{
			"name": "Ada", "agree": true, "hero": "h2", "count": float64(7),
			"tools": []any{"Guitar", "Drums"}, "email": "ada@example.com",
		},
	}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("result = %#v\nwant %#v", res, want)
	}
}

func TestElicitationOutcomes(t *testing.T) {
	cases := map[string]struct {
		script string
		action string
		log    string
	}{
		"no to the first question declines": {"confirm @mcp:fake no\n", "decline", ""},
		"ESC cancels":                       {"confirm @mcp:fake yes\ncancel\n", "cancel", ""},
		"Ctrl-C cancels":                    {"interrupt\n", "cancel", ""},
		"no terminal declines":              {"confirm @mcp:fake yes\nunavailable\n", "decline", "no interactive terminal"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var buf testkit.SyncBuffer
			log := slog.New(slog.NewTextHandler(&buf, nil))
			res := ask(t, script(t, c.script).Prompter(), log, formSchema)
			if res["action"] != c.action || res["content"] != nil {
				t.Fatalf("result = %v, want action %s and no content", res, c.action)
			}
			if !strings.Contains(buf.String(), c.log) {
				t.Fatalf("log = %q, want %q", buf.String(), c.log)
			}
		})
	}
}

func TestElicitationWithoutATerminalDeclinesAndSaysSo(t *testing.T) {
	pm := &mocks.PrompterMock{
		InteractiveFunc: func() bool { return false },
		AskFunc: func(context.Context, ports.Question) (ports.Answer, error) {
			t.Fatal("asked a question without a terminal")
			return ports.Answer{}, nil
		},
	}
	var buf testkit.SyncBuffer
	res := ask(t, pm, slog.New(slog.NewTextHandler(&buf, nil)), formSchema)
	if res["action"] != "decline" {
		t.Fatalf("result = %v, want decline", res)
	}
	if !strings.Contains(buf.String(), "no interactive terminal to ask on; declined") || !strings.Contains(buf.String(), "server=fake") {
		t.Fatalf("log = %q", buf.String())
	}
}

func TestFieldQuestions(t *testing.T) {
	fields, err := formFields(json.RawMessage(formSchema), "m", &orderRecorder{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]ports.QuestionKind{}
	for _, f := range fields {
		kinds[f.name] = f.question().Kind
	}
	want := map[string]ports.QuestionKind{
		"name": ports.QuestionText, "agree": ports.QuestionConfirm, "hero": ports.QuestionSelect,
		"pet": ports.QuestionSelect, "count": ports.QuestionText, "ratio": ports.QuestionText,
		"tools": ports.QuestionText, "email": ports.QuestionText,
	}
	if !reflect.DeepEqual(kinds, want) {
		t.Fatalf("kinds = %v", kinds)
	}
	if names := fieldNames(fields); names[0] != "agree" {
		t.Fatalf("without a recorded order fields are sorted: %v", names)
	}
	for _, f := range fields {
		q := f.question()
		switch f.name {
		case "pet":
			if q.Options[1].Label != "Dogs" || q.Options[2].Value != noAnswer {
				t.Errorf("pet options = %+v", q.Options)
			}
		case "count":
			if !strings.Contains(q.Message, "a whole number from 1 to 10; empty to skip") {
				t.Errorf("count message = %q", q.Message)
			}
		}
	}
}

func fieldNames(fs []field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.name
	}
	return out
}

// SEP-1034: a server's defaults are pre-filled, and an answer left empty
// carries them (the conformance suite's client-defaults scenario asks
// this very schema).
func TestElicitationDefaultsArePrefilledAndCarried(t *testing.T) {
	const schema = `{"type":"object","properties":{
  "name": {"type":"string","default":"John Doe"},
  "age": {"type":"integer","default":30},
  "score": {"type":"number","default":95.5},
  "status": {"type":"string","enum":["active","inactive","pending"],"default":"active"},
  "verified": {"type":"boolean","default":true}
},"required":[]}`
	var asked []ports.Question
	prompter := &mocks.PrompterMock{
		InteractiveFunc: func() bool { return true },
		AskFunc: func(_ context.Context, q ports.Question) (ports.Answer, error) {
			asked = append(asked, q)
			switch q.Kind {
			case ports.QuestionConfirm:
				d, _ := q.Default.(bool)
				if len(asked) == 1 {
					d = true // answer it
				}
				return ports.Answer{Bool: d}, nil
			case ports.QuestionSelect:
				return ports.Answer{Text: q.Default.(string)}, nil
			}
			return ports.Answer{Text: ""}, nil // an emptied answer: the default stands
		},
	}
	res := ask(t, prompter, nil, schema)
	want := map[string]any{"name": "John Doe", "age": float64(30), "score": 95.5, "status": "active", "verified": true}
	if res["action"] != "accept" || !reflect.DeepEqual(res["content"], want) {
		t.Fatalf("result = %v, want accept with %v", res, want)
	}
	byMsg := map[string]ports.Question{}
	for _, q := range asked[1:] {
		byMsg[strings.Fields(q.Message)[0]] = q
	}
	if q := byMsg["name"]; q.Default != "John Doe" || !strings.Contains(q.Message, "empty for the default") {
		t.Errorf("name question = %+v", q)
	}
	if q := byMsg["status"]; q.Default != "active" {
		t.Errorf("status question = %+v, want active pre-selected", q)
	}
	if q := byMsg["verified"]; q.Default != true {
		t.Errorf("verified question = %+v", q)
	}
}
