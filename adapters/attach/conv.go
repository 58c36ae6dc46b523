package attach

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// A jp:// attachment is another conversation of the workspace, read (never
// changed) as the Rust jp renders it: jp://jp-cID[?select=CONTENT[:RANGE]]
// [&raw], or the shorthand jp-cID[?CONTENT[:RANGE]]. CONTENT is a, u, r, t
// (assistant, user, reasoning, tool calls; joined by ",") or * for all;
// RANGE picks turns, 1-based, negative from the end: N, -N (the last N),
// N..M, N.., ..M, ... The default is a:-1, the last assistant answer.

// convSelector is a parsed CONTENT[:RANGE].
type convSelector struct {
	assistant, user, reasoning, tools bool
	start, end                        *int64 // nil: open
}

// convSpec is a parsed jp:// spec.
type convSpec struct {
	id  conversation.ID
	sel convSelector
	raw bool
}

// parseConvSpec reads a jp:// URL or its jp-cID shorthand.
func parseConvSpec(spec string) (convSpec, error) {
	bad := func(format string, a ...any) (convSpec, error) {
		return convSpec{}, fmt.Errorf("%s: %s", safetext.String(spec), fmt.Sprintf(format, a...))
	}
	rest, isURL := strings.CutPrefix(spec, "jp://")
	id, query, _ := strings.Cut(rest, "?")
	id = strings.TrimSuffix(id, "/")
	if !isURL && query != "" && !knownConvParam(query) {
		query = "select=" + query
	}
	digits, ok := strings.CutPrefix(id, "jp-c")
	if !ok {
		if strings.HasPrefix(id, "jp-") {
			return bad("unsupported jp:// resource %q: only conversations (jp-c<ID>) are supported", id)
		}
		digits = id
	}
	cid, err := conversation.ParseID(digits)
	if err != nil {
		return bad("give a conversation, like jp://jp-c17013123456 (jp conversation ls lists their IDs)")
	}
	out := convSpec{id: cid}
	q, err := url.ParseQuery(query)
	if err != nil {
		return bad("%v", err)
	}
	selText := ""
	for k, vs := range q {
		switch k {
		case "select":
			selText = vs[len(vs)-1]
		case "raw":
			switch vs[len(vs)-1] {
			case "", "events":
				out.raw = true
			case "all":
				return bad("raw=all (events with the base configuration and metadata) is not supported by this jp; use raw for the events")
			default:
				return bad("invalid raw mode %q (expected events)", vs[len(vs)-1])
			}
		default:
			return bad("unknown query parameter %q: a jp:// attachment takes select and raw", k)
		}
	}
	out.sel, err = parseConvSelector(selText)
	if err != nil {
		return bad("invalid selector %q: %v", selText, err)
	}
	return out, nil
}

func knownConvParam(q string) bool {
	for _, name := range []string{"select", "raw"} {
		if q == name || strings.HasPrefix(q, name+"=") || strings.HasPrefix(q, name+"&") {
			return true
		}
	}
	return false
}

func parseConvSelector(s string) (convSelector, error) {
	last := int64(-1)
	sel := convSelector{assistant: true, start: &last}
	if s == "" {
		return sel, nil
	}
	content, rng, hasRange := strings.Cut(s, ":")
	if !hasRange && strings.Trim(s, "0123456789-.") == "" {
		content, rng, hasRange = "", s, true
	}
	if content != "" {
		sel.assistant = false
		for _, part := range strings.Split(content, ",") {
			switch strings.TrimSpace(part) {
			case "a", "assistant":
				sel.assistant = true
			case "u", "user":
				sel.user = true
			case "r", "reasoning":
				sel.reasoning = true
			case "t", "tools":
				sel.tools = true
			case "*", "all":
				sel.assistant, sel.user, sel.reasoning, sel.tools = true, true, true, true
			case "":
				return sel, errors.New("empty content flag")
			default:
				return sel, fmt.Errorf("unknown content flag %q (a, u, r, t or *)", part)
			}
		}
	}
	if !hasRange {
		return sel, nil
	}
	if rng == "" {
		return sel, errors.New("empty range")
	}
	bound := func(b string) (*int64, error) {
		if b == "" {
			return nil, nil
		}
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("invalid turn %q", b)
		}
		if n == 0 {
			return nil, errors.New("turns are 1-based: 0 is not a turn")
		}
		return &n, nil
	}
	var err error
	if l, r, ok := strings.Cut(rng, ".."); ok {
		if sel.start, err = bound(l); err != nil {
			return sel, err
		}
		sel.end, err = bound(r)
		return sel, err
	}
	n, err := bound(rng)
	if err != nil {
		return sel, err
	}
	sel.start, sel.end = n, nil
	if *n > 0 {
		sel.end = n
	}
	return sel, nil
}

// String is the selector as the Rust jp writes it in a source: "a:-1".
func (s convSelector) String() string {
	var parts []string
	if s.assistant && s.user && s.reasoning && s.tools {
		parts = []string{"*"}
	} else {
		for _, p := range []struct {
			on   bool
			name string
		}{{s.assistant, "a"}, {s.user, "u"}, {s.reasoning, "r"}, {s.tools, "t"}} {
			if p.on {
				parts = append(parts, p.name)
			}
		}
	}
	num := func(p *int64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatInt(*p, 10)
	}
	var rng string
	switch {
	case s.start == nil && s.end == nil:
		rng = ".."
	case s.end == nil && *s.start < 0:
		rng = num(s.start)
	case s.end == nil:
		rng = num(s.start) + ".."
	case s.start == nil:
		rng = ".." + num(s.end)
	case *s.start == *s.end:
		rng = num(s.start)
	default:
		rng = num(s.start) + ".." + num(s.end)
	}
	return strings.Join(parts, ",") + ":" + rng
}

// resolve is the 0-based half-open range of turns selected out of total;
// ok is false when none is.
func (s convSelector) resolve(total int) (from, to int, ok bool) {
	if total == 0 {
		return 0, 0, false
	}
	t := int64(total)
	norm := func(p *int64, def int64) int64 {
		n := def
		if p != nil {
			n = *p
		}
		if n > 0 {
			return n - 1
		}
		return t + n
	}
	start := max(norm(s.start, 1), 0)
	end := min(norm(s.end, t), t-1)
	if start > end {
		return 0, 0, false
	}
	return int(start), int(end) + 1, true
}

// conversationAttachment reads a jp:// spec through req.Conversation. A
// conversation that is gone is an error, or, for a configured attachment
// (Confine), a note and nothing attached, as in the Rust jp.
func (r reader) conversationAttachment(ctx context.Context, spec string) ([]conversation.Attachment, error) {
	cs, err := parseConvSpec(spec)
	if err != nil {
		return nil, err
	}
	if r.req.Conversation == nil {
		return nil, fmt.Errorf("%s: conversations cannot be attached here", safetext.String(spec))
	}
	events, err := r.req.Conversation(ctx, cs.id)
	if errors.Is(err, ports.ErrNotFound) {
		if r.req.Confine {
			r.note(fmt.Sprintf("left out %s: conversation %s is not in this workspace (removed or archived)", safetext.String(spec), cs.id))
			return nil, nil
		}
		return nil, fmt.Errorf("%s: conversation %s is not in this workspace (jp conversation ls lists them)", safetext.String(spec), cs.id)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", safetext.String(spec), err)
	}
	turns := splitTurns(events)
	if cs.raw {
		var sel []conversation.Event
		if from, to, ok := cs.sel.resolve(len(turns)); ok {
			for _, turn := range turns[from:to] {
				for _, e := range turn {
					if cs.sel.matches(e) {
						sel = append(sel, e)
					}
				}
			}
		}
		body, err := rawEvents(sel)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", safetext.String(spec), err)
		}
		att, err := content(fmt.Sprintf("jp:jp-c%s (json, %s)", cs.id, cs.sel), body)
		return []conversation.Attachment{att}, err
	}
	att, err := content(fmt.Sprintf("jp:jp-c%s (%s)", cs.id, cs.sel), []byte(renderTurns(turns, cs.sel)))
	if err != nil {
		return nil, err
	}
	return []conversation.Attachment{att}, nil
}

// rawEvents is {"events": [...]}, indented, each event as stored.
func rawEvents(evs []conversation.Event) ([]byte, error) {
	list := make([]json.RawMessage, 0, len(evs))
	for _, e := range evs {
		b := e.Raw
		if b == nil {
			var err error
			if b, err = json.Marshal(eventcodec.JSON(e)); err != nil {
				return nil, err
			}
		}
		list = append(list, b)
	}
	raw, err := json.Marshal(map[string]any{"events": list})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// matches reports whether the raw form includes e: turn_start always.
func (s convSelector) matches(e conversation.Event) bool {
	switch e.Type {
	case conversation.EventTypeTurnStart:
		return true
	case conversation.EventTypeChatRequest:
		return s.user
	case conversation.EventTypeChatResponse:
		if e.Reasoning != "" {
			return s.reasoning
		}
		return s.assistant
	case conversation.EventTypeToolCallRequest, conversation.EventTypeToolCallResponse:
		return s.tools
	}
	return false
}

// splitTurns groups events by turn: each turn_start begins one; events
// before the first belong to a turn of their own.
func splitTurns(events []conversation.Event) [][]conversation.Event {
	var turns [][]conversation.Event
	for _, e := range events {
		if len(turns) == 0 && e.Type == conversation.EventTypeForeign {
			continue // a config_delta before the first turn is no turn
		}
		if e.Type == conversation.EventTypeTurnStart || len(turns) == 0 {
			turns = append(turns, nil)
		}
		turns[len(turns)-1] = append(turns[len(turns)-1], e)
	}
	return turns
}

// renderTurns renders the selected turns as the Rust jp does: "## Turn N"
// and a "### User", "### Assistant", "### Reasoning" or "### Tool: NAME"
// section for each selected event, tool calls paired with their results.
func renderTurns(turns [][]conversation.Event, sel convSelector) string {
	from, to, ok := sel.resolve(len(turns))
	if !ok {
		return ""
	}
	var out strings.Builder
	for i, turn := range turns[from:to] {
		var body strings.Builder
		var pending []conversation.Event
		for _, e := range turn {
			switch {
			case e.Type == conversation.EventTypeChatRequest && sel.user:
				section(&body, "User", e.Content)
			case e.Type == conversation.EventTypeChatResponse && e.Reasoning == "" && sel.assistant:
				section(&body, "Assistant", e.Message)
			case e.Type == conversation.EventTypeChatResponse && e.Reasoning != "" && sel.reasoning:
				section(&body, "Reasoning", e.Reasoning)
			case e.Type == conversation.EventTypeToolCallRequest && sel.tools:
				pending = append(pending, e)
			case e.Type == conversation.EventTypeToolCallResponse && sel.tools:
				found := false
				for j, req := range pending {
					if req.CallID == e.CallID {
						toolPair(&body, req, &e)
						pending = append(pending[:j], pending[j+1:]...)
						found = true
						break
					}
				}
				if !found {
					fmt.Fprintf(&body, "### Tool result (orphan: %s)\n\n", e.CallID)
					fenced(&body, "", e.Content)
				}
			}
		}
		for _, req := range pending {
			toolPair(&body, req, nil)
		}
		if body.Len() == 0 {
			continue
		}
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		fmt.Fprintf(&out, "## Turn %d\n\n", from+i+1)
		out.WriteString(body.String())
	}
	return out.String()
}

func section(b *strings.Builder, title, text string) {
	fmt.Fprintf(b, "### %s\n\n%s\n\n", title, strings.TrimRight(text, " \t\r\n"))
}

func fenced(b *strings.Builder, lang, text string) {
	text = strings.TrimRight(text, " \t\r\n")
	run, longest := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
			continue
		}
		run = 0
	}
	fence := strings.Repeat("`", max(3, longest+1))
	fmt.Fprintf(b, "%s%s\n%s\n%s\n\n", fence, lang, text, fence)
}

func toolPair(b *strings.Builder, req conversation.Event, res *conversation.Event) {
	fmt.Fprintf(b, "### Tool: %s\n\n", req.Name)
	if len(req.Arguments) > 0 && string(req.Arguments) != "{}" && string(req.Arguments) != "null" {
		var buf bytes.Buffer
		if json.Indent(&buf, req.Arguments, "", "  ") != nil {
			buf.Reset()
			buf.Write(req.Arguments)
		}
		b.WriteString("**Arguments**\n")
		fenced(b, "json", buf.String())
	}
	if res == nil {
		b.WriteString("_(no response)_\n\n")
		return
	}
	if res.IsError {
		b.WriteString("**Error**\n")
	} else {
		b.WriteString("**Result**\n")
	}
	fenced(b, "", res.Content)
}
