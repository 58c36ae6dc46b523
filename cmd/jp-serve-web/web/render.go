package web

import (
	"bytes"
	"encoding/json"
	"html/template"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/domain/toolview"
	"github.com/jpcli/jp/internal/difflines"
)

// eventView is one stored conversation event as the "event" fragment
// renders it.
type eventView struct {
	Kind     string // turn, user, assistant, reasoning, tool_call, tool_result, turn_end, inquiry, answer, note, foreign
	ID       string
	Time     time.Time
	Root     string
	Author   string // "" for the user at a terminal
	Via      string // the plugin that sent a chat_request
	Text     string
	HTML     template.HTML
	Name     string
	CallID   string
	Args     string
	Line     string     // a tool call as the terminal shows it (toolview.Line)
	Diff     []diffLine // the change a write tool's call made
	Fold     fold       // a tool result, folded after foldLines lines
	IsError  bool
	Outcome  string
	Question string
}

// viewOf maps a stored event to its view.
func viewOf(ev conversation.Event) eventView {
	v := eventView{ID: ev.ID, Time: ev.Timestamp}
	switch ev.Type {
	case conversation.EventTypeTurnStart:
		v.Kind, v.Root = "turn", ev.Root
	case conversation.EventTypeChatRequest:
		v.Kind, v.Text = "user", ev.Content
		switch {
		case ev.Author == conversation.AuthorUser || ev.Author == "":
		case strings.HasPrefix(ev.Author, "plugin:"):
			v.Via = strings.TrimPrefix(ev.Author, "plugin:")
		default:
			v.Author = ev.Author
		}
	case conversation.EventTypeChatResponse:
		if ev.Message == "" && ev.Reasoning != "" {
			v.Kind, v.Text = "reasoning", ev.Reasoning
		} else {
			v.Kind, v.Text, v.HTML = "assistant", ev.Message, Markdown(ev.Message)
		}
	case conversation.EventTypeToolCallRequest:
		diff := historyDiff(ev.Name, ev.Arguments)
		v.Kind, v.Name, v.CallID, v.Args = "tool_call", ev.Name, ev.CallID, prettyJSON(ev.Arguments)
		v.Line, v.Diff = toolview.Line(ev.Name, ev.Arguments, diff, false), diffLines(diff)
	case conversation.EventTypeToolCallResponse:
		v.Kind, v.CallID, v.Text, v.IsError = "tool_result", ev.CallID, ev.Content, ev.IsError
		v.Fold = foldText(ev.Content)
	case conversation.EventTypeInquiryRequest:
		v.Kind, v.Question = "inquiry", ev.Question
	case conversation.EventTypeInquiryResponse:
		v.Kind, v.Text = "answer", prettyJSON(ev.Answer)
	case conversation.EventTypeTurnEnd:
		v.Kind, v.Outcome = "turn_end", string(ev.Outcome)
	case conversation.EventTypeForeign:
		// Kept for jp, not for reading: a --cfg that stuck to the
		// conversation is a line; another version's events are skipped.
		v.Kind = "foreign"
		if ev.Kind == "config_delta" {
			v.Kind, v.Text = "note", "The conversation's configuration changed (jp q --cfg)."
		}
	default:
		v.Kind = "unknown"
	}
	return v
}

// renderEvent renders a stored event with the page's own fragment, so a
// streamed event looks exactly like one loaded with the page.
func (s *Server) renderEvent(ev conversation.Event) (template.HTML, error) {
	return s.fragment("event", viewOf(ev))
}

// foldLines is how many lines of a tool result show before "Show all".
const foldLines = 20

// fold is a text cut after foldLines lines: Head shows, Rest (Hidden
// lines) is behind a "Show all" control. When the text holds a unified
// diff (a write tool's result), HeadDiff and RestDiff are its lines
// classed for colour instead.
type fold struct {
	Head, Rest         string
	HeadDiff, RestDiff []diffLine
	Hidden             int
}

// foldText cuts s after foldLines lines.
func foldText(s string) fold {
	lines := strings.SplitAfter(strings.TrimRight(s, "\n"), "\n")
	f := fold{Head: s}
	if len(lines) > foldLines {
		f = fold{Head: strings.TrimSuffix(strings.Join(lines[:foldLines], ""), "\n"), Rest: strings.Join(lines[foldLines:], ""), Hidden: len(lines) - foldLines}
	}
	if holdsDiff(lines) {
		f.HeadDiff, f.RestDiff = resultLines(f.Head), resultLines(f.Rest)
	}
	return f
}

// holdsDiff reports whether lines hold a unified diff: a "--- " line,
// then a "+++ " line, then a hunk header.
func holdsDiff(lines []string) bool {
	for i := 0; i+2 < len(lines); i++ {
		if strings.HasPrefix(lines[i], "--- ") && strings.HasPrefix(lines[i+1], "+++ ") && strings.HasPrefix(lines[i+2], "@@") {
			return true
		}
	}
	return false
}

// resultLines classes the lines of a result that holds a diff; "" has none.
func resultLines(s string) []diffLine {
	if s == "" {
		return nil
	}
	return diffLines(s)
}

// approvalView is a tool approval question.
type approvalView struct {
	CallID string
	Name   string
	Line   string // the call as the terminal shows it (toolview.Line)
	Args   string
	// Diff is the unified diff a write tool's call will apply, a line at
	// a time with its class (add, del, hunk, head or ctx).
	Diff []diffLine
}

// diffLine is one line of an approval's diff.
type diffLine struct {
	Class string
	Text  string
}

func (s *Server) renderApproval(a plugin.ApprovalData) (template.HTML, error) {
	return s.fragment("approval", approvalView{CallID: a.CallID, Name: a.Name,
		Line: toolview.Line(a.Name, a.Arguments, a.Diff, false), Args: prettyJSON(a.Arguments), Diff: diffLines(a.Diff)})
}

// diffClasses are the CSS classes of the kinds of diff line.
var diffClasses = [...]string{
	difflines.Context: "ctx",
	difflines.Head:    "head",
	difflines.Add:     "add",
	difflines.Del:     "del",
	difflines.Hunk:    "hunk",
}

// diffLines classifies the lines of a unified diff for colouring.
func diffLines(diff string) []diffLine {
	if diff == "" {
		return nil
	}
	var out []diffLine
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		out = append(out, diffLine{Class: diffClasses[difflines.Classify(l)], Text: l})
	}
	return out
}

func (s *Server) fragment(name string, data any) (template.HTML, error) {
	var b bytes.Buffer
	if err := s.fragments.ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}

// prettyJSON indents a JSON value for reading; what is not JSON is shown
// as is.
func prettyJSON(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return strings.TrimSpace(b.String())
}
