package main

import (
	"slices"
	"testing"

	"github.com/alecthomas/kong"
)

// parseCLI parses args with jp's real command line.
func parseCLI(t *testing.T, args ...string) *CLI {
	t.Helper()
	cli := &CLI{}
	p, err := kong.New(cli, kong.Name("jp"), kong.Vars{"version": "test"},
		kong.Exit(func(code int) { t.Fatalf("parsing %q exited with %d", args, code) }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Parse(helpArgs(args)); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return cli
}

// TestOptionalValueFlags: the Rust jp's flags whose value may be left
// out, read by the one set of kong mappers (optflag.go). --fork takes a
// following number, --quote a following true/false, jp q's and jp c
// fork's -k/--compact only an attached SPEC (the next word stays the
// message); jp c compact's -t/-s take a following word that is not a
// flag; nothing after "--" is a flag.
func TestOptionalValueFlags(t *testing.T) {
	t.Parallel()
	type query struct {
		fork, quote    optFlag
		compact, words []string
	}
	for _, tt := range []struct {
		args []string
		want query
	}{
		{[]string{"q", "--fork", "hello"}, query{fork: optFlag{Set: true}, words: []string{"hello"}}},
		{[]string{"q", "--fork", "3", "hello"}, query{fork: optFlag{true, "3"}, words: []string{"hello"}}},
		{[]string{"q", "--fork=2", "x"}, query{fork: optFlag{true, "2"}, words: []string{"x"}}},
		{[]string{"q", "--fork"}, query{fork: optFlag{Set: true}}},
		{[]string{"q", "--quote", "what", "now"}, query{quote: optFlag{Set: true}, words: []string{"what", "now"}}},
		{[]string{"q", "--quote", "false", "x"}, query{quote: optFlag{true, "false"}, words: []string{"x"}}},
		{[]string{"q", "--compact", "hello"}, query{compact: []string{""}, words: []string{"hello"}}},
		{[]string{"q", "-k", "hello"}, query{compact: []string{""}, words: []string{"hello"}}},
		{[]string{"q", "-kr+t", "--compact=s:..-3", "-k", "x"}, query{compact: []string{"r+t", "s:..-3", ""}, words: []string{"x"}}},
		{[]string{"q", "--", "--fork", "--quote"}, query{words: []string{"--fork", "--quote"}}},
	} {
		c := parseCLI(t, tt.args...).Query
		got := query{fork: c.Fork.optFlag, quote: c.Quote.optFlag, compact: c.Compact.Values, words: c.Message}
		if got.fork != tt.want.fork || got.quote != tt.want.quote || !slices.Equal(got.compact, tt.want.compact) || !slices.Equal(got.words, tt.want.words) {
			t.Errorf("%q: got %+v, want %+v", tt.args, got, tt.want)
		}
	}

	fork := parseCLI(t, "c", "fork", "--compact=r+t").Conversation.Fork
	if !slices.Equal(fork.Compact.Values, []string{"r+t"}) {
		t.Errorf("c fork --compact=r+t: %q", fork.Compact.Values)
	}
	for _, tt := range []struct {
		args      []string
		tools, sm optFlag
		id        string
	}{
		{[]string{"c", "compact", "-t"}, optFlag{Set: true}, optFlag{}, ""},
		{[]string{"c", "compact", "-t", "omit", "123"}, optFlag{true, "omit"}, optFlag{}, "123"},
		{[]string{"c", "compact", "-tomit"}, optFlag{true, "omit"}, optFlag{}, ""},
		{[]string{"c", "compact", "--summarize", "--dry-run"}, optFlag{}, optFlag{Set: true}, ""},
		{[]string{"c", "compact", "-s", "the API"}, optFlag{}, optFlag{true, "the API"}, ""},
		{[]string{"c", "compact", "--tools=strip-requests"}, optFlag{true, "strip-requests"}, optFlag{}, ""},
	} {
		c := parseCLI(t, tt.args...).Conversation.Compact
		if c.ToolCalls.optFlag != tt.tools || c.Summarize.optFlag != tt.sm || c.ID != tt.id {
			t.Errorf("%q: tool calls %+v, summarize %+v, id %q", tt.args, c.ToolCalls.optFlag, c.Summarize.optFlag, c.ID)
		}
	}
}

// TestQuoteAndForkValues: a --quote value other than true/false and a
// --fork that is not a number of turns are one usage line each.
func TestQuoteAndForkValues(t *testing.T) {
	t.Parallel()
	c := parseCLI(t, "q", "--quote=maybe", "x").Query
	if _, err := c.flags(); err == nil || err.Error() != "--quote=maybe: give true or false, or --quote alone" {
		t.Errorf("--quote=maybe: %v", err)
	}
	c = parseCLI(t, "q", "--fork=0", "x").Query
	if _, err := c.flags(); err == nil {
		t.Error("--fork=0 was taken")
	}
	c = parseCLI(t, "q", "--fork", "x").Query
	if f, err := c.flags(); err != nil || !f.Fork || f.ForkLast != 0 {
		t.Errorf("bare --fork: %+v, %v", f, err)
	}
}
