package config

import (
	"errors"
	"reflect"
	"testing"
)

// enumCase is one enum type under test, through its generic surface.
type enumCase struct {
	name   string
	values []string // the spellings, in order, after Unknown
	parse  func(string) (Enum, error)
	of     func(int) Enum
	setter func() (EnumSetter, func() Enum)
}

func enumCases() []enumCase {
	return []enumCase{
		{"LoopPolicy", []string{"never", "if_pending", "always"},
			func(s string) (Enum, error) { return ParseLoopPolicy(s) },
			func(i int) Enum { return LoopPolicy(i) },
			func() (EnumSetter, func() Enum) { var v LoopPolicy; return &v, func() Enum { return v } }},
		{"StreamingAction", []string{"prompt", "continue", "reply", "queue_reply", "stop", "abort"},
			func(s string) (Enum, error) { return ParseStreamingAction(s) },
			func(i int) Enum { return StreamingAction(i) },
			func() (EnumSetter, func() Enum) { var v StreamingAction; return &v, func() Enum { return v } }},
		{"ToolCallAction", []string{"prompt", "continue", "respond", "queue_reply", "stop", "restart"},
			func(s string) (Enum, error) { return ParseToolCallAction(s) },
			func(i int) Enum { return ToolCallAction(i) },
			func() (EnumSetter, func() Enum) { var v ToolCallAction; return &v, func() Enum { return v } }},
		{"CountdownAction", []string{"prompt", "send", "keep", "discard", "edit"},
			func(s string) (Enum, error) { return ParseCountdownAction(s) },
			func(i int) Enum { return CountdownAction(i) },
			func() (EnumSetter, func() Enum) { var v CountdownAction; return &v, func() Enum { return v } }},
		{"RunPolicy", []string{"ask", "unattended", "deny", "edit", "skip", "ask!"},
			func(s string) (Enum, error) { return ParseRunPolicy(s) },
			func(i int) Enum { return RunPolicy(i) },
			func() (EnumSetter, func() Enum) { var v RunPolicy; return &v, func() Enum { return v } }},
		{"ResultPolicy", []string{"unattended", "ask", "edit"},
			func(s string) (Enum, error) { return ParseResultPolicy(s) },
			func(i int) Enum { return ResultPolicy(i) },
			func() (EnumSetter, func() Enum) { var v ResultPolicy; return &v, func() Enum { return v } }},
		{"SandboxLevel", []string{"workspace-write", "read-only", "off"},
			func(s string) (Enum, error) { return ParseSandboxLevel(s) },
			func(i int) Enum { return SandboxLevel(i) },
			func() (EnumSetter, func() Enum) { var v SandboxLevel; return &v, func() Enum { return v } }},
		{"AutoMode", []string{"off", "read", "edit", "all"},
			func(s string) (Enum, error) { return ParseAutoMode(s) },
			func(i int) Enum { return AutoMode(i) },
			func() (EnumSetter, func() Enum) { var v AutoMode; return &v, func() Enum { return v } }},
		{"ChecksumAlgorithm", []string{"sha256"},
			func(s string) (Enum, error) { return ParseChecksumAlgorithm(s) },
			func(i int) Enum { return ChecksumAlgorithm(i) },
			func() (EnumSetter, func() Enum) { var v ChecksumAlgorithm; return &v, func() Enum { return v } }},
	}
}

func TestStringEnums(t *testing.T) {
	for _, c := range enumCases() {
		t.Run(c.name, func(t *testing.T) {
			if got := c.of(0).(interface{ String() string }).String(); got != "unknown" {
				t.Errorf("zero value String() = %q, want unknown", got)
			}
			if c.of(0).ConfigValue() != nil {
				t.Errorf("zero value ConfigValue() = %v, want nil", c.of(0).ConfigValue())
			}
			var want []any
			for i, s := range c.values {
				want = append(want, s)
				e := c.of(i + 1)
				if got := e.(interface{ String() string }).String(); got != s {
					t.Errorf("value %d String() = %q, want %q", i+1, got, s)
				}
				if e.ConfigValue() != s {
					t.Errorf("value %d ConfigValue() = %v, want %q", i+1, e.ConfigValue(), s)
				}
				parsed, err := c.parse(s)
				if err != nil || parsed != e {
					t.Errorf("parse %q = %v, %v; want %v", s, parsed, err, e)
				}
				set, get := c.setter()
				if err := set.SetConfigValue(s); err != nil || get() != e {
					t.Errorf("SetConfigValue(%q) = %v, got %v", s, err, get())
				}
			}
			if !reflect.DeepEqual(c.of(0).EnumValues(), want) {
				t.Errorf("EnumValues() = %v, want %v", c.of(0).EnumValues(), want)
			}
			if _, err := c.parse("bogus"); err == nil {
				t.Error("parse(bogus) succeeded")
			}
			if _, err := c.parse("unknown"); err == nil {
				t.Error("parse(unknown) succeeded")
			}
			set, _ := c.setter()
			for _, bad := range []any{"bogus", int64(1), true, nil} {
				if err := set.SetConfigValue(bad); err == nil {
					t.Errorf("SetConfigValue(%v) succeeded", bad)
				}
			}
		})
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := ParseLoopPolicy("sometimes")
	want := `invalid query.loop value "sometimes": expected one of never, if_pending, always`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	var p LoopPolicy
	err = p.SetConfigValue("sometimes")
	want = `expected one of never, if_pending, always, got "sometimes"`
	if err == nil || err.Error() != want {
		t.Errorf("SetConfigValue err = %v, want %s", err, want)
	}
}

func TestComposeInEditor(t *testing.T) {
	tests := []struct {
		in                            any
		want                          ComposeInEditor
		text                          string
		startsInEditor, escape, falls bool
	}{
		{false, ComposeInEditorFalse, "false", false, true, false},
		{true, ComposeInEditorTrue, "true", true, true, true},
		{"always", ComposeInEditorAlways, "always", true, false, false},
		{"never", ComposeInEditorNever, "never", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			var c ComposeInEditor
			if err := c.SetConfigValue(tt.in); err != nil || c != tt.want {
				t.Fatalf("SetConfigValue(%v) = %v, %v", tt.in, c, err)
			}
			if c.String() != tt.text {
				t.Errorf("String() = %q", c.String())
			}
			if c.ConfigValue() != tt.in {
				t.Errorf("ConfigValue() = %v, want %v", c.ConfigValue(), tt.in)
			}
			if p, err := ParseComposeInEditor(tt.text); err != nil || p != tt.want {
				t.Errorf("ParseComposeInEditor(%q) = %v, %v", tt.text, p, err)
			}
			if c.StartsInEditor() != tt.startsInEditor || c.EditorEscape() != tt.escape || c.FallsBackToInline() != tt.falls {
				t.Errorf("behaviour = %v %v %v", c.StartsInEditor(), c.EditorEscape(), c.FallsBackToInline())
			}
		})
	}
	var c ComposeInEditor
	for _, bad := range []any{"true", "false", "sometimes", int64(1), nil} {
		if err := c.SetConfigValue(bad); err == nil {
			t.Errorf("SetConfigValue(%#v) succeeded", bad)
		}
	}
	if _, err := ParseComposeInEditor("sometimes"); err == nil {
		t.Error("ParseComposeInEditor(sometimes) succeeded")
	}
	if got := ExpectedValues(c); got != "false, true, always, never" {
		t.Errorf("ExpectedValues = %q", got)
	}
	if c.ConfigValue() != nil || c.String() != "unknown" {
		t.Errorf("zero value = %v %q", c.ConfigValue(), c.String())
	}
}

func TestKeyErrorText(t *testing.T) {
	tests := []struct {
		err  *KeyError
		want string
	}{
		{&KeyError{Key: "query.lop", Source: "/w/.jp/config.toml", Hint: "did you mean query.loop?", Err: ErrUnknownKey},
			"unknown configuration key query.lop in /w/.jp/config.toml; did you mean query.loop?"},
		{&KeyError{Key: "query.loop", Source: "/w/.jp/config.toml", Reason: `expected one of never, if_pending, always, got "sometimes"`, Err: ErrInvalidValue},
			`query.loop in /w/.jp/config.toml: expected one of never, if_pending, always, got "sometimes"`},
		{&KeyError{Key: "a.b", Err: ErrUnknownKey}, "unknown configuration key a.b"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
		if !errors.Is(tt.err, tt.err.Err) {
			t.Errorf("errors.Is(%v, %v) = false", tt.err, tt.err.Err)
		}
	}
	se := &SyntaxError{Source: "/c.toml", Line: 3, Column: 7, Msg: "expected value"}
	if se.Error() != "/c.toml:3:7: invalid TOML: expected value" || !errors.Is(se, ErrSyntax) {
		t.Errorf("SyntaxError = %q", se.Error())
	}
}
