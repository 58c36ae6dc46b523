package main

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/compact"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/safetext"
	jpwire "github.com/jpcli/jp/wire"
)

// ConversationCmd is jp conversation (alias c).
type ConversationCmd struct {
	Ls        ConversationLsCmd      `cmd:"" default:"withargs" aliases:"list" help:"List conversations in this workspace checkout (the default: bare jp c lists). * marks the active one."`
	Show      ConversationShowCmd    `cmd:"" aliases:"s" help:"Show a conversation's events (default: the active conversation)."`
	Use       ConversationUseCmd     `cmd:"" aliases:"u" help:"Make a conversation the active one of this checkout (jp q continues it)."`
	Fork      ConversationForkCmd    `cmd:"" aliases:"f" help:"Copy a conversation into a new, active one: all its turns, or those --first/--last/--from/--until select."`
	Rewind    ConversationRewindCmd  `cmd:"" help:"Restore the files the conversation's tools changed after turn N, and fork the conversation there (or --truncate it)."`
	Grep      ConversationGrepCmd    `cmd:"" aliases:"g,rg" help:"Search the text of conversations with a regular expression."`
	Compact   ConversationCompactCmd `cmd:"" help:"Compact a conversation: overlays that make the model see less of some turns (summaries, reasoning and tool calls stripped); nothing is removed."`
	Edit      ConversationEditCmd    `cmd:"" aliases:"e" help:"Edit a conversation's title, pinned flag and labels in the editor, or with --pin, --title, --tmp directly."`
	Label     ConversationLabelCmd   `cmd:"" aliases:"l,labels" help:"Manage a conversation's labels: jp c label [--id ID] add KEY[=VALUE]..., rm [KEY...], ls."`
	Rm        ConversationRmCmd      `cmd:"" aliases:"remove,rem,delete,del" help:"Move conversations to the trash (asks first unless --yes); jp c restore brings them back for 30 days."`
	Restore   ConversationRestoreCmd `cmd:"" help:"Bring back a removed conversation from the trash (default: the one removed last); --list shows the trash."`
	Print     ConversationPrintCmd   `cmd:"" aliases:"p" help:"Print a conversation as a transcript, or some of its turns (--first, --last, --turn, --from/--to); --style user|chat|brief|full."`
	Path      ConversationPathCmd    `cmd:"" help:"Print the directory of conversations (default: the active one), or with --events, --metadata, --base-config those files."`
	Archive   ArchiveCmd             `cmd:"" aliases:"a" help:"Archive a conversation (hidden from ls), or those --from/--until/--inactive-since select."`
	Unarchive UnarchiveCmd           `cmd:"" aliases:"ua" help:"Unarchive a conversation."`
	Title     ConversationTitleCmd   `cmd:"" help:"Set a conversation's title."`
	Pin       PinCmd                 `cmd:"" help:"Pin a conversation (listed first)."`
	Unpin     UnpinCmd               `cmd:"" help:"Unpin a conversation."`
}

// ConversationLsCmd is jp conversation ls.
type ConversationLsCmd struct {
	Archived   bool     `help:"List only archived conversations."`
	All        bool     `short:"a" help:"List archived and unarchived conversations."`
	Label      []string `sep:"none" placeholder:"KEY[=VALUE]" help:"List only conversations with this label (KEY: any value; KEY=VALUE: that value); repeatable, all must match."`
	Sort       string   `placeholder:"FIELD" help:"Sort by id, created, activity, expires, messages or local (ascending; pinned ones stay first). Default: the most recently active first."`
	Descending bool     `help:"Sort in descending order."`
	Limit      int      `placeholder:"N" help:"List at most N conversations."`
	Full       bool     `help:"Show the full last-active time (with seconds)."`
	Local      bool     `help:"List only the conversations kept on this machine alone (--local ones)."`
	FormatFlag
}

// Run lists conversations.
func (c *ConversationLsCmd) Run(rt *Runtime) error {
	a, loc, err := rt.openApp()
	if err != nil {
		return err
	}
	if c.Limit < 0 {
		return &app.UsageError{Msg: fmt.Sprintf("--limit %d is below 0: give the number of conversations to list", c.Limit)}
	}
	if err := app.CheckSort(c.Sort); err != nil {
		return err
	}
	sels, err := labelSelectors(c.Label)
	if err != nil {
		return err
	}
	list, err := a.Conversations.List(rt.Ctx, loc, app.ListOptions{Archived: c.Archived, All: c.All, Labels: sels,
		Local: c.Local, Sort: c.Sort, Descending: c.Descending})
	if err != nil {
		return err
	}
	list, bad := app.Unreadable(list)
	for _, line := range bad {
		fmt.Fprintln(rt.Streams.Err, "jp: "+line)
	}
	active, err := a.Conversations.Active(rt.Ctx, loc)
	if err != nil {
		return err
	}
	hidden := 0
	if c.Limit > 0 && len(list) > c.Limit {
		hidden = len(list) - c.Limit
		list = list[:c.Limit]
	}
	w := bufio.NewWriterSize(rt.Streams.Out, 64<<10)
	defer w.Flush()
	if c.JSON() {
		return writeJSON(w, eventcodec.Summaries(list))
	}
	return c.writeText(rt, w, a, loc, list, active, hidden)
}

// writeText prints the listing as a table (IDs as their shortest unique
// prefix unless --full), or says why there is nothing to list.
func (c *ConversationLsCmd) writeText(rt *Runtime, w io.Writer, a *jpwire.App, loc workspace.Location, list []conversation.Summary, active conversation.ID, hidden int) error {
	timeFormat := "2006-01-02 15:04"
	if c.Full {
		timeFormat = "2006-01-02 15:04:05"
	}
	if len(list) == 0 {
		if c.Local {
			fmt.Fprintln(w, "No local conversations.")
			return nil
		}
		if len(c.Label) > 0 {
			fmt.Fprintf(w, "No conversations labelled %s.\n", safetext.String(strings.Join(c.Label, ", ")))
			return nil
		}
		fmt.Fprintln(w, "No conversations yet: start one with jp query.")
		return nil
	}
	// IDs show as the shortest prefix that names each alone, as the
	// resolver takes it (--format json and --full keep whole IDs).
	var short map[conversation.ID]string
	if !c.Full {
		var err error
		if short, err = a.Conversations.ShortIDs(rt.Ctx, loc); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "  %-12s  %-*s  %6s  %-5s  %s\n", "ID", len(timeFormat), "LAST ACTIVE", "EVENTS", "FLAGS", "TITLE")
	for _, s := range list {
		mark := " "
		if s.ID == active {
			mark = "*"
		}
		title := trimTitle(s.Metadata.Title)
		if ls := s.Metadata.Labels(); len(ls) > 0 {
			title += "  [" + safetext.String(strings.Join(ls, ", ")) + "]"
		}
		shown := cmp.Or(short[s.ID], string(s.ID)) // --full: whole IDs
		fmt.Fprintf(w, "%s %-12s  %-*s  %6d  %-5s  %s\n", mark, shown, len(timeFormat), s.Metadata.LastActivatedAt.Local().Format(timeFormat),
			s.Metadata.EventsCount, flags(s), title)
	}
	if hidden > 0 {
		fmt.Fprintf(w, "(%d more not listed: raise --limit)\n", hidden)
	}
	return nil
}

// labelSelectors parses the --label selectors.
func labelSelectors(labels []string) ([]conversation.LabelSelector, error) {
	var sels []conversation.LabelSelector
	for _, l := range labels {
		sel, err := conversation.ParseLabelSelector(l)
		if err != nil {
			return nil, &app.UsageError{Msg: err.Error()}
		}
		sels = append(sels, sel)
	}
	return sels, nil
}

func flags(s conversation.Summary) string {
	var b strings.Builder
	if s.Metadata.Pinned() {
		b.WriteByte('P')
	}
	if s.Metadata.Archived() {
		b.WriteByte('A')
	}
	if s.Local {
		b.WriteByte('L')
	}
	if s.Storage == conversation.StorageWorkspaceOnly {
		b.WriteByte('W')
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

// ConversationShowCmd is jp conversation show.
type ConversationShowCmd struct {
	ID   string `arg:"" optional:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one (default: the active conversation)."`
	Turn int    `placeholder:"N" help:"Show only turn N (1 is the first)."`
	Last bool   `help:"Show only the last turn."`
	FormatFlag
}

// Run prints a conversation.
func (c *ConversationShowCmd) Run(rt *Runtime) error {
	a, loc, id, record, err := rt.conversationToRead(c.ID)
	if err != nil {
		return err
	}
	defer record()
	// Written as the events are read: the first lines of a long
	// conversation appear before its file is read whole.
	w := bufio.NewWriter(rt.Streams.Out)
	defer w.Flush()
	var changed turnFiles
	var total conversation.Usage
	var sizer turn.Sizer // the context meter, in memory that grows with turns only
	lastModel := ""
	turns := 0
	totalOf := "" // what the footer totals when it is not the whole conversation
	header := func(s conversation.Summary) error {
		fmt.Fprintf(w, "Conversation %s: %s\n", s.ID, trimTitle(s.Metadata.Title))
		return w.Flush()
	}
	event := func(e conversation.Event) error {
		if e.Type == conversation.EventTypeTurnEnd {
			changed.write(w)
		}
		changed.add(e)
		sizer.Add(e)
		if e.Type == conversation.EventTypeTurnEnd && e.Model != "" {
			lastModel = e.Model
		}
		writeEvent(w, e)
		if e.Type == conversation.EventTypeTurnEnd && e.Usage != nil {
			total = total.Add(*e.Usage)
			turns++
		}
		return nil
	}
	if c.JSON() && c.Turn == 0 && !c.Last {
		return showJSON(rt, a, loc, id)
	}
	if c.JSON() || c.Turn != 0 || c.Last {
		// One turn: its events are gathered first (only its own are kept).
		if err := checkTurnFlags(c.Turn, c.Last); err != nil {
			return err
		}
		s, evs, count, err := a.Conversations.ShowTurn(rt.Ctx, loc, id, c.Turn, c.Last)
		if err != nil {
			return err
		}
		if err := checkTurn(id, c.Turn, c.Last, count); err != nil {
			return err
		}
		totalOf = oneTurnOf(c.Turn, c.Last, count)
		if c.JSON() {
			return writeJSON(rt.Streams.Out, struct {
				eventcodec.Summary
				Events []eventcodec.JSON `json:"events"`
			}{eventcodec.SummaryOf(s), eventcodec.Events(evs)})
		}
		if err := header(s); err != nil {
			return err
		}
		for _, e := range evs {
			_ = event(e)
		}
	} else if err := a.Conversations.ShowEach(rt.Ctx, loc, id, header, event); err != nil {
		return err
	}
	if turns > 0 {
		if totalOf == "" {
			totalOf = plural(turns, "turn", "turns")
		}
		fmt.Fprintf(w, "\nTotal (%s): %s\n", totalOf, usageText(total))
	}
	if c.Turn == 0 && !c.Last {
		rt.writeMeter(w, a, lastModel, sizer.Tokens())
	}
	return nil
}

// oneTurnOf is what the footer of one turn of count totals: "last turn,
// N of N" or "turn T of N".
func oneTurnOf(turn int, last bool, count int) string {
	if last {
		return fmt.Sprintf("last turn, %d of %d", count, count)
	}
	return fmt.Sprintf("turn %d of %d", turn, count)
}

// turnFiles gathers the files one turn's tool calls changed, for the
// line show prints before the turn's end.
type turnFiles struct {
	seen  map[string]bool
	files []string
}

func (t *turnFiles) add(e conversation.Event) {
	if e.Type != conversation.EventTypeToolCallResponse {
		return
	}
	for _, f := range e.Files {
		if !t.seen[f] {
			if t.seen == nil {
				t.seen = map[string]bool{}
			}
			t.seen[f] = true
			t.files = append(t.files, f)
		}
	}
}

// write prints "files changed: a, b" when the turn changed any, and
// starts over.
func (t *turnFiles) write(w io.Writer) {
	if len(t.files) > 0 {
		fmt.Fprintf(w, "files changed: %s\n", strings.Join(t.files, ", "))
	}
	*t = turnFiles{}
}

// usageText renders recorded token counts as the turn-end line does.
func usageText(u conversation.Usage) string {
	return "tokens: " + (llm.Usage{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, ReasoningTokens: u.ReasoningTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens,
	}).Text()
}

// checkTurnFlags refuses --turn with --last.
func checkTurnFlags(n int, last bool) error {
	if n != 0 && last {
		return &app.UsageError{Msg: "--turn and --last exclude each other"}
	}
	return nil
}

// checkTurn checks --turn n (1-based) or --last against the turns the
// conversation has.
func checkTurn(id conversation.ID, n int, last bool, turns int) error {
	if n == 0 && !last {
		return nil
	}
	if turns == 0 {
		return &app.UserError{Msg: fmt.Sprintf("conversation %s has no turns yet", id)}
	}
	if !last && (n < 1 || n > turns) {
		return &app.UserError{Msg: fmt.Sprintf("conversation %s %s", id, turnRange(turns))}
	}
	return nil
}

// turnRange says how many turns there are and which --turn to pick:
// "has 1 turn: pick --turn 1", "has 3 turns: pick --turn 1 to 3".
func turnRange(count int) string {
	if count == 1 {
		return "has 1 turn: pick --turn 1"
	}
	return fmt.Sprintf("has %d turns: pick --turn 1 to %d", count, count)
}

// plural is "1 turn" or "N turns".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func writeEvent(w io.Writer, e conversation.Event) {
	switch e.Type {
	case conversation.EventTypeTurnStart:
		if e.Root == "" { // the Rust jp records no root
			fmt.Fprintf(w, "\n── turn (%s)\n", e.Timestamp.Local().Format("2006-01-02 15:04:05"))
			break
		}
		fmt.Fprintf(w, "\n── turn in %s (%s)\n", e.Root, e.Timestamp.Local().Format("2006-01-02 15:04:05"))
	case conversation.EventTypeChatRequest:
		who := "you"
		if e.Author != "" && e.Author != conversation.AuthorUser {
			who = e.Author
		}
		fmt.Fprintf(w, "\n[%s]\n%s\n", who, e.Content)
		for _, a := range e.Attachments {
			if a.IsReference() {
				// Content from outside the checkout, kept by whoever attached it.
				fmt.Fprintf(w, "[attachment] %s (not in this copy: content from outside the checkout stays in the user-local copy of whoever attached it; %d bytes, sha256 %s)\n", noControl(a.Source), a.Size, noControl(a.SHA256))
				continue
			}
			fmt.Fprintf(w, "[attachment] %s (%s, %d bytes, sha256 %.12s)\n", noControl(a.Source), noControl(a.MediaType), a.Size, noControl(a.SHA256))
		}
	case conversation.EventTypeChatResponse:
		if e.Reasoning != "" {
			fmt.Fprintf(w, "\n[reasoning]\n%s\n", e.Reasoning)
		} else if e.Message != "" {
			fmt.Fprintf(w, "\n[assistant]\n%s\n", e.Message)
		}
		if e.StopReason == string(llm.StopLength) {
			fmt.Fprintln(w, "[cut at the token limit]")
		}
	case conversation.EventTypeToolCallRequest:
		fmt.Fprintf(w, "\n[tool call %s] %s %s\n", e.CallID, e.Name, app.CompactJSON(e.Arguments))
	case conversation.EventTypeToolCallResponse:
		label := "tool result"
		if e.IsError {
			label = "tool error"
		}
		fmt.Fprintf(w, "[%s %s]\n%s\n", label, e.CallID, strings.TrimRight(e.Content, "\n"))
	case conversation.EventTypeInquiryRequest:
		fmt.Fprintf(w, "[question %s] %s\n", e.InquiryID, e.Question)
	case conversation.EventTypeInquiryResponse:
		ans := string(e.Answer)
		if conversation.IsRedacted(e.Answer) {
			ans = "(secret, not stored)"
		}
		fmt.Fprintf(w, "[answer %s] %s\n", e.InquiryID, ans)
	case conversation.EventTypeTurnEnd:
		line := "── turn " + string(e.Outcome)
		if e.Model != "" {
			line += " · " + noControl(e.Model)
		}
		if e.Usage != nil {
			line += " · " + usageText(*e.Usage)
		}
		fmt.Fprintln(w, line)
	case conversation.EventTypeForeign:
		if c := e.Compaction; c != nil {
			fmt.Fprintf(w, "[compaction] turns %d..%d: %s\n", c.FromTurn+1, c.ToTurn+1, compact.Label(*c))
			break
		}
		if e.IsCompactionReset() {
			fmt.Fprintln(w, "[compaction reset] the compactions before it are undone")
			break
		}
		if paths, ok := eventcodec.ConfigChanges(e); ok {
			fmt.Fprintf(w, "[config changed] %s\n", noControl(strings.Join(paths, ", ")))
			break
		}
		fmt.Fprintf(w, "[%s event, kept as stored]\n", noControl(e.Kind))
	}
}

// noControl replaces control characters in a name read from a file, so
// that it cannot steer the terminal.
func noControl(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

// ConversationRmCmd is jp conversation rm.
type ConversationRmCmd struct {
	IDs   []string `arg:"" optional:"" name:"id" predictor:"conversation" help:"Conversation IDs or unique prefixes (default: the active conversation)."`
	Yes   bool     `short:"y" aliases:"no-confirm" help:"Remove without asking (--no-confirm is the same)."`
	From  string   `placeholder:"TIME" help:"Remove every conversation created at or after TIME instead of naming them: a duration ago (3w, 30d, 6h), a date (2026-01-01), an RFC 3339 time or a conversation ID."`
	Until string   `placeholder:"TIME" help:"Remove every conversation created before TIME (same forms as --from; with --from, the range [from, until))."`
}

// Run deletes conversations.
func (c *ConversationRmCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	if err := checkIDs(c.IDs); err != nil {
		return err
	}
	loc, err := rt.open(a)
	if err != nil {
		return err
	}
	ids, titles, err := c.resolve(rt, a, loc)
	if err != nil || len(ids) == 0 {
		return err
	}
	if !c.Yes {
		ok, err := rt.confirm(fmt.Sprintf("Remove %s? (kept in the trash for %d days) [y/N] ", strings.Join(titles, ", "), trashDays()))
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(rt.Streams.Err, "Nothing removed.")
			return nil
		}
	}
	removed, err := a.Conversations.TrashAll(rt.Ctx, loc, ids)
	for _, id := range removed {
		fmt.Fprintf(rt.Streams.Out, "Removed conversation %s (jp conversation restore %s brings it back)\n", id, id)
	}
	return err
}

// checkIDs fails on the first of raws that is neither a conversation ID
// (or a prefix of one) nor a target: a bad ID changes nothing, not even
// the workspace registry, so it is checked before the workspace is opened.
func checkIDs(raws []string) error {
	for _, s := range raws {
		if strings.Trim(s, "0123456789") != "" && !app.IsTarget(s) {
			_, err := app.ParseID(s)
			return err
		}
	}
	return nil
}

// resolve returns the conversations to remove: those named, or those
// created within --from/--until. None in the range says so.
func (c *ConversationRmCmd) resolve(rt *Runtime, a *jpwire.App, loc workspace.Location) (ids []conversation.ID, titles []string, err error) {
	if c.From != "" || c.Until != "" {
		if len(c.IDs) > 0 {
			return nil, nil, &app.UsageError{Msg: "--from/--until select the conversations to remove, so they cannot be combined with conversation IDs: give one or the other"}
		}
		list, err := a.Conversations.Within(rt.Ctx, loc, c.From, c.Until, "")
		if err != nil {
			return nil, nil, err
		}
		if len(list) == 0 {
			fmt.Fprintln(rt.Streams.Out, "No conversations match the range.")
		}
		for _, s := range list {
			ids = append(ids, s.ID)
			titles = append(titles, fmt.Sprintf("%s (%s)", s.ID, safetext.String(trimTitle(s.Metadata.Title))))
		}
		return ids, titles, nil
	}
	raws := c.IDs
	if len(raws) == 0 {
		raws = []string{""}
	}
	if raws, err = rt.targets(a, loc, raws); err != nil {
		return nil, nil, err
	}
	list, err := a.Conversations.ResolveEach(rt.Ctx, loc, raws)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range list {
		ids = append(ids, s.ID)
		titles = append(titles, fmt.Sprintf("%s (%s)", s.ID, trimTitle(s.Metadata.Title)))
	}
	return ids, titles, nil
}

// idArg is the conversation ID argument of single-conversation commands.
type idArg struct {
	ID string `arg:"" optional:"" predictor:"conversation" help:"Conversation ID or a unique prefix of one (default: the active conversation)."`
}

// ArchiveCmd is jp conversation archive.
type ArchiveCmd struct {
	idArg
	From          string `placeholder:"TIME" help:"Archive every conversation created at or after TIME instead of naming one: a duration ago (3w, 30d), a date (2026-01-01), an RFC 3339 time or a conversation ID."`
	Until         string `placeholder:"TIME" help:"Archive every conversation created before TIME (same forms as --from)."`
	InactiveSince string `name:"inactive-since" placeholder:"TIME" help:"Archive every conversation not active since TIME (same forms as --from)."`
	Yes           bool   `short:"y" aliases:"no-confirm" help:"With --from, --until or --inactive-since: archive several without asking."`
}

// UnarchiveCmd is jp conversation unarchive.
type UnarchiveCmd struct{ idArg }

// PinCmd is jp conversation pin.
type PinCmd struct{ idArg }

// UnpinCmd is jp conversation unpin.
type UnpinCmd struct{ idArg }

// Run archives the conversation, or those within --from, --until and
// --inactive-since (all that are given must hold).
func (c *ArchiveCmd) Run(rt *Runtime) error {
	if c.From != "" || c.Until != "" || c.InactiveSince != "" {
		return c.archiveRange(rt)
	}
	return c.apply(rt, "Archived", func(a *jpwire.App, loc workspace.Location, id conversation.ID) error {
		return a.Conversations.SetArchived(rt.Ctx, loc, id, true)
	})
}

// archiveRange archives the conversations within the time filters,
// asking first when there are several (--yes does not ask).
func (c *ArchiveCmd) archiveRange(rt *Runtime) error {
	if c.ID != "" {
		return &app.UsageError{Msg: "--from, --until and --inactive-since select the conversations to archive, so they cannot be combined with a conversation ID: give one or the other"}
	}
	a, loc, err := rt.openApp()
	if err != nil {
		return err
	}
	list, err := a.Conversations.Within(rt.Ctx, loc, c.From, c.Until, c.InactiveSince)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(rt.Streams.Out, "No conversations match the filter.")
		return nil
	}
	if len(list) > 1 && !c.Yes {
		if rt.Paths.TTYIn == nil {
			return &app.UsageError{Msg: fmt.Sprintf("%d conversations match and jp asks before archiving several, but there is no terminal to ask on: pass --yes to archive them without asking", len(list))}
		}
		titles := make([]string, len(list))
		for i, s := range list {
			titles[i] = fmt.Sprintf("%s (%s)", s.ID, trimTitle(s.Metadata.Title))
		}
		ok, err := rt.confirm(fmt.Sprintf("Archive %s? [y/N] ", strings.Join(titles, ", ")))
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(rt.Streams.Err, "Nothing archived.")
			return nil
		}
	}
	for _, s := range list {
		if err := a.Conversations.SetArchived(rt.Ctx, loc, s.ID, true); err != nil {
			return err
		}
		fmt.Fprintf(rt.Streams.Out, "Archived conversation %s\n", s.ID)
	}
	return nil
}

// Run unarchives the conversation.
func (c *UnarchiveCmd) Run(rt *Runtime) error {
	return c.apply(rt, "Unarchived", func(a *jpwire.App, loc workspace.Location, id conversation.ID) error {
		return a.Conversations.SetArchived(rt.Ctx, loc, id, false)
	})
}

// Run pins the conversation.
func (c *PinCmd) Run(rt *Runtime) error {
	return c.apply(rt, "Pinned", func(a *jpwire.App, loc workspace.Location, id conversation.ID) error {
		return a.Conversations.SetPinned(rt.Ctx, loc, id, true)
	})
}

// Run unpins the conversation.
func (c *UnpinCmd) Run(rt *Runtime) error {
	return c.apply(rt, "Unpinned", func(a *jpwire.App, loc workspace.Location, id conversation.ID) error {
		return a.Conversations.SetPinned(rt.Ctx, loc, id, false)
	})
}

func (c idArg) apply(rt *Runtime, done string, fn func(*jpwire.App, workspace.Location, conversation.ID) error) error {
	a, loc, id, err := rt.conversation(c.ID)
	if err != nil {
		return err
	}
	if err := fn(a, loc, id); err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "%s conversation %s\n", done, id)
	return nil
}

// looksLikeID tells a conversation ID (or a mistyped one) from the first
// word of a title: it holds a digit and no letter.
func looksLikeID(s string) bool {
	return strings.ContainsAny(s, "0123456789") && !strings.ContainsFunc(s, unicode.IsLetter)
}

// ConversationTitleCmd is jp conversation title.
type ConversationTitleCmd struct {
	Args     []string `arg:"" optional:"" name:"id-and-title" placeholder:"[ID] TITLE" help:"An optional conversation ID or unique prefix (default: the active conversation), then the new title."`
	Generate bool     `help:"Generate the title now with conversation.title.model (replacing any title) instead of giving one."`
}

// Run sets the title.
func (c *ConversationTitleCmd) Run(rt *Runtime) error {
	raw, words := "", c.Args
	if len(words) > 1 && looksLikeID(words[0]) || c.Generate && len(words) == 1 {
		raw, words = words[0], words[1:]
	}
	switch {
	case c.Generate && len(words) > 0:
		return &app.UsageError{Msg: "--generate makes the title: give at most a conversation ID, not a title"}
	case !c.Generate && len(words) == 0:
		return &app.UsageError{Msg: "no title: give one (jp conversation title [ID] TITLE), or --generate to have it generated"}
	}
	a, loc, id, err := rt.conversation(raw)
	if err != nil {
		return err
	}
	if c.Generate {
		title, err := a.Query.GenerateTitle(rt.Ctx, app.TitleInput{
			Loc: loc, Conversation: id, ConfigSources: rt.configSources(),
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(rt.Streams.Out, "Titled conversation %s: %s\n", id, trimTitle(title))
		return nil
	}
	title := strings.Join(words, " ")
	if err := a.Conversations.SetTitle(rt.Ctx, loc, id, title); err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Titled conversation %s: %s\n", id, trimTitle(title))
	return nil
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	// DEL and C1 controls as \u escapes, as control characters already
	// are: the JSON decodes the same and no byte of it drives a terminal.
	_, err = w.Write(append(safetext.JSON(b), '\n'))
	return err
}

// conversation builds the app, checks a conversation ID or prefix (before
// touching any workspace, so a bad ID changes nothing), opens the checkout
// and resolves it: a unique prefix, or the active conversation for "".
func (rt *Runtime) conversation(raw string) (*jpwire.App, workspace.Location, conversation.ID, error) {
	return rt.conversationTo(raw, true)
}

// conversationToRead is conversation for a command that only reads it
// (show, print): the checkout is recorded as used (a synced write, which
// waits on a busy disk) by the returned func, which the command calls
// after its output, so the first byte does not wait for it.
func (rt *Runtime) conversationToRead(raw string) (*jpwire.App, workspace.Location, conversation.ID, func(), error) {
	a, loc, id, err := rt.conversationTo(raw, false)
	record := func() {
		if a != nil {
			_, _ = a.Workspaces.OpenOrDefault(rt.Ctx, rt.Globals.Workspace, rt.Paths.LaunchDir, true)
		}
	}
	return a, loc, id, record, err
}

// conversationTo is conversation, recording the checkout as used first
// (record), or not.
func (rt *Runtime) conversationTo(raw string, record bool) (*jpwire.App, workspace.Location, conversation.ID, error) {
	a, err := rt.App()
	if err != nil {
		return nil, workspace.Location{}, "", err
	}
	if err := checkIDs([]string{raw}); err != nil {
		return nil, workspace.Location{}, "", err
	}
	o, err := a.Workspaces.OpenOrDefault(rt.Ctx, rt.Globals.Workspace, rt.Paths.LaunchDir, record)
	loc := o.Location
	if err != nil {
		return nil, workspace.Location{}, "", err
	}
	if raw, err = rt.target(a, loc, raw); err != nil {
		return nil, workspace.Location{}, "", err
	}
	id, err := a.Conversations.Resolve(rt.Ctx, loc, raw)
	if err != nil {
		return nil, workspace.Location{}, "", err
	}
	return a, loc, id, nil
}

// showJSON writes a conversation as jp conversation show --format json
// does, its summary's fields and then "events", an event at a time as the
// store reads them: the same bytes as the indented document, without
// holding a long conversation in memory.
func showJSON(rt *Runtime, a *jpwire.App, loc workspace.Location, id conversation.ID) error {
	w := bufio.NewWriterSize(rt.Streams.Out, 64<<10)
	n := 0
	head := func(s conversation.Summary) error {
		b, err := json.MarshalIndent(eventcodec.SummaryOf(s), "", "  ")
		if err != nil {
			return err
		}
		if t, ok := bytes.CutSuffix(b, []byte("\n}")); ok {
			b = append(t, ',')
		} else {
			b = []byte("{") // a summary without fields: "{}"
		}
		if _, err = w.Write(append(safetext.JSON(b), "\n  \"events\": ["...)); err != nil {
			return err
		}
		return w.Flush() // the first bytes before the events are read
	}
	each := func(e conversation.Event) error {
		b, err := json.MarshalIndent(eventcodec.JSON(e), "    ", "  ")
		if err != nil {
			return err
		}
		if n > 0 {
			_ = w.WriteByte(',')
		}
		n++
		_, _ = w.WriteString("\n    ")
		_, err = w.Write(safetext.JSON(b))
		return err
	}
	if err := a.Conversations.ShowEach(rt.Ctx, loc, id, head, each); err != nil {
		return err
	}
	end := "\n  ]\n}\n"
	if n == 0 {
		end = "]\n}\n"
	}
	if _, err := w.WriteString(end); err != nil {
		return err
	}
	return w.Flush()
}
