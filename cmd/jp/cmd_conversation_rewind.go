package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/jpcli/jp/app"
)

// ConversationRewindCmd is jp conversation rewind: restore the files the
// conversation's tools changed after turn N and fork or truncate the
// conversation there.
type ConversationRewindCmd struct {
	ID       string `arg:"" optional:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one (default: the active conversation)."`
	Turn     *int   `required:"" placeholder:"N" help:"Keep turns 1..N (complete turns, as jp c fork --turn counts them); undo every turn after it. 0 undoes every turn."`
	Fork     bool   `help:"Copy turns 1..N into a new conversation, which becomes the active one; the original stays whole (the default)."`
	Truncate bool   `help:"Keep the conversation, with an overlay that hides the turns after N from the model (the events stay, as compaction keeps them)."`
	Force    bool   `help:"Restore files changed since jp wrote them, too (their current content is lost)."`
	DryRun   bool   `name:"dry-run" help:"Show what the rewind would restore and do; change nothing."`
}

// Run rewinds the conversation.
func (c *ConversationRewindCmd) Run(rt *Runtime) error {
	if c.Fork && c.Truncate {
		return &app.UsageError{Msg: "--fork and --truncate each say what happens to the conversation: give one"}
	}
	a, loc, id, err := rt.conversation(c.ID)
	if err != nil {
		return err
	}
	in := app.RewindInput{Loc: loc, Conversation: id, Turn: *c.Turn, Force: c.Force, DryRun: c.DryRun}
	if c.Truncate {
		in.Mode = app.RewindTruncate
	}
	res, err := a.Rewind.Run(rt.Ctx, in)
	if len(res.Undone) > 0 {
		printRewind(rt.Streams.Out, id.String(), in, res)
	}
	if err != nil {
		return err
	}
	w := rt.Streams.Out
	if c.DryRun {
		fmt.Fprintln(w, "Dry run: nothing was changed.")
		return nil
	}
	changed := 0
	for _, f := range res.Files {
		if !f.Noop() {
			changed++
		}
	}
	fmt.Fprintf(w, "Restored %s.\n", plural(changed, "file", "files"))
	switch {
	case res.Fork != "":
		fmt.Fprintf(w, "Forked conversation %s at turn %d into %s (now active); %s is unchanged.\n", id, *c.Turn, res.Fork, id)
	case res.Overlay != nil:
		fmt.Fprintf(w, "Truncated conversation %s after turn %d: the model no longer sees the later turns (their events stay; jp c compact --reset shows them again).\n", id, *c.Turn)
	}
	return nil
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// printRewind shows the plan: each file and what happens to it, the
// files changed since jp wrote them, and the calls whose effects jp did
// not record.
func printRewind(w io.Writer, id string, in app.RewindInput, res app.RewindResult) {
	mode := "fork"
	if in.Mode == app.RewindTruncate {
		mode = "truncate"
	}
	fmt.Fprintf(w, "Rewind conversation %s to turn %d (undo turn %s; %s):\n", id, in.Turn, joinInts(res.Undone), mode)
	if len(res.Files) == 0 {
		fmt.Fprintln(w, "  no file to restore: the undone turns' tools changed none")
	}
	for _, f := range res.Files {
		line := fmt.Sprintf("  %-9s %s (changed in turn %s)", f.Action(), f.Path, joinInts(f.TurnNumbers))
		if f.Conflict {
			line += " ! changed since jp wrote it"
			if in.Force {
				line += ": --force restores it"
			}
		}
		fmt.Fprintln(w, line)
	}
	seen := map[string]bool{}
	for _, u := range res.Unrecorded {
		k := fmt.Sprintf("%d/%s", u.Turn, u.Name)
		if seen[k] {
			continue
		}
		seen[k] = true
		fmt.Fprintf(w, "  note: turn %d ran %s: its effects on files are not recorded and are not undone\n", u.Turn, u.Name)
	}
}
