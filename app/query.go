package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/run"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Query is the use case behind jp query (alias q): compose a message, run
// Turns in a Run (the turn loop), and record everything as it happens.
type Query struct {
	ws         *Workspaces
	store      ports.ConversationStore
	drafts     ports.DraftStore
	locker     ports.Locker
	config     ports.ConfigLoader
	providers  ports.ProviderFactory
	tools      ports.ToolSource
	printer    ports.Printer
	prompter   ports.Prompter
	clock      ports.Clock
	ids        ports.IDGenerator
	interrupts ports.Interrupts
	timers     ports.Timers
	ckpts      ports.BlockCheckpoints
	snaps      ports.FileSnapshots
	commits    ports.GitCommitter
	attacher   ports.Attacher
	trust      ports.WorkspaceTrust
	sent       ports.MessageHistory // the messages sent, for the session composer (nil: none)
	// approve, set on the copy that runs a delegated turn (Delegate),
	// answers tool permissions instead of the prompter.
	approve func(ctx context.Context, call llm.ToolCall, diff string) (ok bool, why string, err error)
	// configFiles writes "always for this workspace" answers.
	configFiles ports.ConfigEditor
	// durable is the real store of a copy running in memory (InMemory).
	durable *durableStore
	// Log receives what a run does not print, such as a title that could
	// not be generated (jp -v shows it); nil discards it.
	Log *slog.Logger
}

// QueryDeps are Query's ports, gathered so the constructor stays readable.
type QueryDeps struct {
	Store      ports.ConversationStore
	Drafts     ports.DraftStore
	Locker     ports.Locker
	Config     ports.ConfigLoader
	Providers  ports.ProviderFactory
	Tools      ports.ToolSource
	Printer    ports.Printer
	Prompter   ports.Prompter
	Clock      ports.Clock
	IDs        ports.IDGenerator
	Interrupts ports.Interrupts
	Timers     ports.Timers
	// Trust records the checkouts the user trusts; nil asks nothing and
	// leaves an untrusted checkout's keys that run or send out.
	Trust ports.WorkspaceTrust
	// Checkpoints keeps the block being streamed across a SIGKILL; nil
	// keeps none.
	Checkpoints ports.BlockCheckpoints
	// Snapshots keeps files' earlier contents for jp conversation
	// rewind; nil keeps none.
	Snapshots ports.FileSnapshots
	// Commits commits the files a turn changed (git_commit); nil commits
	// nothing.
	Commits ports.GitCommitter
	// ConfigFiles writes the permission prompt's "always for this
	// workspace" into a configuration file.
	ConfigFiles ports.ConfigEditor
	// Attacher reads -a and conversation.attachments; nil refuses them.
	Attacher ports.Attacher
	// History keeps the messages sent for the session composer's Up key;
	// nil keeps none.
	History ports.MessageHistory
}

// NewQuery builds the use case.
func NewQuery(ws *Workspaces, d QueryDeps) *Query {
	return &Query{ws: ws, store: d.Store, drafts: d.Drafts, locker: d.Locker, config: d.Config,
		providers: d.Providers, tools: d.Tools, printer: d.Printer, prompter: d.Prompter,
		clock: d.Clock, ids: d.IDs, interrupts: d.Interrupts, timers: d.Timers, ckpts: d.Checkpoints, snaps: d.Snapshots, commits: d.Commits,
		configFiles: d.ConfigFiles,
		attacher:    d.Attacher, trust: d.Trust, sent: d.History}
}

// QueryInput is one jp query invocation.
type QueryInput struct {
	// Target and LaunchDir select the checkout (-w and the cwd).
	Target    string
	LaunchDir string
	// Message is the text given as argument or on stdin; HasMessage says
	// whether there was one.
	Message    string
	HasMessage bool
	// Conversation is -c; New is --new; Local is --local.
	Conversation string
	New          bool
	Local        bool
	// Tmp (--tmp[=DURATION]) starts a conversation that expires TmpFor
	// after it was created (bare --tmp: at once) and is removed once it has
	// expired and is no longer the active one; NoPersist (--no-persist)
	// stores nothing (see ephemeral.go).
	Tmp       bool
	TmpFor    time.Duration
	NoPersist bool
	// Model is --model ("<provider>/<model>").
	Model string
	// Edit (-e) composes even with a message; NoEdit (-E) never composes.
	Edit   bool
	NoEdit bool
	// Schema (--schema) asks for structured output matching it.
	Schema json.RawMessage
	// HideReasoning (--hide-reasoning) drops streamed reasoning from the
	// output; it is still recorded.
	HideReasoning bool
	// Attach are the -a specs ("-" is Stdin); relative paths start from
	// LaunchDir.
	Attach []string
	// Stdin is text piped to jp when a message was also given (or when -a
	// - asks for it); HasStdin says whether there was any.
	Stdin    string
	HasStdin bool
	// Config layers.
	UserConfigDir string
	Environ       []string
	Overrides     []string
	// Flags are --title, --label, --fork, --quote, -% and the like.
	Flags QueryFlags
	// Compact (--compact) compacts the conversation before the turn.
	Compact *CompactSpec
	// Composed says Message was composed by the caller (a session's
	// composer): it is the conversation's draft until it is sent.
	Composed bool
	// attached are a session message's @PATH attachments, read already.
	attached []conversation.Attachment
	// sessionTurn is a session's turn after its first: the notes the
	// first one showed (the demo model's hint) are not repeated.
	sessionTurn bool
	// Auto (--auto read|edit|all|off) sets conversation.tools.auto for
	// this run only (it is not recorded in the conversation).
	Auto string
}

// QueryResult says how the Run ended.
type QueryResult struct {
	Conversation conversation.ID
	End          turn.End
	// Sent is false when nothing was sent (an empty compose).
	Sent bool
	// Loop is the run's query.loop (set when a turn was sent): always
	// goes on with a session (docs/session.md).
	Loop config.LoopPolicy
}

// runState is what lives for the Run: the turn-loop driver's state.
type runState struct {
	compact   *CompactSpec // --compact: compacted before the first turn
	loc       workspace.Location
	id        conversation.ID
	cfg       config.Config
	model     llm.ModelID
	provider  ports.Provider
	history   *turn.Transcript // the conversation so far, and what this run recorded
	approvals *run.Approvals
	chrome    map[string]bool // chrome lines already shown this run
	// lateNote is a chrome note shown with the model's first event (the
	// demo model's hint): a run that fails before the model is called
	// says only why.
	lateNote string
	failed   int             // provider calls that failed before output this run
	slot     run.Slot        // the queued reply (docs/interrupts.md)
	composed string          // the message this run composed (and sent)
	turns    int             // Turns started so far: the running Turn's number
	ckpt     blockCheckpoint // the checkpoint of the block being streamed
	// userConfigDir is where "always for this workspace" goes outside a
	// workspace.
	userConfigDir string
	params        llm.Params // assistant.model.parameters
	schema        []byte     // --schema, for the first turn
	attached      []conversation.Attachment
	// hideReasoning drops streamed reasoning from the output (it is
	// still recorded).
	hideReasoning bool
	// hideToolCalls shows no tool call or result (--hide-tool-calls).
	hideToolCalls bool
	started       bool            // the run's start record was reported (run_events.go)
	usage         *ports.RunUsage // tokens the provider reported this run
	offered       []llm.Tool      // the tools the last turn offered, for the context meter between turns
	lastStop      llm.StopReason  // why the provider's last response ended
	storage       string          // the start record's storage: "", "tmp", "none"
	title         *titleJob       // the title being generated (titles.go)
	noTitle       bool            // no title is generated this run (--tmp, --no-persist)
	// looping is set while turnLoop drives the turns: a turn's end may
	// then be carried to the next turn's first write (turn_writes.go).
	looping      bool
	carry        []conversation.Event // a turn's last events, not yet appended
	rootRecorded bool                 // the last-root record was written this run
	trust        config.TrustReview   // the checkout's keys that run or send, and whether they applied
	configSrc    ports.ConfigSource   // where the configuration was loaded from
	sentDraft    bool                 // the draft holds a queued reply the conversation now has
	inflight     *inflightAppend      // the queued turn's first append, running (turn_writes.go)
	inflightErr  error                // how it failed
	replay       string               // --replay: the ID of the request the trim drops
	stickyAttach []string             // -a specs recorded in conversation.attachments (attach_sticky.go)
	preamble     string               // the configuration block the editor preamble offered (editor_preamble.go)
	typeAhead    *typeAhead           // lines typed while a turn runs (typeahead.go)
	diffShown    map[string]bool      // calls whose diff a permission prompt showed (toolline.go)
	toolArgs     bool                 // tool calls are shown with their arguments (toolline.go)
	turnID       string               // the running turn's turn_start event ID (file snapshots)
	turnFiles    []string             // the files jp's tools changed this turn (git_commit)
	turnFilesMu  sync.Mutex           // guards turnFiles: a batch's calls add to it concurrently
}

// Run executes the query: the turn loop over runTurnPhases.
func (q *Query) Run(ctx context.Context, in QueryInput) (QueryResult, error) {
	if err := q.checkEphemeral(in); err != nil {
		return QueryResult{}, err
	}
	if err := in.Flags.check(in); err != nil {
		return QueryResult{}, err
	}
	opened, err := q.ws.OpenOrDefault(ctx, in.Target, in.LaunchDir, !in.NoPersist)
	if err != nil {
		return QueryResult{}, err
	}
	loc := opened.Location
	// The conversation is picked first: its configuration (base_config.json
	// and config_delta events) is a layer of the run's.
	existing, err := q.pickOrFork(ctx, loc, in)
	if err != nil {
		return QueryResult{}, err
	}
	// Locked before its events are read, and those are read once: for its
	// configuration layers, the model it last used and the turns.
	var release func() error
	if existing != "" {
		if release, err = q.lock(ctx, loc, existing); err != nil {
			return QueryResult{}, err
		}
		defer func() { _ = release() }()
	}
	layers, history, err := q.readConversation(ctx, loc, existing)
	if err != nil {
		return QueryResult{}, err
	}
	rs, prep, err := q.prepareRun(ctx, in, opened, existing, layers, history)
	if err != nil {
		return QueryResult{}, err
	}
	msg, err := q.runMessage(ctx, rs, in, existing, prep)
	if err != nil || msg.done {
		return QueryResult{Conversation: existing}, err
	}
	in, prep.res = msg.in, msg.res

	rs.id = existing
	if rs.id == "" {
		if rs.id, release, err = q.createFor(ctx, loc, in, msg.text); err != nil {
			return QueryResult{Conversation: rs.id}, err
		}
		defer func() { _ = release() }()
	}
	if in.NoPersist {
		// Runs before the lock is released, on every path out.
		defer q.endEphemeral(ctx, loc, rs.id, in)
	} else {
		if err := q.store.SetActive(ctx, loc, rs.id); err != nil {
			// This checkout's active conversation is now this one: jp q
			// and the jp conversation commands without an ID continue it.
			return QueryResult{Conversation: rs.id}, err
		}
		// Expired --tmp conversations no longer active go when the run
		// ends, as in the Rust jp.
		defer q.sweepExpired(ctx, loc, rs.id)
	}
	rs.storage, rs.noTitle = storageOf(in), in.Tmp || in.NoPersist
	if err := q.applyMeta(ctx, rs, in.Flags); err != nil {
		return QueryResult{Conversation: rs.id}, err
	}
	// What the command line changed sticks to the conversation, recorded
	// before the turn's events.
	if err := q.recordConfigDelta(ctx, rs, withAttachments(prep.res.CommandLine, rs.stickyAttach)); err != nil {
		return QueryResult{Conversation: rs.id}, err
	}
	defer q.finishTitle(rs) // before the lock is released
	q.reportStart(rs)
	if in.sessionTurn && prep.note == DemoHint {
		prep.note = ""
	}
	out, err := q.runTurns(ctx, rs, msg.text, prep.note, msg.fromCompose)
	out.Loop = rs.cfg.Query.Loop
	q.reportEnd(rs, out.End, err)
	return out, err
}

// runTurns is the part of Run after the conversation is chosen and locked.
func (q *Query) runTurns(ctx context.Context, rs *runState, text, note string, fromCompose bool) (QueryResult, error) {
	loc := rs.loc
	var err error
	if fromCompose {
		rs.composed = text
		// The composed text is the draft until it has been sent as a turn.
		if err := q.keepDraft(ctx, loc, rs.id, text); err != nil {
			return QueryResult{Conversation: rs.id}, err
		}
	}
	replayDraft := false
	if rs.replay != "" {
		if replayDraft, err = q.trimForReplay(ctx, rs, text, fromCompose); err != nil {
			return QueryResult{Conversation: rs.id}, err
		}
	}
	if rs.history == nil {
		if rs.history, err = q.history(ctx, loc, rs.id); err != nil {
			return QueryResult{Conversation: rs.id}, err
		}
	}
	switch note {
	case "":
	case DemoHint:
		rs.lateNote = note
	default:
		q.chromeLine(rs, note)
	}
	if err := q.compactBeforeTurn(ctx, rs); err != nil {
		return QueryResult{Conversation: rs.id}, err
	}

	end, err := q.turnLoop(ctx, rs, text)
	if _, queued := rs.slot.Text(); err == nil && end == turn.EndCompleted && (fromCompose || replayDraft) && !queued {
		// Sent as a turn and nothing queued: the draft's job is done. (The
		// cleanup runs after the loop, and only with an empty slot.)
		if derr := q.drafts.DeleteDraft(context.WithoutCancel(ctx), loc, rs.id); derr != nil {
			return QueryResult{Conversation: rs.id, End: end, Sent: true}, derr
		}
	}
	if ferr := q.printer.Flush(); err == nil {
		err = ferr
	}
	return QueryResult{Conversation: rs.id, End: end, Sent: true}, err
}

// turnLoop runs Turns within the Run: one Turn per message, and another
// while a reply is queued and query.loop allows it. A new Turn starts only
// when the previous one completed on its own.
func (q *Query) turnLoop(ctx context.Context, rs *runState, text string) (end turn.End, err error) {
	author, schema, attached := conversation.AuthorUser, rs.schema, rs.attached
	rs.looping = true
	stopTypeAhead := q.startTypeAhead(ctx, rs)
	defer func() {
		rs.looping = false
		stopTypeAhead()
		if q.takeTypeAhead(ctx, rs) {
			q.chromeNote(keptLine) // typed and not sent: the draft
		}
		// flushCarry also waits for an append still in flight.
		if ferr := q.flushCarry(ctx, rs); err == nil {
			err = ferr
		}
	}()
	q.startTitle(ctx, rs, text) // beside the first turn (titles.go)
	for turns := 0; ; turns++ {
		if turns > 0 || author == conversation.AuthorQueued || rs.composed != "" {
			q.echoMessage(text, turns > 0)
		}
		end, err := q.runTurnPhases(ctx, rs, turn.Request{Root: rs.loc.Root, Content: text, Author: author, Schema: schema, Attachments: attached})
		if derr := q.dropSentDraft(ctx, rs); err == nil {
			err = derr // a turn that sent no request still had its draft removed
		}
		schema, attached = nil, nil // a queued reply is free text
		if err != nil || end != turn.EndCompleted {
			q.takeTypeAhead(ctx, rs)
			if _, queued := rs.slot.Text(); queued {
				q.chromeNote(keptLine)
			}
			return end, err
		}
		if err := q.autoCompact(ctx, rs); err != nil {
			return end, err
		}
		next, send, err := q.nextQueued(ctx, rs)
		if err != nil || !send {
			return end, err
		}
		text, author = next, conversation.AuthorQueued
		rs.slot.Clear()
	}
}

func (q *Query) pickConversation(ctx context.Context, loc workspace.Location, in QueryInput) (conversation.ID, error) {
	if in.NoPersist && q.durable != nil && !in.New && !in.Local {
		return q.scratchCopy(ctx, loc, in)
	}
	if in.Conversation != "" {
		if in.New {
			return "", &UsageError{Msg: "-i/--id and --new exclude each other"}
		}
		return resolveConversation(ctx, q.store, loc, in.Conversation)
	}
	if in.New || in.Local || in.Tmp || in.NoPersist {
		return "", nil
	}
	return activeConversation(ctx, q.store, loc)
}

func (q *Query) lock(ctx context.Context, loc workspace.Location, id conversation.ID) (func() error, error) {
	release, err := q.locker.Lock(ctx, loc, id, LockWait)
	if err != nil {
		return nil, LockError(err)
	}
	return release, nil
}

// message returns the text to send and whether it was composed (and so
// belongs in the draft until sent).
// The third result is the whole document the editor saved (its preamble
// included), "" when nothing was composed.
func (q *Query) message(ctx context.Context, rs *runState, loc workspace.Location, id conversation.ID, tree map[string]any, in QueryInput) (string, bool, string, error) {
	cfg := rs.cfg
	compose := !in.HasMessage || in.Edit
	if in.NoEdit {
		compose = false
	}
	if !compose {
		if !in.HasMessage {
			return "", false, "", &UsageError{Msg: "no message: pass one as an argument or on stdin (jp q \"...\"), or drop -E to compose"}
		}
		return in.Message, false, "", nil
	}
	if !q.prompter.Interactive() {
		if in.Edit {
			return "", false, "", &UsageError{Msg: "-e needs a terminal to open the editor on: run jp q -e in a terminal, drop -e to send the message as it is, or script the editor with --headless (compose @query)"}
		}
		if in.HasMessage {
			return in.Message, false, "", nil
		}
		return "", false, "", &UsageError{Msg: "no message and no terminal to compose one: pass it as an argument or on stdin (jp q \"...\")"}
	}
	initial, doc := in.Message, ""
	if id != "" && !in.HasMessage {
		d, err := q.drafts.ReadDraft(ctx, loc, id)
		switch {
		case err == nil:
			parsed := draft.Parse(d.Text)
			initial, doc = parsed.Query(), d.Text
		case !errors.Is(err, ports.ErrNotFound):
			return "", false, "", err
		}
	}
	if !draft.Parse(doc).HasMeta() {
		// The Rust jp's preamble below the cut line (editor_preamble.go);
		// a draft's own meta section is kept as it is.
		doc = q.preambleDoc(ctx, loc, id, rs, tree, initial)
	}
	req := composeRequest("query", cfg.Query.ComposeInEditor, initial, doc)
	req.Editor = cfg.Editor.Cmd
	if in.Edit {
		// -e: the editor, on the draft, whatever compose_in_editor says.
		req.InEditor, req.FallbackInline, req.NoEditor = true, false, false
	}
	text, err := q.compose(ctx, req)
	if err != nil {
		// Text the user gave (the -e seed) or changed is kept; a draft
		// read back unchanged is already kept.
		typed := draft.Parse(text).Query()
		if strings.TrimSpace(typed) == "" && in.HasMessage {
			typed = in.Message // the editor failed or quit: the seed is kept
		}
		kept := strings.TrimSpace(typed) != "" && (typed != initial || in.HasMessage)
		if kept {
			q.keepAbandoned(ctx, loc, id, typed)
		}
		if errors.Is(err, ports.ErrCancelled) {
			if kept {
				return "", false, "", errAbandoned
			}
			return "", false, "", nil
		}
		return "", false, "", err
	}
	return draft.Parse(text).Query(), true, text, nil
}

// errAbandoned is message's answer to a compose the user backed out of
// after typing: what was typed is kept and said so in one line, and there
// is nothing more to say.
var errAbandoned = errors.New("compose abandoned; the text was kept")

// keepAbandoned keeps text the user typed and then backed out of (ESC,
// Ctrl-C): as the conversation's draft, which the next jp q -i picks up,
// or, for a conversation that does not exist yet, printed back, so that
// nothing typed is lost.
func (q *Query) keepAbandoned(ctx context.Context, loc workspace.Location, id conversation.ID, text string) {
	if id != "" {
		if err := q.keepDraft(context.WithoutCancel(ctx), loc, id, text); err == nil {
			q.chromeNote(fmt.Sprintf("Not sent. What you typed is the draft of conversation %s: jp q -i %s opens it again.", id, id))
			return
		}
	}
	q.printer.Write(ports.ChannelError, "Not sent. What you typed:\n"+text)
	q.printer.EndBlock(ports.ChannelError)
}

// keepDraft writes text as the draft's query text, keeping its meta
// section byte for byte.
func (q *Query) keepDraft(ctx context.Context, loc workspace.Location, id conversation.ID, text string) error {
	doc := draft.Parse("")
	if d, err := q.drafts.ReadDraft(ctx, loc, id); err == nil {
		doc = draft.Parse(d.Text)
	} else if !errors.Is(err, ports.ErrNotFound) {
		return err
	}
	_, err := q.drafts.WriteDraft(ctx, loc, id, doc.WithQuery(text).Render(), "")
	return err
}

// history reads the conversation into a transcript as the store reads
// it, one event at a time: no slice of the whole conversation's events is
// held (a conversation of 100,000 events is 50 MB of them).
func (q *Query) history(ctx context.Context, loc workspace.Location, id conversation.ID) (*turn.Transcript, error) {
	return q.scanHistory(ctx, loc, id, nil)
}

// scanHistory is history, handing each event also to also (when set),
// which must copy what it keeps of it: when the store can (a
// ports.TransientEventScanner), the events are read into memory reused
// for the next ones, since the transcript keeps only copies.
func (q *Query) scanHistory(ctx context.Context, loc workspace.Location, id conversation.ID, also func(conversation.Event)) (*turn.Transcript, error) {
	hint := 0 // the recorded count sizes the messages once (it may lag a little)
	if sum, err := q.store.Get(ctx, loc, id); err == nil {
		hint = sum.Metadata.EventsCount
	}
	t := turn.NewTranscript(hint)
	scan := q.store.ScanEvents
	if ts, ok := q.store.(ports.TransientEventScanner); ok {
		scan = ts.ScanEventsTransient
	}
	err := scan(ctx, loc, id, func(e conversation.Event) error {
		t.AddCopy(e) // so the store's read buffers can go
		if also != nil {
			also(e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// chooseModel applies --model, assistant.model.id, then the default choice
// of docs/configuration.md, returning a chrome note when the default was used.
func (q *Query) chooseModel(flag string, cfg config.Config) (llm.ModelID, string, error) {
	id := flag
	if id == "" {
		id = cfg.Assistant.Model.ID
	}
	if id != "" {
		resolved, err := cfg.ResolveModel(id)
		if err != nil {
			return llm.ModelID{}, "", &UserError{Msg: err.Error() + " (assistant.model.aliases, providers.llm.aliases)", Err: err}
		}
		m, err := llm.ParseModelID(resolved)
		if err != nil {
			msg := err.Error()
			if aliases := cfg.ModelAliases(); resolved == id && len(aliases) > 0 {
				if strings.HasSuffix(msg, "?") { // it suggests a provider
					msg += " Or an alias: " + strings.Join(aliases, ", ")
				} else {
					msg += "; or an alias: " + strings.Join(aliases, ", ")
				}
			}
			return llm.ModelID{}, "", &UserError{Msg: msg, Err: err}
		}
		return m, "", nil
	}
	switch {
	case q.providers.HasKey(cfg, "anthropic"):
		return llm.ModelID{Provider: "anthropic", Model: DefaultAnthropicModel},
			fmt.Sprintf("Using anthropic/%s (ANTHROPIC_API_KEY is set); choose another with --model or assistant.model.id.", DefaultAnthropicModel), nil
	case q.providers.HasKey(cfg, "openai"):
		return llm.ModelID{Provider: "openai", Model: DefaultOpenAIModel},
			fmt.Sprintf("Using openai/%s (OPENAI_API_KEY is set); choose another with --model or assistant.model.id.", DefaultOpenAIModel), nil
	}
	return llm.ModelID{Provider: "demo", Model: "echo"}, DemoHint, nil
}

// DemoHint is the chrome note when jp chose the demo model because no
// model is set and no API key was found; a demo model asked for (by
// --model, assistant.model.id or an alias) gets none.
const DemoHint = "Using demo/echo (no model is set and no API key was found). Set assistant.model.id " +
	"(e.g. --model openai/gpt-4o) or ANTHROPIC_API_KEY / OPENAI_API_KEY to use a real model."

// Default models when only an API key is configured.
const (
	DefaultAnthropicModel = "claude-sonnet-4-5"
	DefaultOpenAIModel    = "gpt-4o"
)

func (q *Query) chromeLine(rs *runState, line string) {
	if rs.chrome[line] {
		return
	}
	rs.chrome[line] = true
	q.printer.Write(ports.ChannelChrome, line)
	q.printer.EndBlock(ports.ChannelChrome)
}

// titleFrom makes a new conversation's title from its first message.
func titleFrom(text string) string {
	line := strings.TrimSpace(text)
	if i := strings.IndexAny(line, "\r\n"); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	const max = 60
	if r := []rune(line); len(r) > max {
		line = strings.TrimSpace(string(r[:max-1])) + "…"
	}
	return line
}
