package ports

import (
	"context"

	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/plugin"
)

// Channel is an output channel of the Printer (docs/architecture.md).
type Channel int

// Output channels.
const (
	ChannelUnknown Channel = iota
	// ChannelContent is the assistant's answer (markdown on a TTY).
	ChannelContent
	// ChannelChrome is jp's own status lines (stderr when piped; --quiet
	// silences it).
	ChannelChrome
	// ChannelToolCall announces a tool call.
	ChannelToolCall
	// ChannelToolResult shows a tool's result.
	ChannelToolResult
	// ChannelReasoning is the model's reasoning.
	ChannelReasoning
	// ChannelError is an error line.
	ChannelError
)

// String names the channel as --format json prints it.
func (c Channel) String() string {
	switch c {
	case ChannelContent:
		return "content"
	case ChannelChrome:
		return "chrome"
	case ChannelToolCall:
		return "tool_call"
	case ChannelToolResult:
		return "tool_result"
	case ChannelReasoning:
		return "reasoning"
	case ChannelError:
		return "error"
	}
	return "unknown"
}

// ParseChannel maps a channel name to a Channel.
func ParseChannel(s string) (Channel, bool) {
	for c := ChannelContent; c <= ChannelError; c++ {
		if c.String() == s {
			return c, true
		}
	}
	return ChannelUnknown, false
}

// Styler is a Printer whose look the configuration, read after the
// printer was made, can change (style.markdown.theme, style.code.color).
// A Printer that is not one keeps its look.
type Styler interface {
	SetStyle(s OutputStyle)
}

// OutputStyle is the configured look of rendered output.
type OutputStyle struct {
	// Light picks colours for a light background.
	Light bool
	// NoCodeColor leaves code blocks and inline code uncoloured.
	NoCodeColor bool
}

// Printer is channel-aware output. Write is called with streamed pieces
// (a text delta, a whole chrome line); the printer decides how each
// channel is rendered and where it goes. Methods are safe for concurrent
// use (tool calls of one batch run concurrently).
type Printer interface {
	// Usage shows what a turn cost once it ends: a chrome line on a
	// terminal, a usage record in --format json.
	Usage(r UsageReport)
	// Write prints text on channel ch. Streamed pieces of one block are
	// written one after another; EndBlock closes the block.
	Write(ch Channel, text string)
	// EndBlock ends the current block of ch (for example renders buffered
	// markdown and ends the line).
	EndBlock(ch Channel)
	// Wait shows a spinner with label until stop is called (TTY only; a
	// no-op elsewhere). stop is idempotent.
	Wait(label string) (stop func())
	// Flush writes out anything buffered.
	Flush() error
	// Suspend gets the screen ready for a menu or prompt drawn by someone
	// else: spinners stop drawing, a half-written line is ended and what is
	// on screen becomes final. resume lets spinners draw again.
	Suspend() (resume func())
}

// Option is one choice of a Select question.
type Option struct {
	// Key is the single key that picks it in an inline menu ("y", "Y").
	Key string
	// Label is what the user reads.
	Label string
	// Value is returned when it is chosen (defaults to Key).
	Value string
}

// Answer is what choosing o answers: its Value, else its Key.
func (o Option) Answer() string {
	if o.Value != "" {
		return o.Value
	}
	return o.Key
}

// Question is one thing to ask the user.
type Question struct {
	// Kind is what is asked.
	Kind QuestionKind
	// Message is the question text.
	Message string
	// Options are the choices of a Select (required and non-empty).
	Options []Option
	// Default is a Confirm's default (true = yes), a Text's initial value,
	// or the pre-selected answer of a Select.
	Default any
	// Topic says who asks and about what, for scripted front ends: for
	// example "tool_permission:<tool>", "plugin:<name>", "mcp:<server>".
	Topic string
	// Diff is a unified diff shown before the question: what a write
	// tool's call will change. A terminal colours it and pages it when it
	// is longer than the screen.
	Diff string
	// Optional marks a follow-up the user may skip with Enter (ESC's
	// "why, or what instead?" at a permission prompt): a scripted front
	// end with no step for it skips it (ErrCancelled) instead of failing
	// the run, so scripts written before the question existed still run.
	Optional bool
}

// QuestionKind is the type of answer a Question wants: the plugin
// protocol's prompt kind (docs/plugins.md), one type for both, so that a
// plugin's prompt reaches the front end unconverted.
type QuestionKind = plugin.PromptKind

// Question kinds, the prompt kinds under the names the front ends use.
const (
	QuestionUnknown = plugin.PromptKindUnknown
	QuestionConfirm = plugin.PromptKindConfirm
	QuestionSelect  = plugin.PromptKindSelect
	QuestionText    = plugin.PromptKindText
	QuestionSecret  = plugin.PromptKindSecret
)

// Answer is what the user answered: Bool for confirm, Text for select
// (the chosen option's Value), text and secret.
type Answer struct {
	Bool bool
	Text string
}

// ComposeRequest asks for a message to be composed.
type ComposeRequest struct {
	// Purpose says why: "query", "reply", "queue_reply", "edit_draft",
	// "respond"; scripted front ends match on it.
	Purpose string
	// Initial seeds the composer (the draft's query text).
	Initial string
	// InEditor composes in $VISUAL/$EDITOR instead of the inline editor.
	InEditor bool
	// FallbackInline: when the editor cannot be used (InEditor), compose
	// inline instead of failing (compose_in_editor = true).
	FallbackInline bool
	// NoEditor: the inline editor offers no Ctrl+X escape to the external
	// editor (compose_in_editor = "never").
	NoEditor bool
	// Document is the whole query document for the external editor (query
	// text plus meta section); empty means Initial alone.
	Document string
	// Editor is the editor command from the configuration (editor.cmd);
	// empty means the one the front end found ($JP_EDITOR, $VISUAL,
	// $EDITOR, then editor, nano, vi on $PATH).
	Editor string

	// Session asks for the session composer (docs/session.md): Ctrl-D
	// ends the session (ErrCancelled, with the text), Ctrl-C clears the
	// text and a second Ctrl-C leaves (ErrInterrupted, with the text
	// cleared or typed), Up and Down walk History, "/" completes
	// Commands and "@" completes paths under Root.
	Session bool
	// Header is the line shown above the composer: the conversation,
	// the model, the context meter and its age.
	Header string
	// History are earlier messages, oldest first: Up recalls them.
	History []string
	// Commands are the slash commands offered for completion.
	Commands []SlashCommand
	// Root is the checkout whose paths "@" completes ("" completes none);
	// completion follows the ignore rules of the file tools and never
	// leaves Root.
	Root string
	// Autosave, when set, receives the text while it is typed (after a
	// pause), so that it survives a jp that is killed.
	Autosave func(text string)
}

// SlashCommand is one command of the session composer: Name without its
// slash ("model"), Args its argument synopsis ("[ID]"), Help one line.
type SlashCommand struct {
	Name string
	Args string
	Help string
}

// MessageHistory keeps the messages the user sent, across conversations,
// for the session composer's Up key. It holds what the user typed: an
// implementation never logs it.
type MessageHistory interface {
	// Recent returns the kept messages, oldest first.
	Recent(ctx context.Context) ([]string, error)
	// Add records a sent message.
	Add(ctx context.Context, text string) error
}

// Prompter asks the user questions. Errors: ErrCancelled (ESC, or an
// empty compose the caller treats as "nothing"), ErrInterrupted (Ctrl-C
// in a non-interrupt prompt: the caller escalates), ErrUnavailable (no
// interactive terminal, or a script with no answer for this question).
type Prompter interface {
	// Interactive reports whether questions can be asked at all.
	Interactive() bool
	// Ask asks one question.
	Ask(ctx context.Context, q Question) (Answer, error)
	// Compose returns composed text. For the external editor the returned
	// text is the whole document as saved. With ErrCancelled or
	// ErrInterrupted from the inline composer, the text is what had been
	// typed (possibly ""), for the caller to keep.
	Compose(ctx context.Context, req ComposeRequest) (string, error)
}

// UsageReport is the tokens a turn used, its cost when the model's price
// is known, and the context meter. A turn the provider reported no usage
// for has a zero Usage.
type UsageReport struct {
	Model  string // provider/model
	Usage  llm.Usage
	Cost   float64 // US dollars; set when Priced
	Priced bool
	// Context is the projected size of the next request against the
	// model's window (the context meter).
	Context llm.ContextMeter
}

// RunEvents is implemented by printers that write a run as structured
// records (jp query --format json, docs/scripting.md). The query use case
// reports the run's start, each tool call and result, and its end through
// it; text and reasoning deltas arrive through Printer.Write. A printer
// that does not implement it gets none of these.
type RunEvents interface {
	// RunStart opens the run: the conversation, the model and the checkout.
	RunStart(s RunStart)
	// ToolCall reports a tool call the model made.
	ToolCall(c RunToolCall)
	// ToolResult reports a tool call's whole result.
	ToolResult(r RunToolResult)
	// RunEnd closes the run.
	RunEnd(e RunEnd)
}

// RunStart is the start record of a run.
type RunStart struct {
	Conversation string
	Model        string
	Workspace    string
	Checkout     string
	// Storage is "" for a stored conversation, "tmp" for jp q --tmp (removed
	// when the run ends) and "none" for jp q --no-persist (never written).
	Storage string
}

// RunToolCall is one tool call.
type RunToolCall struct {
	ID        string
	Name      string
	Arguments []byte // JSON
}

// RunToolResult is one tool call's result.
type RunToolResult struct {
	ID      string
	Name    string
	Content string
	IsError bool
}

// RunEnd is the end record of a run.
type RunEnd struct {
	// Outcome is "completed", "stopped", "aborted" or "error".
	Outcome string
	// Text is the assistant's final answer: the text of the last turn after
	// its last tool result.
	Text string
	// StopReason says why the run stopped: "end_turn", "length" (the last
	// answer was cut at the output token limit), "interrupted" or "error".
	StopReason string
	// Usage is the tokens the provider reported for the run; nil when it
	// reported none.
	Usage *RunUsage
	// Error is the error's one line when Outcome is "error".
	Error string
}

// RunUsage counts tokens.
type RunUsage struct {
	InputTokens  int
	OutputTokens int
}

// TypeAhead is a Printer the user can type a reply on while a turn
// streams or tools run (docs/interrupts.md, "Type-ahead"): what is typed
// shows in a status line the printer keeps below the output, Enter hands
// the line to submit (called on another goroutine) and Esc clears it.
// A Printer that is not one has no type-ahead.
type TypeAhead interface {
	// StartTypeAhead starts reading keys; ok is false when there is no
	// terminal to read them from.
	StartTypeAhead(submit func(text string)) (h TypeAheadHandle, ok bool)
}

// TypeAheadHandle is one StartTypeAhead.
type TypeAheadHandle interface {
	// Taken says the submitted lines were taken as the queued reply:
	// the status line stops showing them.
	Taken()
	// Stop ends key reading, clears the status line and returns the
	// text typed and not submitted. Idempotent.
	Stop() (unsent string)
}

// TurnEcho is a Printer that echoes, on a terminal, the user's message
// as a turn starts (dimmed, quoted), after a rule between turns. A Printer
// that is not one echoes nothing.
type TurnEcho interface {
	EchoMessage(text string, rule bool)
}
