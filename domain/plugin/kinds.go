package plugin

import (
	"fmt"
	"strings"
)

// PromptKind is what a prompt request asks for (docs/plugins.md): the type of its
// answer.
type PromptKind int

// Prompt kinds. The zero value is never valid on the wire.
const (
	PromptKindUnknown PromptKind = iota
	// PromptKindConfirm asks yes or no; the answer is a bool.
	PromptKindConfirm
	// PromptKindSelect asks for one of the request's options; the answer is
	// the chosen string.
	PromptKindSelect
	// PromptKindText asks for a line of text; the answer is the string.
	PromptKindText
	// PromptKindSecret asks for a line of text without echoing it; the
	// answer is the string, and it is never logged.
	PromptKindSecret
)

var promptKindNames = [...]string{"unknown", "confirm", "select", "text", "secret"}

// String returns the wire name.
func (k PromptKind) String() string { return enumName(promptKindNames[:], int(k)) }

// ParsePromptKind reads a wire name.
func ParsePromptKind(s string) (PromptKind, error) {
	i, err := parseEnum(promptKindNames[:], s, "prompt kind")
	return PromptKind(i), err
}

// MarshalText implements encoding.TextMarshaler.
func (k PromptKind) MarshalText() ([]byte, error) {
	return marshalEnum(promptKindNames[:], int(k), "prompt kind")
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *PromptKind) UnmarshalText(b []byte) error {
	v, err := ParsePromptKind(string(b))
	*k = v
	return err
}

// PromptOutcome is how the host answered a prompt (docs/plugins.md). Cancelled
// and unavailable are outcomes, not errors.
type PromptOutcome int

// Prompt outcomes.
const (
	PromptOutcomeUnknown PromptOutcome = iota
	// PromptOutcomeAnswered carries the answer in value.
	PromptOutcomeAnswered
	// PromptOutcomeCancelled means the user dismissed the prompt (ESC).
	PromptOutcomeCancelled
	// PromptOutcomeUnavailable means the host had no interactive terminal;
	// reason says why. The plugin names its non-interactive alternative.
	PromptOutcomeUnavailable
)

var promptOutcomeNames = [...]string{"unknown", "answered", "cancelled", "unavailable"}

// String returns the wire name.
func (o PromptOutcome) String() string { return enumName(promptOutcomeNames[:], int(o)) }

// ParsePromptOutcome reads a wire name.
func ParsePromptOutcome(s string) (PromptOutcome, error) {
	i, err := parseEnum(promptOutcomeNames[:], s, "prompt outcome")
	return PromptOutcome(i), err
}

// MarshalText implements encoding.TextMarshaler.
func (o PromptOutcome) MarshalText() ([]byte, error) {
	return marshalEnum(promptOutcomeNames[:], int(o), "prompt outcome")
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (o *PromptOutcome) UnmarshalText(b []byte) error {
	v, err := ParsePromptOutcome(string(b))
	*o = v
	return err
}

// PrintFormat is how the host renders a print request's text.
type PrintFormat int

// Print formats. PrintFormatUnknown on the wire (the field left out) means
// plain.
const (
	PrintFormatUnknown PrintFormat = iota
	// PrintFormatPlain passes the text through as is.
	PrintFormatPlain
	// PrintFormatMarkdown renders markdown (on a terminal).
	PrintFormatMarkdown
	// PrintFormatJSON pretty-prints a JSON value.
	PrintFormatJSON
	// PrintFormatCode shows source code, with the language hint.
	PrintFormatCode
)

var printFormatNames = [...]string{"unknown", "plain", "markdown", "json", "code"}

// String returns the wire name.
func (f PrintFormat) String() string { return enumName(printFormatNames[:], int(f)) }

// ParsePrintFormat reads a wire name.
func ParsePrintFormat(s string) (PrintFormat, error) {
	i, err := parseEnum(printFormatNames[:], s, "print format")
	return PrintFormat(i), err
}

// MarshalText implements encoding.TextMarshaler.
func (f PrintFormat) MarshalText() ([]byte, error) {
	return marshalEnum(printFormatNames[:], int(f), "print format")
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (f *PrintFormat) UnmarshalText(b []byte) error {
	v, err := ParsePrintFormat(string(b))
	*f = v
	return err
}

// LogLevel is the level of a log request, and of init's log_level.
type LogLevel int

// Log levels, lowest first. init's log_level is the number: 0 error, 1
// warn, 2 info, 3 debug, 4 trace.
const (
	LogLevelError LogLevel = iota
	LogLevelWarn
	LogLevelInfo
	LogLevelDebug
	LogLevelTrace
)

var logLevelNames = [...]string{"error", "warn", "info", "debug", "trace"}

// String returns the wire name.
func (l LogLevel) String() string {
	if l < 0 || int(l) >= len(logLevelNames) {
		return "unknown"
	}
	return logLevelNames[l]
}

// ParseLogLevel reads a log request's level.
func ParseLogLevel(s string) (LogLevel, error) {
	for i, n := range logLevelNames {
		if n == s {
			return LogLevel(i), nil
		}
	}
	return 0, fmt.Errorf("unknown log level %q: expected one of trace, debug, info, warn, error", s)
}

func enumName(names []string, i int) string {
	if i <= 0 || i >= len(names) {
		return "unknown"
	}
	return names[i]
}

func parseEnum(names []string, s, what string) (int, error) {
	for i, n := range names {
		if i > 0 && n == s {
			return i, nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q: expected one of %s", what, s, strings.Join(names[1:], ", "))
}

func marshalEnum(names []string, i int, what string) ([]byte, error) {
	if i <= 0 || i >= len(names) {
		return nil, fmt.Errorf("%s is unset", what)
	}
	return []byte(names[i]), nil
}
