package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/jpcli/jp/adapters/terminal"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/timespec"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
	jpwire "github.com/jpcli/jp/wire"
)

// ConversationUseCmd is jp conversation use.
type ConversationUseCmd struct {
	ID    string `arg:"" optional:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one (with --grep, --from or --until: pick among those that match)."`
	Grep  string `placeholder:"TEXT" help:"Choose among the conversations whose title or text holds TEXT (literal; case is ignored unless TEXT has an upper-case letter): one is made active, several are picked from on the terminal."`
	From  string `placeholder:"TIME" help:"Choose among the conversations created at or after TIME (as jp c rm --from)."`
	Until string `placeholder:"TIME" help:"Choose among the conversations created before TIME."`
}

// Run makes the conversation the checkout's active one.
func (c *ConversationUseCmd) Run(rt *Runtime) error {
	if c.Grep != "" || c.From != "" || c.Until != "" {
		return c.filtered(rt)
	}
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

// filtered is jp c use with --grep, --from or --until, as in the Rust jp:
// the conversations that match every filter given are the candidates; one
// is made active, several are picked from on the terminal.
func (c *ConversationUseCmd) filtered(rt *Runtime) error {
	if c.ID != "" {
		return &app.UsageError{Msg: "--grep, --from and --until choose the conversation, so they cannot be combined with a conversation ID: give one or the other"}
	}
	a, loc, err := rt.openApp()
	if err != nil {
		return err
	}
	list, err := a.Conversations.Within(rt.Ctx, loc, c.From, c.Until, "")
	if err != nil {
		return err
	}
	if c.Grep != "" {
		re, err := app.CompileGrep(app.GrepPattern{Text: c.Grep})
		if err != nil {
			return err
		}
		matches, _, err := a.Conversations.Grep(rt.Ctx, []workspace.Location{loc}, re, 0)
		if err != nil {
			return err
		}
		hit := map[conversation.ID]bool{}
		for _, m := range matches {
			hit[m.Conversation] = true
		}
		list = slices.DeleteFunc(list, func(s conversation.Summary) bool { return !hit[s.ID] })
	}
	var id conversation.ID
	switch {
	case len(list) == 0:
		return &app.UserError{Msg: "no conversation matches --grep/--from/--until: jp conversation ls lists them"}
	case len(list) == 1:
		id = list[0].ID
	case rt.Paths.TTYIn == nil:
		return &app.UsageError{Msg: fmt.Sprintf("%d conversations match and there is no terminal to pick one on: narrow --grep/--from/--until, or give an ID", len(list))}
	default:
		app.SortSummaries(list)
		picked, err := rt.pickFrom("jp c use", list)
		if err != nil {
			return err
		}
		id = conversation.ID(picked)
	}
	if err := a.Conversations.Use(rt.Ctx, loc, id); err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Active conversation: %s\n", id)
	return nil
}

// ConversationForkCmd is jp conversation fork, with the Rust jp's flags.
type ConversationForkCmd struct {
	ID          string   `arg:"" optional:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one (default: the active conversation)."`
	Turn        int      `placeholder:"N" help:"Copy only the first N turns, and fail when there are fewer (default: all complete turns)."`
	First       optCount `short:"f" placeholder:"[N]" help:"Copy the first N turns (default 1); with --last, both ends without the middle."`
	Last        optCount `short:"l" placeholder:"[N]" help:"Copy the last N turns (default 1)."`
	From        string   `placeholder:"TIME" help:"Copy only the turns started at or after TIME: a duration ago (5days, 2h), a date (2026-01-01), an RFC 3339 time or a conversation ID."`
	Until       string   `placeholder:"TIME" help:"Copy only the turns started before TIME (same forms as --from)."`
	NoTurns     bool     `short:"N" name:"no-turns" help:"Copy no turn: the fork starts empty, with the original's title and labels."`
	Title       string   `short:"t" placeholder:"TITLE" help:"Title of the fork (default: the original's)."`
	Label       []string `sep:"none" placeholder:"KEY[=VALUE]" help:"Set a label on the fork, on top of those it inherits (repeatable)."`
	ResetLabels bool     `name:"reset-labels" help:"Drop the labels the fork inherits (before the --label ones are set)."`
	Activate    bool     `short:"a" help:"Make the fork the active conversation (it always is here; kept for the Rust jp's command lines)."`
	// Compact compacts the copy (see jp conversation compact).
	Compact optSpecs `short:"k" placeholder:"SPEC" help:"Compact the copy: bare, with conversation.compaction.rules; --compact=SPEC with an inline rule (e.g. r+t, s:..-3)."`
}

// Run forks the conversation.
func (c *ConversationForkCmd) Run(rt *Runtime) error {
	o := app.ForkOptions{UpTo: c.Turn, NoTurns: c.NoTurns}
	var err error
	if o.First, err = c.First.N("first"); err != nil {
		return &app.UsageError{Msg: err.Error()}
	}
	if o.Last, err = c.Last.N("last"); err != nil {
		return &app.UsageError{Msg: err.Error()}
	}
	if c.Title != "" {
		o.Title = &c.Title
	}
	if c.ResetLabels {
		o.Labels = append(o.Labels, conversation.LabelDirective{Op: conversation.LabelRemoveAll})
	}
	for _, l := range c.Label {
		d, err := conversation.ParseLabelSet(l)
		if err != nil {
			return &app.UsageError{Msg: "--label: " + err.Error()}
		}
		o.Labels = append(o.Labels, d)
	}
	a, loc, id, err := rt.conversation(c.ID)
	if err != nil {
		return err
	}
	r, err := a.Conversations.Range(c.From, c.Until, "")
	if err != nil {
		return err
	}
	o.From, o.Until = r.From, r.Until
	spec, err := compactFlag(c.Compact.Values)
	if err != nil {
		return err
	}
	nid, err := a.Conversations.ForkWith(rt.Ctx, loc, id, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Forked conversation %s into %s (now active)\n", id, nid)
	if spec == nil {
		return nil
	}
	res, err := a.Query.Compact(rt.Ctx, app.CompactInput{
		Loc: loc, Conversation: nid, Spec: *spec, ConfigSources: rt.configSources(),
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

// ConversationLabelCmd is jp conversation label, as the Rust jp has it:
// jp c label [--id ID] add KEY[=VALUE]..., rm [KEY...] (none: all), ls
// (also the default). This jp's jp c label ID add|rm KEY keeps working.
type ConversationLabelCmd struct {
	ID     string   `short:"i" name:"id" predictor:"conversation" placeholder:"ID" help:"The conversation (default: the active one)."`
	Args   []string `arg:"" optional:"" help:"add KEY[=VALUE]... | rm [KEY...] | ls; add may be set or a, rm may be r, remove, del or delete."`
	Format string   `enum:"text,json" default:"text" help:"Output format: text or json."`
}

// labelVerb names the verb of jp c label args; "" is none.
func labelVerb(s string) string {
	switch s {
	case "add", "a", "set":
		return "add"
	case "rm", "r", "remove", "del", "delete":
		return "rm"
	case "ls", "list":
		return "ls"
	}
	return ""
}

// Run changes or lists the labels.
func (c *ConversationLabelCmd) Run(rt *Runtime) error {
	target, verb, ds, err := c.parse()
	if err != nil {
		return err
	}
	a, loc, id, err := rt.conversation(target)
	if err != nil {
		return err
	}
	var labels [][2]string
	if verb != "ls" {
		applied, err := a.Conversations.Label(rt.Ctx, loc, id, ds)
		if err != nil {
			return err
		}
		for _, k := range applied.Missing {
			fmt.Fprintf(rt.Streams.Err, "⚠ Conversation %s has no label '%s'; nothing to remove.\n", id, safetext.String(k))
		}
		labels = applied.Removed
		if verb == "add" {
			labels = nil
			for _, d := range ds {
				labels = append(labels, [2]string{d.Key, d.Value})
			}
		}
	}
	s, err := a.Conversations.Get(rt.Ctx, loc, id)
	if err != nil {
		return err
	}
	if verb == "ls" {
		lm := s.Metadata.LabelMap()
		for _, k := range slices.Sorted(maps.Keys(lm)) {
			labels = append(labels, [2]string{k, lm[k]})
		}
	}
	if c.Format == "json" {
		return writeLabelsJSON(rt, verb, id, s.Metadata.Title, labels)
	}
	writeLabelsText(rt, verb, id, s.Metadata.Title, labels)
	return nil
}

// parse reads the arguments: the conversation (--id, or this jp's older
// form jp c label ID add|rm KEY), the verb and its label directives.
func (c *ConversationLabelCmd) parse() (target, verb string, ds []conversation.LabelDirective, err error) {
	args := c.Args
	target = c.ID
	if len(args) > 0 && labelVerb(args[0]) == "" {
		// This jp's older form: jp c label ID add|rm KEY.
		if target != "" {
			return "", "", nil, &app.UsageError{Msg: fmt.Sprintf("jp c label: %q is not add, rm or ls (the conversation is already given with --id)", args[0])}
		}
		target, args = args[0], args[1:]
		if len(args) == 0 || labelVerb(args[0]) == "" {
			return "", "", nil, &app.UsageError{Msg: "jp c label takes add KEY[=VALUE]..., rm [KEY...] or ls, e.g. jp c label --id ID add team=core"}
		}
	}
	verb = "ls"
	if len(args) > 0 {
		verb, args = labelVerb(args[0]), args[1:]
	}
	switch {
	case verb == "ls" && len(args) > 0:
		return "", "", nil, &app.UsageError{Msg: "jp c label ls takes no keys: it lists the conversation's labels"}
	case verb == "add" && len(args) == 0:
		return "", "", nil, &app.UsageError{Msg: "jp c label add needs at least one KEY[=VALUE]"}
	case verb == "rm" && len(args) == 0:
		ds = []conversation.LabelDirective{{Op: conversation.LabelRemoveAll}}
	}
	for _, raw := range args {
		parse := conversation.ParseLabelSet
		if verb == "rm" {
			parse = conversation.ParseLabelRemove
		}
		d, err := parse(raw)
		if err != nil {
			return "", "", nil, &app.UsageError{Msg: err.Error()}
		}
		ds = append(ds, d)
	}
	return target, verb, ds, nil
}

// writeLabelsJSON prints the labels changed or listed as JSON.
func writeLabelsJSON(rt *Runtime, verb string, id conversation.ID, title string, labels [][2]string) error {
	type kv struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	out := struct {
		Action       string `json:"action,omitempty"`
		Conversation struct {
			ID    string  `json:"id"`
			Title *string `json:"title"`
		} `json:"conversation"`
		Labels []kv `json:"labels"`
	}{Labels: []kv{}}
	if verb == "add" {
		out.Action = "added"
	} else if verb == "rm" {
		out.Action = "removed"
	}
	out.Conversation.ID = string(id)
	if title != "" {
		out.Conversation.Title = &title
	}
	for _, l := range labels {
		out.Labels = append(out.Labels, kv{l[0], l[1]})
	}
	return writeJSON(rt.Streams.Out, out)
}

// writeLabelsText says which labels were added or removed, or lists them.
func writeLabelsText(rt *Runtime, verb string, id conversation.ID, title string, labels [][2]string) {
	names := make([]string, len(labels))
	for i, l := range labels {
		names[i] = safetext.String(conversation.LabelText(l[0], l[1]))
	}
	who := string(id)
	if title != "" {
		who += ": " + safetext.String(trimTitle(title))
	}
	switch {
	case verb == "ls" && len(names) == 0:
		fmt.Fprintf(rt.Streams.Out, "%s\nNo labels.\n", id)
	case verb == "ls":
		fmt.Fprintf(rt.Streams.Out, "%s\n%s\n", id, strings.Join(names, "\n"))
	case verb == "add":
		fmt.Fprintf(rt.Streams.Out, "Added labels %s to %s\n", strings.Join(names, ", "), who)
	case len(names) == 0:
		fmt.Fprintf(rt.Streams.Out, "No labels to remove from %s\n", who)
	default:
		fmt.Fprintf(rt.Streams.Out, "Removed labels %s from %s\n", strings.Join(names, ", "), who)
	}
}

// ConversationEditCmd is jp conversation edit. Without flags it opens the
// title, pinned flag and labels in the editor; the Rust jp's flags change
// them directly.
type ConversationEditCmd struct {
	ID         string      `arg:"" optional:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one (default: the active conversation)."`
	Pin        optBool     `placeholder:"[BOOL]" help:"Pin (true) or unpin (false) the conversation; alone, toggles."`
	Title      optText     `placeholder:"[TITLE]" help:"Set the title; alone, generate one with conversation.title.model."`
	NoTitle    bool        `name:"no-title" help:"Remove the title."`
	Tmp        optDuration `placeholder:"[DURATION|now]" help:"Expire the conversation DURATION from now (now: once no longer active); alone, toggles. Recorded as the Rust jp's expires_at."`
	NoTmp      bool        `name:"no-tmp" help:"Remove the expiry."`
	Local      optBool     `placeholder:"[BOOL]" help:"Keep the conversation on this machine only (not supported by this jp yet)."`
	Events     bool        `short:"e" help:"Open events.json in the editor (not supported by this jp yet: jp c path --events prints it)."`
	Metadata   bool        `short:"m" help:"Open metadata.json in the editor (not supported by this jp yet: jp c path --metadata prints it)."`
	BaseConfig bool        `short:"b" name:"base-config" help:"Open base_config.json in the editor (not supported by this jp yet: jp c path --base-config prints it)."`
}

// properties applies the Rust jp's property flags; ok is false when none
// was given.
func (c *ConversationEditCmd) properties(rt *Runtime) (ok bool, err error) {
	for _, f := range []struct {
		on   bool
		name string
	}{{c.Events, "--events"}, {c.Metadata, "--metadata"}, {c.BaseConfig, "--base-config"}, {c.Local.Set, "--local"}} {
		if f.on {
			return true, &app.UsageError{Msg: "jp c edit " + f.name + " is not supported by this jp yet: jp c path prints the conversation's files, and jp c edit alone edits its title, pin and labels"}
		}
	}
	if !c.Pin.Set && !c.Title.Set && !c.NoTitle && !c.Tmp.Set && !c.NoTmp {
		return false, nil
	}
	if c.Title.Set && c.NoTitle || c.Tmp.Set && c.NoTmp {
		return true, &app.UsageError{Msg: "--title and --no-title (or --tmp and --no-tmp) contradict each other: give one"}
	}
	var e app.Edit
	if c.Tmp.Set {
		switch v := c.Tmp.Value; {
		case v == "":
			e.ToggleExpiry = true
		case strings.EqualFold(v, "now"):
			var zero time.Duration
			e.ExpiresIn = &zero
		default:
			d, err := timespec.ParseDuration(v)
			if err != nil {
				return true, &app.UsageError{Msg: "--tmp: " + err.Error() + " (or now)"}
			}
			e.ExpiresIn = &d
		}
	}
	e.NoExpiry, e.NoTitle = c.NoTmp, c.NoTitle
	a, loc, id, err := rt.conversation(c.ID)
	if err != nil {
		return true, err
	}
	if c.Pin.Set {
		s, err := a.Conversations.Get(rt.Ctx, loc, id)
		if err != nil {
			return true, err
		}
		pin, err := c.Pin.Want("pin", s.Metadata.Pinned())
		if err != nil {
			return true, &app.UsageError{Msg: err.Error()}
		}
		e.Pinned = &pin
	}
	if c.Title.Set && c.Title.Value != "" {
		e.Title = &c.Title.Value
	}
	if err := a.Conversations.Apply(rt.Ctx, loc, id, e); err != nil {
		return true, err
	}
	if c.Title.Set && c.Title.Value == "" {
		title, err := a.Query.GenerateTitle(rt.Ctx, app.TitleInput{
			Loc: loc, Conversation: id, ConfigSources: rt.configSources(),
		})
		if err != nil {
			return true, err
		}
		fmt.Fprintf(rt.Streams.Out, "Titled conversation %s: %s\n", id, safetext.String(trimTitle(title)))
	}
	fmt.Fprintf(rt.Streams.Out, "Updated conversation %s\n", id)
	return true, nil
}

// editDoc is what jp conversation edit puts in the editor.
type editDoc struct {
	Title  string   `toml:"title"`
	Pinned bool     `toml:"pinned"`
	Labels []string `toml:"labels"`
}

const editHeader = "# Edit this conversation's title, pinned flag and labels, then save and quit.\n# Quit without saving (or empty the file) to change nothing.\n"

// Run applies the property flags, or without them opens the metadata in
// the editor and applies what was saved.
func (c *ConversationEditCmd) Run(rt *Runtime) error {
	if done, err := c.properties(rt); done || err != nil {
		return err
	}
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
