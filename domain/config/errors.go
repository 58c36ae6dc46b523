package config

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, for errors.Is.
var (
	// ErrUnknownKey: a key the schema does not have, or a path that a
	// tree does not hold.
	ErrUnknownKey = errors.New("unknown configuration key")
	// ErrInvalidValue: a value of the wrong type or outside its enum, or
	// a malformed key path or --cfg flag.
	ErrInvalidValue = errors.New("invalid configuration value")
	// ErrSyntax: a configuration file that is not valid TOML.
	ErrSyntax = errors.New("invalid TOML")
)

// KeyError reports a problem with one configuration key.
type KeyError struct {
	// Key is the full dotted key, e.g. "interrupt.streaming.action".
	Key string
	// Source is the layer the key came from: a file path,
	// "environment variable JP_CFG_X" or "--cfg flag \"k=v\""; empty when
	// the error is not about a layer (a lookup).
	Source string
	// Reason says what is wrong, e.g. `expected one of never, if_pending,
	// got "sometimes"`; optional for unknown keys.
	Reason string
	// Hint says what to do, e.g. "did you mean query.loop?"; optional.
	Hint string
	// Err is ErrUnknownKey or ErrInvalidValue.
	Err error
}

// Error renders one line, e.g.
//
//	unknown configuration key query.lop in /w/.jp/config.toml; did you mean query.loop?
//	query.loop in /w/.jp/config.toml: expected one of never, if_pending, always, got "sometimes"
func (e *KeyError) Error() string {
	var b strings.Builder
	if errors.Is(e.Err, ErrUnknownKey) {
		b.WriteString("unknown configuration key ")
	}
	b.WriteString(e.Key)
	if e.Source != "" {
		b.WriteString(" in " + e.Source)
	}
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

// Unwrap returns ErrUnknownKey or ErrInvalidValue.
func (e *KeyError) Unwrap() error { return e.Err }

// SyntaxError reports a configuration file that is not valid TOML.
type SyntaxError struct {
	Source string // file path
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based; 0 when unknown
	Msg    string
}

// Error renders "path:line:column: invalid TOML: msg".
func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: invalid TOML: %s", e.Source, e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s: invalid TOML: %s", e.Source, e.Msg)
}

// Unwrap makes errors.Is(err, ErrSyntax) true.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }
