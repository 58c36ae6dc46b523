package headless

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/jpcli/jp/ports"
)

// stepKind is what a script step does.
type stepKind int

const (
	// stepConfirm, stepSelect, stepText, stepSecret answer a question of
	// that kind.
	stepConfirm stepKind = iota + 1
	stepSelect
	stepText
	stepSecret
	// stepPermission answers the tool permission prompt by option key.
	stepPermission
	// stepCompose answers a compose request.
	stepCompose
	// stepCancel, stepInterrupt, stepUnavailable end the next question or
	// compose request with ErrCancelled, ErrInterrupted, ErrUnavailable.
	stepCancel
	stepInterrupt
	stepUnavailable
	// stepTrigger presses Ctrl-C when the run reaches a point: "after N
	// deltas [of turn T]", "during tools [of turn T]", "at countdown".
	stepTrigger
)

// keyword is the script word for each step kind.
var keywords = map[stepKind]string{
	stepConfirm:     "confirm",
	stepSelect:      "select",
	stepText:        "text",
	stepSecret:      "secret",
	stepPermission:  "permission",
	stepCompose:     "compose",
	stepCancel:      "cancel",
	stepInterrupt:   "interrupt",
	stepUnavailable: "unavailable",
}

// composeMode is how a compose step answers.
type composeMode int

const (
	composeText  composeMode = iota // submit the step's text
	composeKeep                     // submit the initial text unchanged
	composeEmpty                    // submit an emptied buffer
)

// target is what kind of request a step expects.
type target int

const (
	targetAny target = iota
	targetConfirm
	targetSelect
	targetText
	targetSecret
	targetCompose
	// targetTrigger is a scripted Ctrl-C: it answers no question.
	targetTrigger
)

var targetNames = map[string]target{
	"confirm": targetConfirm,
	"select":  targetSelect,
	"text":    targetText,
	"secret":  targetSecret,
	"compose": targetCompose,
}

// String names the target as a script spells it.
func (t target) String() string {
	for name, v := range targetNames {
		if v == t {
			return name
		}
	}
	return "any"
}

// step is one parsed line (or heredoc) of a script.
type step struct {
	kind stepKind
	line int
	// target is the request kind the step expects.
	target target
	// match is a path.Match pattern on the question's Topic or the compose
	// request's Purpose; "" matches anything.
	match string
	// value is the answer: "yes"/"no" normalised to a bool for confirm,
	// the option for select, the key for permission, the text otherwise.
	value   string
	yes     bool
	compose composeMode
	// trigger fields: the phase ("streaming", "tool_call", "countdown"),
	// the 1-based turn (0: any), and for streaming the delta count.
	phase  string
	turn   int
	deltas int
}

// request is a question or a compose request, as a step sees it.
type request struct {
	target target
	// about is the Topic of a question or the Purpose of a compose request.
	about string
	q     *ports.Question
	c     *ports.ComposeRequest
}

// matches reports whether s may answer r.
func (s step) matches(r request) bool {
	if s.kind == stepTrigger {
		return false
	}
	if s.target != targetAny && s.target != r.target {
		return false
	}
	if s.match == "" {
		return true
	}
	ok, err := path.Match(s.match, r.about)
	return err == nil && ok
}

// option finds the option a select or permission step chooses: by key
// (case-sensitive) for permission; by value, key or label for select.
func (s step) option(opts []ports.Option) (ports.Option, bool) {
	fields := []func(ports.Option) string{ports.Option.Answer, func(o ports.Option) string { return o.Key }, func(o ports.Option) string { return o.Label }}
	if s.kind == stepPermission {
		fields = fields[1:2]
	}
	for _, field := range fields {
		for _, o := range opts {
			if field(o) == s.value {
				return o, true
			}
		}
	}
	return ports.Option{}, false
}

// String describes the step as the script spells it; a secret's value is
// never shown.
func (s step) String() string {
	if s.kind == stepTrigger {
		return s.triggerString()
	}
	var b strings.Builder
	b.WriteString(keywords[s.kind])
	switch s.kind {
	case stepPermission:
		fmt.Fprintf(&b, " %s %s", strings.TrimPrefix(s.match, permissionTopicPrefix), s.value)
		return b.String()
	case stepCancel, stepInterrupt, stepUnavailable:
		if s.target != targetAny {
			b.WriteString(" " + s.target.String())
		}
	}
	if s.match != "" {
		b.WriteString(" @" + s.match)
	}
	switch s.kind {
	case stepConfirm:
		if s.yes {
			b.WriteString(" yes")
		} else {
			b.WriteString(" no")
		}
	case stepSecret:
		b.WriteString(" (value hidden)")
	case stepSelect, stepText:
		b.WriteString(" " + quoteIfNeeded(s.value))
	case stepCompose:
		switch s.compose {
		case composeKeep:
			b.WriteString(" keep")
		case composeEmpty:
			b.WriteString(" empty")
		default:
			b.WriteString(" " + quoteIfNeeded(shorten(s.value)))
		}
	}
	return b.String()
}

// describe says what a request is, for error messages. It never includes
// an answer, and never the text a compose request is seeded with.
func (r request) describe() string {
	if r.c != nil {
		return fmt.Sprintf("compose @%s", r.about)
	}
	q := r.q
	var b strings.Builder
	b.WriteString(q.Kind.String())
	if q.Topic != "" {
		b.WriteString(" @" + q.Topic)
	}
	fmt.Fprintf(&b, " %q", shorten(q.Message))
	if len(q.Options) > 0 {
		b.WriteString(" [")
		for i, o := range q.Options {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(optionName(o))
		}
		b.WriteString("]")
	}
	return b.String()
}

// suggestion is a step that would answer r, for "add a step" hints.
func (r request) suggestion() string {
	if r.c != nil {
		return fmt.Sprintf("compose @%s TEXT", r.about)
	}
	if tool, ok := strings.CutPrefix(r.q.Topic, permissionTopicPrefix); ok {
		return fmt.Sprintf("permission %s y", tool)
	}
	at := ""
	if r.q.Topic != "" {
		at = " @" + r.q.Topic
	}
	switch r.q.Kind {
	case ports.QuestionConfirm:
		return "confirm" + at + " yes"
	case ports.QuestionSelect:
		v := "VALUE"
		if len(r.q.Options) > 0 {
			v = quoteIfNeeded(r.q.Options[0].Answer())
		}
		return "select" + at + " " + v
	case ports.QuestionSecret:
		return "secret" + at + " VALUE"
	default:
		return "text" + at + " VALUE"
	}
}

// optionName shows an option in an error message.
func optionName(o ports.Option) string {
	if o.Key != "" && o.Key != o.Answer() {
		return fmt.Sprintf("%s=%s", o.Key, quoteIfNeeded(o.Answer()))
	}
	return quoteIfNeeded(o.Answer())
}

// quoteIfNeeded quotes s when a script would need quotes to spell it.
func quoteIfNeeded(s string) string {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsAny(s, "\n\r\t\"`") || reservedValue(s) {
		return strconv.Quote(s)
	}
	return s
}

// reservedValue reports whether a bare value would be read as a keyword.
func reservedValue(s string) bool {
	switch s {
	case "keep", "empty":
		return true
	}
	return strings.HasPrefix(s, "@") || strings.HasPrefix(s, "<<")
}

// shorten cuts long text for error messages.
func shorten(s string) string {
	const max = 60
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
