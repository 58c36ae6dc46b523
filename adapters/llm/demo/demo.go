// Package demo implements ports.Provider with jp's built-in offline model:
// deterministic, no network. Without a script it echoes the user word by
// word; with one it plays scripted responses (text, reasoning, tool calls,
// usage, errors, pauses). The script format and the rule that picks a
// response are public: see docs/demo-model.md.
package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// Name is the provider name in errors and model IDs ("demo/echo").
const Name = "demo"

// EchoChrome is the chrome line the echo model emits before its answer.
// How to pick a real model is said by whoever chose the demo model by
// default (the app's chrome note), not here: one who asked for it knows.
const EchoChrome = "demo model: offline echo."

// Options configure a Provider.
type Options struct {
	// ScriptPath is providers.demo.script; "" means echo only.
	ScriptPath string
	// Sleep waits d or until ctx is done (then returns ctx.Err()). nil
	// means a real timer; tests inject a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Provider is the demo model. It is safe for concurrent use, though the
// response index is only meaningful for calls made one after another.
type Provider struct {
	script *script // nil: echo
	sleep  func(context.Context, time.Duration) error

	mu      sync.Mutex
	skipped int // calls served that the engine's step count does not see
}

var _ ports.Provider = (*Provider)(nil)

// New returns a demo Provider, reading and validating the script if one
// is configured. A script error is a *ScriptError naming the file and the
// line:column.
func New(opts Options) (*Provider, error) {
	p := &Provider{sleep: opts.Sleep}
	if p.sleep == nil {
		p.sleep = sleep
	}
	if opts.ScriptPath != "" {
		data, err := os.ReadFile(opts.ScriptPath)
		if err != nil {
			return nil, fmt.Errorf("read demo script (providers.demo.script): %w", err)
		}
		s, err := parseScript(opts.ScriptPath, data)
		if err != nil {
			return nil, err
		}
		p.script = s
	}
	return p, nil
}

// Stream plays response number req.PriorCalls + skipped, and echoes past
// the script's end or without a script (docs/demo-model.md, "Which
// response plays").
//
// The engine's PriorCalls counts the steps stored in the conversation plus
// this run's calls that failed before producing output. skipped adds the
// calls the engine cannot see as used: those that finished normally with
// no text, reasoning or tool call (nothing stored), and continuations of a
// dropped response (the history ends with an assistant message, so their
// output joins the stored partial step). Together, every call of a run
// that used up its response moves the script on by exactly one.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
	p.mu.Lock()
	index := req.PriorCalls + p.skipped
	p.mu.Unlock()

	produced := false
	tracked := func(e llm.Event) error {
		switch e.Kind {
		case llm.EventTextDelta, llm.EventReasoningDelta, llm.EventToolCall:
			produced = true
		}
		return emit(e)
	}
	err := p.play(ctx, index, req, tracked)
	if p.uncounted(req, err, produced) {
		p.mu.Lock()
		p.skipped++
		p.mu.Unlock()
	}
	return err
}

// uncounted reports whether a call used up its response without the
// engine counting it: not as a new stored step (that needs output and a
// history that does not end with an assistant message), and not as a
// failure before output (the engine counts those itself). A call that was
// cancelled before any output did not use its response.
func (p *Provider) uncounted(req llm.Request, err error, produced bool) bool {
	var provErr *llm.Error
	isProvErr := errors.As(err, &provErr)
	continuation := len(req.Messages) > 0 && req.Messages[len(req.Messages)-1].Role == llm.RoleAssistant
	switch {
	case produced:
		return continuation
	case isProvErr:
		return false // counted by the engine as a failed call
	default:
		return err == nil // an empty response; a cancelled call is replayed
	}
}

// play emits response index, or the echo.
func (p *Provider) play(ctx context.Context, index int, req llm.Request, emit func(llm.Event) error) error {
	if req.Title {
		// docs/demo-model.md, "Titles": the first words of the first
		// user message, each capitalised.
		return answerOnly(ctx, req, TitleText(req.Messages), emit)
	}
	if req.Summary {
		return answerOnly(ctx, req, SummaryText(req.Messages), emit)
	}
	if p.script == nil {
		return echo(ctx, req, EchoChrome, emit)
	}
	n := len(p.script.responses)
	if index < 0 || index >= n {
		chrome := fmt.Sprintf("demo model: script %s has %d responses and this is call %d; echoing.", p.script.path, n, index+1)
		return echo(ctx, req, chrome, emit)
	}
	chrome := fmt.Sprintf("demo model: playing response %d of %d from %s.", index+1, n, p.script.path)
	if err := emit(llm.Event{Kind: llm.EventChrome, Text: chrome}); err != nil {
		return err
	}
	calls := 0
	for _, ev := range p.script.responses[index] {
		for range ev.repeat {
			if ev.sleep > 0 {
				if err := p.sleep(ctx, ev.sleep); err != nil {
					return err
				}
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			var out llm.Event
			switch ev.kind {
			case eventPause:
				continue
			case eventText:
				out = llm.Event{Kind: llm.EventTextDelta, Text: ev.text}
			case eventReasoning:
				out = llm.Event{Kind: llm.EventReasoningDelta, Text: ev.text}
			case eventUsage:
				out = llm.Event{Kind: llm.EventUsage, Usage: ev.usage}
			case eventToolCall:
				id := fmt.Sprintf("call_%d_%d", index, calls)
				calls++
				out = llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{ID: id, Name: ev.name, Arguments: ev.args}}
			case eventError:
				return &llm.Error{Kind: ev.errKind, Provider: Name, Message: ev.text}
			}
			if err := emit(out); err != nil {
				return err
			}
		}
	}
	return emit(llm.Event{Kind: llm.EventDone})
}

// answerOnly emits answer as one text delta, with the usage of one token
// per word, and plays no script response.
func answerOnly(ctx context.Context, req llm.Request, answer string, emit func(llm.Event) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := emit(llm.Event{Kind: llm.EventTextDelta, Text: answer}); err != nil {
		return err
	}
	usage := llm.Usage{InputTokens: inputWords(req), OutputTokens: len(strings.Fields(answer))}
	if err := emit(llm.Event{Kind: llm.EventUsage, Usage: usage}); err != nil {
		return err
	}
	return emit(llm.Event{Kind: llm.EventDone, Stop: llm.StopEnd})
}

// SummaryText is the demo model's compaction summary (docs/demo-model.md,
// "Summaries"): the first line of each user message of the summarized
// turns (the last message, the request for the summary, left out), each
// cut at 60 characters, and how many tool calls they made.
func SummaryText(msgs []llm.Message) string {
	var asked []string
	calls := 0
	for i, m := range msgs {
		if m.Role == llm.RoleAssistant {
			calls += len(m.ToolCalls)
		}
		if m.Role != llm.RoleUser || i == len(msgs)-1 {
			continue
		}
		line, _, _ := strings.Cut(strings.TrimSpace(m.Text), "\n")
		if r := []rune(line); len(r) > 60 {
			line = string(r[:60]) + "…"
		}
		asked = append(asked, strconv.Quote(line))
	}
	if len(asked) == 0 {
		return "Summary (demo model): nothing was asked."
	}
	return fmt.Sprintf("Summary (demo model): the user asked %s; %d tool call(s) were made.", strings.Join(asked, ", "), calls)
}

// TitleWords is how many words of the first message the demo model's
// title keeps.
const TitleWords = 5

// TitleText is the demo model's title for a conversation: the first
// TitleWords words of the first line of the first user message, each with
// its first letter in upper case ("Untitled" when there are none).
func TitleText(msgs []llm.Message) string {
	for _, m := range msgs {
		if m.Role != llm.RoleUser {
			continue
		}
		line, _, _ := strings.Cut(strings.TrimSpace(m.Text), "\n")
		words := strings.Fields(line)
		if len(words) == 0 {
			break
		}
		if len(words) > TitleWords {
			words = words[:TitleWords]
		}
		for i, w := range words {
			r := []rune(w)
			r[0] = unicode.ToUpper(r[0])
			words[i] = string(r)
		}
		return strings.Join(words, " ")
	}
	return "Untitled"
}

// echo emits chrome, then the echo text word by word (with a schema, a
// JSON value matching it: see SchemaEcho), then the usage (one token per
// word) and EventDone.
func echo(ctx context.Context, req llm.Request, chrome string, emit func(llm.Event) error) error {
	if err := emit(llm.Event{Kind: llm.EventChrome, Text: chrome}); err != nil {
		return err
	}
	answer := EchoText(req.Messages)
	if len(req.Schema) > 0 {
		answer = SchemaEcho(req.Schema, answer)
	}
	words := Words(answer)
	for _, w := range words {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := emit(llm.Event{Kind: llm.EventTextDelta, Text: w}); err != nil {
			return err
		}
	}
	usage := llm.Usage{InputTokens: inputWords(req), OutputTokens: len(words)}
	if err := emit(llm.Event{Kind: llm.EventUsage, Usage: usage}); err != nil {
		return err
	}
	return emit(llm.Event{Kind: llm.EventDone, Stop: llm.StopEnd})
}

// inputWords counts the words of a request (system prompt, messages and
// text attachments), the echo model's input tokens; an image counts one.
func inputWords(req llm.Request) int {
	n := countWords(req.System)
	for _, m := range req.Messages {
		n += countWords(m.Text)
		for _, a := range m.Attachments {
			if a.IsImage() {
				n++
				continue
			}
			n += countWords(a.Text)
		}
	}
	return n
}

// countWords is len(strings.Fields(s)) without making the slice: a long
// history or a 20 MB message is counted without a copy of its words.
func countWords(s string) int {
	n := 0
	for w := range strings.FieldsSeq(s) {
		_ = w
		n++
	}
	return n
}

// EchoText is the echo model's answer to a history: "Done." right after
// tool results, otherwise "You said: " and the last user message ("You
// said nothing." when there is none or it is blank).
func EchoText(msgs []llm.Message) string {
	if n := len(msgs); n > 0 && msgs[n-1].Role == llm.RoleTool {
		return "Done."
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			if strings.TrimSpace(msgs[i].Text) == "" {
				break
			}
			said := "You said: " + msgs[i].Text
			if n := len(msgs[i].Attachments); n > 0 {
				said += fmt.Sprintf(" (with %d attachment%s: %s)", n, plural(n), attachmentNames(msgs[i].Attachments))
			}
			return said
		}
	}
	return "You said nothing."
}

// Words splits s into words, each keeping the whitespace that follows
// it, so that the pieces concatenate back to s.
func Words(s string) []string {
	var out []string
	start := 0
	inSpace := false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if inSpace && !space && i > start {
			out = append(out, s[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func attachmentNames(as []llm.Attachment) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// SchemaEcho is the echo model's structured answer: a JSON value of the
// schema's shape, strings holding text, numbers 0, booleans false, arrays
// one item; object keys come out sorted.
func SchemaEcho(schema []byte, text string) string {
	var s map[string]any
	if json.Unmarshal(schema, &s) != nil {
		return "{}"
	}
	b, err := json.Marshal(instance(s, text, 0))
	if err != nil {
		return "{}"
	}
	return string(b)
}

func instance(s map[string]any, text string, depth int) any {
	if depth > 8 {
		return nil
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := s["type"].(string)
	if types, ok := s["type"].([]any); ok && len(types) > 0 {
		typ, _ = types[0].(string)
	}
	switch typ {
	case "object", "":
		props, _ := s["properties"].(map[string]any)
		if typ == "" && props == nil {
			return text
		}
		out := map[string]any{}
		for name, p := range props {
			ps, _ := p.(map[string]any)
			out[name] = instance(ps, text, depth+1)
		}
		return out
	case "array":
		items, _ := s["items"].(map[string]any)
		return []any{instance(items, text, depth+1)}
	case "integer", "number":
		return 0
	case "boolean":
		return false
	case "null":
		return nil
	}
	return text
}
