// Package difflines classifies the lines of a unified diff, the one rule
// both front ends (the terminal's colours, the web's classes) colour by.
package difflines

import "strings"

// Kind is what a line of a unified diff is.
type Kind int

// Line kinds.
const (
	// Context is an unchanged line (or anything else).
	Context Kind = iota
	// Head is a file header: "+++ ", "--- ", "diff --git ", "rename from ",
	// "rename to ".
	Head
	// Add is an added line ("+").
	Add
	// Del is a removed line ("-").
	Del
	// Hunk is a hunk header ("@@").
	Hunk
)

// Classify says what line (without its newline) is.
func Classify(line string) Kind {
	switch {
	case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "diff --git "),
		strings.HasPrefix(line, "rename from "), strings.HasPrefix(line, "rename to "):
		return Head
	case strings.HasPrefix(line, "+"):
		return Add
	case strings.HasPrefix(line, "-"):
		return Del
	case strings.HasPrefix(line, "@@"):
		return Hunk
	}
	return Context
}
