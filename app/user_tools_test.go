package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// TestParseAskUser: ask_user's arguments become the question the prompter
// asks, and arguments that do not fit are an error the model can act on.
func TestParseAskUser(t *testing.T) {
	ok := []struct {
		args string
		kind ports.QuestionKind
		def  any
	}{
		{`{"question":"Where to?"}`, ports.QuestionText, nil},
		{`{"question":"Go on?","answer_type":"boolean","default":true}`, ports.QuestionConfirm, true},
		{`{"question":"How?","answer_type":"select","options":["a","b"],"default":"b"}`, ports.QuestionSelect, "b"},
		{`{"question":"Name?","answer_type":"text","default":"x"}`, ports.QuestionText, "x"},
	}
	for _, c := range ok {
		_, q, err := parseAskUser(json.RawMessage(c.args))
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		if q.Kind != c.kind || q.Default != c.def || q.Topic != "ask_user" {
			t.Fatalf("%s: got kind %v default %v topic %q", c.args, q.Kind, q.Default, q.Topic)
		}
	}
	_, q, _ := parseAskUser(json.RawMessage(`{"question":"How?","context":"Config is changed in place.","answer_type":"select","options":["a","b"]}`))
	if q.Message != "Config is changed in place.\n\nHow?" || len(q.Options) != 2 || q.Options[1].Answer() != "b" {
		t.Fatalf("context and options: %+v", q)
	}
	bad := map[string]string{
		`{}`:                  "question is missing",
		`{"question":"a\nb"}`: "one line",
		`{"question":"q","answer_type":"select"}`:                               "options are required",
		`{"question":"q","options":["a"]}`:                                      "only for answer_type select",
		`{"question":"q","answer_type":"boolean","default":"yes"}`:              "true or false",
		`{"question":"q","answer_type":"select","options":["a"],"default":"z"}`: "not one of the options",
		`{"question":"q","answer_type":"number"}`:                               "is not boolean, select or text",
		`[1]`: "JSON object",
	}
	for args, want := range bad {
		if _, _, err := parseAskUser(json.RawMessage(args)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error saying %q", args, err, want)
		}
	}
}

// TestUserToolsOffered: ask_user and tell_user are offered only when the
// configuration enables them, never twice, and run without a prompt
// unless their own table sets a run policy.
func TestUserToolsOffered(t *testing.T) {
	var cfg config.Config
	if got := userTools(cfg, nil); len(got) != 0 {
		t.Fatalf("offered without configuration: %v", got)
	}
	off := false
	cfg.Conversation.Tools.Named = map[string]config.Tool{
		AskUser:  {},
		TellUser: {Enable: &off},
	}
	got := userTools(cfg, nil)
	if len(got) != 1 || got[0].Name != AskUser || !json.Valid(got[0].Parameters) {
		t.Fatalf("got %v", got)
	}
	if again := userTools(cfg, got); len(again) != 0 {
		t.Fatalf("offered twice: %v", again)
	}
	if p := userToolPolicy(cfg, AskUser, config.RunPolicyAsk); p != config.RunPolicyUnattended {
		t.Fatalf("ask_user policy %v", p)
	}
	if p := userToolPolicy(cfg, TellUser, config.RunPolicyAsk); p != config.RunPolicyAsk {
		t.Fatalf("a disabled tell_user is not a user tool: policy %v", p)
	}
	cfg.Conversation.Tools.Named[AskUser] = config.Tool{Run: config.RunPolicyDeny}
	if p := userToolPolicy(cfg, AskUser, config.RunPolicyDeny); p != config.RunPolicyDeny {
		t.Fatalf("the table's own policy is kept: %v", p)
	}
	msg := notEnabledMessage("shell", []llm.Tool{{Name: "b"}, {Name: "a"}})
	if msg != "The tool shell is not enabled, so it did not run. The enabled tools are: a, b." {
		t.Fatal(msg)
	}
	if msg := notEnabledMessage("shell", nil); !strings.Contains(msg, "No tools are enabled") {
		t.Fatal(msg)
	}
}
