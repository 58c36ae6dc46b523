package config

import (
	"fmt"
	"strings"
)

// ComposeInEditor says where a compose action (a query, [r] Reply, [q]
// Queue reply, [e] Edit draft) composes: the inline widget or the external
// editor ($VISUAL, $EDITOR). It accepts four spellings, all distinct:
//
//	value     starts in   Ctrl+X escape to editor   editor fails or is missing
//	false     inline      yes                       (stays inline)
//	true      editor      yes                       falls back to inline
//	"always"  editor      -                         back to the menu, no fallback
//	"never"   inline      no                        (never opens the editor)
//
// Without a terminal no compose surface opens, whatever the setting.
type ComposeInEditor int

// ComposeInEditor values, named by their spelling.
const (
	ComposeInEditorUnknown ComposeInEditor = iota
	ComposeInEditorFalse                   // inline first; Ctrl+X opens the editor
	ComposeInEditorTrue                    // editor first; inline when it cannot run
	ComposeInEditorAlways                  // editor only
	ComposeInEditorNever                   // inline only
)

// String returns the spelling: "false", "true", "always" or "never".
func (c ComposeInEditor) String() string {
	switch c {
	case ComposeInEditorFalse:
		return "false"
	case ComposeInEditorTrue:
		return "true"
	case ComposeInEditorAlways:
		return "always"
	case ComposeInEditorNever:
		return "never"
	}
	return "unknown"
}

// ParseComposeInEditor reads a compose_in_editor value written as text (a
// flag): "false", "true", "always" or "never".
func ParseComposeInEditor(s string) (ComposeInEditor, error) {
	switch strings.TrimSpace(s) {
	case "false":
		return ComposeInEditorFalse, nil
	case "true":
		return ComposeInEditorTrue, nil
	case "always":
		return ComposeInEditorAlways, nil
	case "never":
		return ComposeInEditorNever, nil
	}
	return ComposeInEditorUnknown, fmt.Errorf("invalid compose_in_editor value %q: expected one of false, true, always, never", s)
}

// StartsInEditor reports whether composing opens the external editor first.
func (c ComposeInEditor) StartsInEditor() bool {
	return c == ComposeInEditorTrue || c == ComposeInEditorAlways
}

// EditorEscape reports whether the inline widget offers Ctrl+X to switch to
// the external editor.
func (c ComposeInEditor) EditorEscape() bool {
	return c == ComposeInEditorFalse || c == ComposeInEditorTrue
}

// FallsBackToInline reports whether a missing or failing editor falls back
// to the inline widget; with "always" it returns to the menu instead.
func (c ComposeInEditor) FallsBackToInline() bool {
	return c == ComposeInEditorTrue
}

// EnumValues implements Enum: false, true, "always", "never".
func (c ComposeInEditor) EnumValues() []any { return []any{false, true, "always", "never"} }

// ConfigValue implements Enum: a bool for false/true, a string for
// "always"/"never".
func (c ComposeInEditor) ConfigValue() any {
	switch c {
	case ComposeInEditorFalse:
		return false
	case ComposeInEditorTrue:
		return true
	case ComposeInEditorAlways:
		return "always"
	case ComposeInEditorNever:
		return "never"
	}
	return nil
}

// SetConfigValue implements EnumSetter. It accepts the bools false and true
// and the strings "always" and "never".
func (c *ComposeInEditor) SetConfigValue(v any) error {
	switch v := v.(type) {
	case bool:
		*c = ComposeInEditorFalse
		if v {
			*c = ComposeInEditorTrue
		}
		return nil
	case string:
		if v == "always" || v == "never" {
			p, _ := ParseComposeInEditor(v)
			*c = p
			return nil
		}
		return fmt.Errorf("expected one of false, true, always, never, got %q", v)
	}
	return fmt.Errorf("expected one of false, true, always, never, got %v", v)
}
