package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/jpcli/jp/adapters/terminal"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
	jpwire "github.com/jpcli/jp/wire"
)

// ConversationUseCmd is jp conversation use.
type ConversationUseCmd struct {
	ID string `arg:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one."`
}

// Run makes the conversation the checkout's active one.
func (c *ConversationUseCmd) Run(rt *Runtime) error {
	if c.ID == "" {
		return &app.UsageError{Msg: "jp conversation use needs a conversation ID: list them with jp conversation ls"}
	}
	a, loc, id, err := rt.conversation(c.ID)
	if err != nil {
		return err
	}
	if err := a.Conversations.Use(rt.Ctx, loc, id); err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Active conversation: %s\n", id)
	return nil
}

// ConversationForkCmd is jp conversation fork.
type ConversationForkCmd struct {
	ID   string `arg:"" optional:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one (default: the active conversation)."`
	Turn int    `placeholder:"N" help:"Copy only the first N turns (default: all complete turns)."`
	// Compact compacts the copy (see jp conversation compact).
	Compact []string `short:"k" sep:"none" placeholder:"SPEC" help:"Compact the copy: bare, with conversation.compaction.rules; --compact=SPEC with an inline rule (e.g. r+t, s:..-3)."`
}

// Run forks the conversation.
func (c *ConversationForkCmd) Run(rt *Runtime) error {
	a, loc, id, err := rt.conversation(c.ID)
	if err != nil {
		return err
	}
	spec, err := compactFlag(c.Compact)
	if err != nil {
		return err
	}
	nid, err := a.Conversations.Fork(rt.Ctx, loc, id, c.Turn)
	if err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Forked conversation %s into %s (now active)\n", id, nid)
	if spec == nil {
		return nil
	}
	res, err := a.Query.Compact(rt.Ctx, app.CompactInput{
		Loc: loc, Conversation: nid, Spec: *spec, LaunchDir: rt.Paths.LaunchDir,
		UserConfigDir: rt.Paths.ConfigDir, Environ: rt.Environ, Overrides: rt.Globals.Cfg,
	})
	if err != nil {
		return err
	}
	printCompaction(rt.Streams.Out, res, *spec)
	return nil
}

// ConversationGrepCmd is jp conversation grep.
type ConversationGrepCmd struct {
	Pattern       []string `arg:"" name:"pattern" help:"The text to search for, matched line by line; several words are joined with single spaces, as in the Rust jp."`
	Regex         bool     `short:"r" help:"Read the pattern as a regular expression (Go syntax) instead of literal text."`
	IgnoreCase    bool     `name:"ignore-case" help:"Match without regard to case (overrides smart case: by default case matters only when the pattern has an upper-case letter)."`
	CaseSensitive bool     `name:"case-sensitive" help:"Match case exactly (overrides smart case)."`
	Context       int      `placeholder:"N" help:"Show N lines before and after each match."`
	AllWorkspaces bool     `name:"all-workspaces" help:"Search every workspace on this machine, not only the current one."`
	FormatFlag
}

// Run searches conversations.
func (c *ConversationGrepCmd) Run(rt *Runtime) error {
	if c.Context < 0 {
		return &app.UsageError{Msg: fmt.Sprintf("--context %d is below 0: give the number of lines to show around each match", c.Context)}
	}
	re, err := app.CompileGrep(app.GrepPattern{Text: strings.Join(c.Pattern, " "), Regex: c.Regex, IgnoreCase: c.IgnoreCase, CaseSensitive: c.CaseSensitive})
	if err != nil {
		return err
	}
	a, err := rt.App()
	if err != nil {
		return err
	}
	var locs []workspace.Location
	if c.AllWorkspaces {
		ws, err := a.Workspaces.List(rt.Ctx, rt.Paths.LaunchDir)
		if err != nil {
			return err
		}
		for _, w := range ws {
			locs = append(locs, workspace.Location{ID: w.ID})
		}
	} else {
		loc, err := rt.open(a)
		if err != nil {
			return err
		}
		locs = []workspace.Location{loc}
	}
	matches, skipped, err := a.Conversations.Grep(rt.Ctx, locs, re, c.Context)
	if err != nil {
		return err
	}
	for _, line := range skipped {
		fmt.Fprintln(rt.Streams.Err, "jp: "+line)
	}
	w := bufio.NewWriterSize(rt.Streams.Out, 64<<10)
	defer w.Flush()
	if c.JSON() {
		enc := json.NewEncoder(w)
		for _, m := range matches {
			if err := enc.Encode(m); err != nil {
				return err
			}
		}
		return nil
	}
	for _, m := range matches {
		where := "title"
		if m.Turn > 0 {
			where = fmt.Sprintf("turn %d %s", m.Turn, m.Who)
		}
		prefix := string(m.Conversation)
		if c.AllWorkspaces {
			prefix = string(m.Workspace) + "/" + prefix
		}
		sep := ":"
		if m.Context {
			sep = "-" // as grep marks context lines
		}
		fmt.Fprintf(w, "%s  %s%s %s\n", prefix, where, sep, m.Line)
	}
	if len(matches) == 0 {
		fmt.Fprintln(rt.Streams.Err, "No match.")
		return &exitError{code: ExitError}
	}
	return nil
}

// ConversationLabelCmd is jp conversation label.
type ConversationLabelCmd struct {
	ID     string `arg:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one."`
	Action string `arg:"" enum:"add,rm" help:"add or rm."`
	Name   string `arg:"" help:"The label: letters, digits and - _ . / :"`
}

// Run adds or removes the label.
func (c *ConversationLabelCmd) Run(rt *Runtime) error {
	a, loc, id, err := rt.conversation(c.ID)
	if err != nil {
		return err
	}
	if err := a.Conversations.Label(rt.Ctx, loc, id, c.Name, c.Action == "add"); err != nil {
		return err
	}
	verb := "Labelled"
	if c.Action == "rm" {
		verb = "Unlabelled"
	}
	fmt.Fprintf(rt.Streams.Out, "%s conversation %s: %s\n", verb, id, c.Name)
	return nil
}

// ConversationEditCmd is jp conversation edit.
type ConversationEditCmd struct {
	ID string `arg:"" optional:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one (default: the active conversation)."`
}

// editDoc is what jp conversation edit puts in the editor.
type editDoc struct {
	Title  string   `toml:"title"`
	Pinned bool     `toml:"pinned"`
	Labels []string `toml:"labels"`
}

const editHeader = "# Edit this conversation's title, pinned flag and labels, then save and quit.\n# Quit without saving (or empty the file) to change nothing.\n"

// Run opens the metadata in the editor and applies what was saved.
func (c *ConversationEditCmd) Run(rt *Runtime) error {
	a, loc, id, err := rt.conversation(c.ID)
	if err != nil {
		return err
	}
	s, err := a.Conversations.Get(rt.Ctx, loc, id)
	if err != nil {
		return err
	}
	doc := editDoc{Title: s.Metadata.Title, Pinned: s.Metadata.Pinned(), Labels: s.Metadata.Labels()}
	if doc.Labels == nil {
		doc.Labels = []string{}
	}
	body, err := toml.Marshal(doc)
	if err != nil {
		return err
	}
	out, err := rt.editText(a, "conversation-"+string(id)+"-*.toml", editHeader+string(body))
	if err != nil {
		return err
	}
	if strings.TrimSpace(stripComments(out)) == "" {
		fmt.Fprintln(rt.Streams.Err, "Nothing changed.")
		return nil
	}
	var got editDoc
	if err := toml.Unmarshal([]byte(out), &got); err != nil {
		return &app.UserError{Msg: fmt.Sprintf("the edited metadata is not valid TOML (%s); nothing changed: run jp conversation edit %s again", oneLine(err.Error()), id)}
	}
	if err := a.Conversations.Apply(rt.Ctx, loc, id, app.Edit{Title: &got.Title, Pinned: &got.Pinned, Labels: &got.Labels}); err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Updated conversation %s\n", id)
	return nil
}

func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// editText runs the editor (editor.cmd, then $JP_EDITOR, $VISUAL,
// $EDITOR, then editor, nano or vi on $PATH: the launcher jp q -e uses)
// on content in a temporary file named after pattern, with the process's
// terminal, and returns the saved text. An editor exiting non-zero
// changes nothing.
func (rt *Runtime) editText(a *jpwire.App, pattern, content string) (string, error) {
	res, err := a.Config.Load(rt.Ctx, rt.configInput())
	if err != nil {
		return "", err
	}
	run := terminal.EditorRun{
		Cmd: res.Config.Editor.Cmd, Found: rt.Paths.Editor,
		In: rt.Streams.In, Out: rt.Paths.Stderr,
		Pattern: pattern, Content: content,
	}
	if rt.Paths.TTYIn != nil {
		run.In, run.Out = rt.Paths.TTYIn, rt.Paths.TTYOut
	}
	out, err := terminal.RunEditor(rt.Ctx, run)
	switch {
	case errors.Is(err, ports.ErrCancelled):
		return "", &app.UserError{Msg: strings.TrimSuffix(err.Error(), ": "+ports.ErrCancelled.Error()), Err: err}
	case errors.Is(err, ports.ErrUnavailable):
		return "", &app.UserError{Msg: strings.TrimSuffix(err.Error(), ": "+ports.ErrUnavailable.Error()), Err: err}
	}
	return out, err
}

// confirm asks a y/N question on the terminal. Without a terminal it
// refuses, naming --yes.
func (rt *Runtime) confirm(question string) (bool, error) {
	if rt.Paths.TTYIn == nil {
		return false, &app.UsageError{Msg: "jp conversation rm asks before removing and there is no terminal to ask on: pass --yes to remove without asking"}
	}
	// The question names titles: stored text, written safe to the raw
	// terminal.
	_ = safetext.WriteString(stringWriter{rt.Paths.TTYOut}, question)
	line, err := bufio.NewReader(rt.Paths.TTYIn).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

// stringWriter adapts an io.Writer to io.StringWriter.
type stringWriter struct{ w io.Writer }

func (s stringWriter) WriteString(str string) (int, error) { return io.WriteString(s.w, str) }
