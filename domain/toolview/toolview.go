// Package toolview is how a tool call is shown to the user: one line
// with a glyph, the tool's name and what it acts on
// (`✎ fs_modify_file greet.txt (+1 −1)`, `$ git_status`), the same in
// every front end (the terminal, the web frontend). It is pure: the
// caller passes the arguments and, for a write, the diff it will apply.
package toolview

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Glyphs: a call that changes files, and any other call.
const (
	GlyphWrite = "✎"
	GlyphRun   = "$"
)

// writeTools are the built-in tools that change files.
var writeTools = map[string]bool{
	"fs_create_file": true, "fs_modify_file": true, "fs_delete_file": true, "fs_move_file": true,
}

// maxSubject is how many characters of a subject are shown.
const maxSubject = 60

// Line is the one-line view of a call of tool name with args (JSON):
// the glyph, the name, the call's subject (the paths, pattern or command
// its arguments name), and "(+A −D)" when diff (a unified diff, or "")
// adds or removes lines. With full, the arguments follow as compact JSON
// instead of the subject. The text may hold anything a model wrote: a
// front end makes it safe for its screen.
func Line(name string, args []byte, diff string, full bool) string {
	glyph := GlyphRun
	if writeTools[name] {
		glyph = GlyphWrite
	}
	var b strings.Builder
	b.WriteString(glyph + " " + name)
	if full {
		if a := compact(args); a != "{}" {
			b.WriteString(" " + a)
		}
	} else if s := Subject(args); s != "" {
		b.WriteString(" " + s)
	}
	if add, del := Count(diff); add+del > 0 {
		fmt.Fprintf(&b, " (+%d −%d)", add, del)
	}
	return b.String()
}

// Subject is what a call's arguments act on: its paths ("a.go → b.go"
// for a move), else its pattern, command, query or URL, cut to 60
// characters; "" when the arguments name none of these.
func Subject(args []byte) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	var paths []string
	add := func(v any) {
		if s, ok := v.(string); ok && s != "" && !slices.Contains(paths, s) {
			paths = append(paths, s)
		}
	}
	addAll := func(v any) {
		if l, ok := v.([]any); ok {
			for _, e := range l {
				add(e)
			}
		}
	}
	add(m["path"])
	addAll(m["paths"])
	if pats, ok := m["patterns"].([]any); ok {
		for _, p := range pats {
			if pm, ok := p.(map[string]any); ok {
				addAll(pm["paths"])
			}
		}
	}
	s := strings.Join(paths, " ")
	if np, ok := m["new_path"].(string); ok && np != "" {
		s += " → " + np
	}
	if s == "" {
		for _, k := range []string{"command", "cmd", "pattern", "query", "url", "name"} {
			if v, ok := m[k].(string); ok && v != "" {
				s = v
				break
			}
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxSubject {
		s = string(r[:maxSubject-1]) + "…"
	}
	return s
}

// Count returns the lines a unified diff adds and removes (file headers
// not counted).
func Count(diff string) (add, del int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return add, del
}

// compact renders JSON on one line: "{}" for none, the text as is when
// it is not JSON.
func compact(b []byte) string {
	if len(strings.TrimSpace(string(b))) == 0 {
		return "{}"
	}
	var out strings.Builder
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return string(b)
	}
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(b)
	}
	return strings.TrimRight(out.String(), "\n")
}
