package headless

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jpcli/jp/ports"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   string
	}{
		{"unknown step", "confirm yes\n\nfrobnicate x", `ci.jph:3: unknown step "frobnicate": expected one of confirm, select, text, secret, permission, compose, cancel, interrupt, unavailable`},
		{"malformed after", "after turn 1 delta 40: interrupt q", `ci.jph:1: after: expected "after N deltas [of turn T]"`},
		{"malformed at", "at turn 2: interrupt", `ci.jph:1: at: expected`},
		{"zero deltas", "after 0 deltas", `ci.jph:1: after 0 deltas: the count must be a whole number from 1`},
		{"bad turn", "during tools of turn x", `ci.jph:1: of turn x: the turn must be a whole number from 1`},
		{"expect reserved", "expect content hello", `ci.jph:1: output expectations ("expect ...") are not supported yet`},
		{"confirm value", "confirm maybe", `ci.jph:1: confirm needs yes or no, got "maybe"`},
		{"confirm missing", "confirm", `ci.jph:1: confirm needs yes or no, got ""`},
		{"text missing", "text", `ci.jph:1: text needs a value (use "" for an empty answer)`},
		{"text missing after topic", "text @plugin:x", `ci.jph:1: text needs a value (use "" for an empty answer)`},
		{"compose missing", "compose @reply", `ci.jph:1: compose needs a value (use keep, empty, "TEXT" or <<END)`},
		{"bad quote", `text "unterminated`, `ci.jph:1: bad quoted value "unterminated: use Go string syntax, for example "two\nlines"`},
		{"trailing after quote", `text "a" b`, `ci.jph:1: bad quoted value "a" b: use Go string syntax, for example "two\nlines"`},
		{"unclosed heredoc", "text <<END\nline\n", `ci.jph:1: <<END is never closed: end the text with a line holding only END`},
		{"bad heredoc tag", "text <<", `ci.jph:1: bad heredoc tag "": use a word such as <<END`},
		{"permission missing key", "permission bash", `ci.jph:1: permission needs a tool name and a key: permission TOOL y|Y|n|N (TOOL may be * or a pattern)`},
		{"permission bad key", "permission bash yes", `ci.jph:1: permission key "yes": expected y (run), Y (run, remember), n (skip), N (skip, remember), e (edit the arguments), c (always for this conversation) or w (always for this workspace); keys are case-sensitive`},
		{"empty at", "confirm @ yes", `ci.jph:1: "@": a topic or purpose must follow @`},
		{"bad pattern", "confirm @[ yes", `ci.jph:1: bad pattern "@[": syntax error in pattern`},
		{"cancel junk", "cancel now", `ci.jph:1: cancel takes an optional kind (confirm, select, text, secret, compose) and an optional @PATTERN, got "now"`},
		{"cancel kind after topic", "interrupt @x confirm", `ci.jph:1: interrupt takes an optional kind (confirm, select, text, secret, compose) and an optional @PATTERN, got "confirm"`},
		{"heredoc line numbers", "text <<A\n1\nA\nnope", `ci.jph:4: unknown step "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("ci.jph", tt.script)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Parse() error = %v\nwant prefix %s", err, tt.want)
			}
		})
	}
}

func TestAskFailures(t *testing.T) {
	branch := ports.Question{Kind: ports.QuestionSelect, Message: "Which branch?", Topic: "plugin:git",
		Options: []ports.Option{{Value: "main"}, {Value: "develop"}}}
	tests := []struct {
		name   string
		script string
		q      ports.Question
		want   string
	}{
		{
			"exhausted", "",
			ports.Question{Kind: ports.QuestionConfirm, Message: "Delete 14 entries?", Topic: "plugin:prune"},
			`headless script ci.jph has no step left (it has 0) for: confirm @plugin:prune "Delete 14 entries?"; add a step such as "confirm @plugin:prune yes"`,
		},
		{
			"exhausted permission", "",
			permission("bash"),
			`headless script ci.jph has no step left (it has 0) for: select @tool_permission:bash "Run tool bash?" [y, Y, n, N]; add a step such as "permission bash y"`,
		},
		{
			"wrong kind", "confirm yes",
			permission("bash"),
			`headless script ci.jph: step 1 (line 1) expected confirm yes, but jp asked select @tool_permission:bash "Run tool bash?" [y, Y, n, N], which does not fit; a step that fits is "permission bash y"`,
		},
		{
			"wrong tool", "permission fs_read y",
			permission("bash"),
			`headless script ci.jph: step 1 (line 1) expected permission fs_read y, but jp asked select @tool_permission:bash "Run tool bash?" [y, Y, n, N], which does not fit; a step that fits is "permission bash y"`,
		},
		{
			"wrong topic", "text @plugin:a hi",
			ports.Question{Kind: ports.QuestionText, Message: "Name", Topic: "plugin:b"},
			`headless script ci.jph: step 1 (line 1) expected text @plugin:a hi, but jp asked text @plugin:b "Name", which does not fit; a step that fits is "text @plugin:b VALUE"`,
		},
		{
			"no such option", "select release",
			branch,
			`headless script ci.jph: step 1 (line 1) expected select release, but jp asked select @plugin:git "Which branch?" [main, develop], which has no option "release"; a step that fits is "select @plugin:git main"`,
		},
		{
			"permission key not offered", "permission bash Y",
			ports.Question{Kind: ports.QuestionSelect, Message: "Run?", Topic: "tool_permission:bash", Options: permissionOpts[:1]},
			`headless script ci.jph: step 1 (line 1) expected permission bash Y, but jp asked select @tool_permission:bash "Run?" [y], which has no option "Y"; a step that fits is "permission bash y"`,
		},
		{
			"secret never shown", "secret hunter2",
			ports.Question{Kind: ports.QuestionText, Message: "User"},
			`headless script ci.jph: step 1 (line 1) expected secret (value hidden), but jp asked text "User", which does not fit; a step that fits is "text VALUE"`,
		},
		{
			"compose step for a question", "compose hi",
			ports.Question{Kind: ports.QuestionSecret, Message: "Token", Topic: "mcp:gh"},
			`headless script ci.jph: step 1 (line 1) expected compose hi, but jp asked secret @mcp:gh "Token", which does not fit; a step that fits is "secret @mcp:gh VALUE"`,
		},
		{
			"cancel kind mismatch", "cancel compose",
			ports.Question{Kind: ports.QuestionConfirm, Message: "Go?"},
			`headless script ci.jph: step 1 (line 1) expected cancel compose, but jp asked confirm "Go?", which does not fit; a step that fits is "confirm yes"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.script)
			_, err := s.Prompter().Ask(context.Background(), tt.q)
			checkStepError(t, err, tt.want)
			if strings.Contains(err.Error(), "hunter2") {
				t.Error("error leaks a secret")
			}
			if got, want := s.Remaining(), len(s.steps); got != want {
				t.Errorf("a failed Ask consumed a step: Remaining() = %d, want %d", got, want)
			}
		})
	}
}

func TestComposeFailures(t *testing.T) {
	tests := []struct {
		name   string
		script string
		req    ports.ComposeRequest
		want   string
	}{
		{
			"exhausted", "confirm yes",
			ports.ComposeRequest{Purpose: "queue_reply", Initial: "private draft text"},
			`headless script ci.jph: step 1 (line 1) expected confirm yes, but jp asked compose @queue_reply, which does not fit; a step that fits is "compose @queue_reply TEXT"`,
		},
		{
			"wrong purpose", "compose @reply <<END\nx\nEND",
			ports.ComposeRequest{Purpose: "edit_draft"},
			`headless script ci.jph: step 1 (line 1) expected compose @reply x, but jp asked compose @edit_draft, which does not fit; a step that fits is "compose @edit_draft TEXT"`,
		},
		{
			"none left", "",
			ports.ComposeRequest{Purpose: "query"},
			`headless script ci.jph has no step left (it has 0) for: compose @query; add a step such as "compose @query TEXT"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.script)
			_, err := s.Prompter().Compose(context.Background(), tt.req)
			checkStepError(t, err, tt.want)
			if strings.Contains(err.Error(), "private draft") {
				t.Error("error shows the draft text")
			}
		})
	}
}

func TestExhaustedAfterSteps(t *testing.T) {
	s := mustParse(t, "confirm yes\nconfirm no\n")
	p := s.Prompter()
	for i := 0; i < 2; i++ {
		if _, err := p.Ask(context.Background(), ports.Question{Kind: ports.QuestionConfirm}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := p.Ask(context.Background(), ports.Question{Kind: ports.QuestionConfirm, Message: "Again?"})
	checkStepError(t, err, `headless script ci.jph has no step left (it has 2) for: confirm "Again?"; add a step such as "confirm yes"`)
	var se *StepError
	if !errors.As(err, &se) || se.Step != 3 || se.Line != 0 {
		t.Fatalf("StepError = %+v", se)
	}
	if err := s.Done(); err == nil || !strings.Contains(err.Error(), `no step left (it has 2) for: confirm "Again?"`) {
		t.Fatalf("Done() = %v, want the failed question", err)
	}
}

func TestDoneReportsFailuresAndUnusedSteps(t *testing.T) {
	s := mustParse(t, "confirm yes\nsecret hunter2\n")
	_, err := s.Prompter().Ask(context.Background(), permission("bash"))
	if err == nil {
		t.Fatal("no error")
	}
	done := s.Done()
	var se *StepError
	if !errors.As(done, &se) || !errors.Is(done, ports.ErrUnavailable) {
		t.Fatalf("Done() = %v, want a *StepError", done)
	}
	want := `headless script ci.jph: step 1 (line 1) expected confirm yes, but jp asked select @tool_permission:bash "Run tool bash?" [y, Y, n, N], which does not fit; a step that fits is "permission bash y"` + "\n" +
		`headless script ci.jph: 2 steps were never used: step 1 (line 1: confirm yes), step 2 (line 2: secret (value hidden))`
	if done.Error() != want {
		t.Errorf("Done() =\n%s\nwant\n%s", done, want)
	}
	if strings.Contains(done.Error(), "hunter2") {
		t.Error("Done() leaks a secret")
	}
}

func checkStepError(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Errorf("error does not wrap ports.ErrUnavailable: %v", err)
	}
	var se *StepError
	if !errors.As(err, &se) {
		t.Errorf("error is not a *StepError: %T", err)
	}
	if err.Error() != want {
		t.Errorf("error =\n%s\nwant\n%s", err, want)
	}
}
