package web

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// historyDiff is the change a built-in write tool's call made, worked out
// from its stored arguments alone (the files may have changed since):
// fs_create_file's content as added lines, each of fs_modify_file's
// replacements as a diff of its old text against its new one (its hunk
// line numbers count within the replaced text, not the file), and
// fs_move_file's rename. "" for any other tool, for fs_delete_file
// (what it removed is not in its arguments) and for arguments of
// another shape.
func historyDiff(name string, args json.RawMessage) string {
	switch name {
	case "fs_create_file":
		var a struct{ Path, Content string }
		if json.Unmarshal(args, &a) != nil || a.Path == "" {
			return ""
		}
		return textDiff("/dev/null", "b/"+a.Path, "", a.Content)
	case "fs_modify_file":
		return modifyDiff(args)
	case "fs_move_file":
		var a struct {
			Path    string `json:"path"`
			NewPath string `json:"new_path"`
		}
		if json.Unmarshal(args, &a) != nil || a.Path == "" || a.NewPath == "" {
			return ""
		}
		return fmt.Sprintf("diff --git a/%s b/%s\nrename from %s\nrename to %s\n", a.Path, a.NewPath, a.Path, a.NewPath)
	}
	return ""
}

// modifyDiff is fs_modify_file's replacements as diffs, one per file a
// replacement names.
func modifyDiff(args json.RawMessage) string {
	var a struct {
		Path     string `json:"path"`
		Patterns []struct {
			Old   string   `json:"old"`
			New   string   `json:"new"`
			Paths []string `json:"paths"`
		} `json:"patterns"`
	}
	if json.Unmarshal(args, &a) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range a.Patterns {
		paths := p.Paths
		if len(paths) == 0 && a.Path != "" {
			paths = []string{a.Path}
		}
		old, repl := p.Old, p.New
		if !strings.HasSuffix(old, "\n") && !strings.HasSuffix(repl, "\n") {
			// Text within a line: not a file's last line without a newline.
			old, repl = old+"\n", repl+"\n"
		}
		for _, path := range paths {
			b.WriteString(textDiff("a/"+path, "b/"+path, old, repl))
		}
	}
	return b.String()
}

// textDiff is the unified diff of before -> after, as jp's write tools
// show theirs (three lines of context; a last line without a newline
// marked as git marks it).
// Texts longer than maxMatchedLines together are shown as all their old
// lines removed and all their new ones added: difflib's matching grows
// with the product of their lengths, and the page draws every call.
func textDiff(from, to, before, after string) string {
	a, b := diffSplit(before), diffSplit(after)
	if len(a)+len(b) > maxMatchedLines {
		var out strings.Builder
		fmt.Fprintf(&out, "--- %s\n+++ %s\n@@ -1,%d +1,%d @@\n", from, to, len(a), len(b))
		for _, l := range a {
			out.WriteString("-" + l)
		}
		for _, l := range b {
			out.WriteString("+" + l)
		}
		return out.String()
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: a, B: b, FromFile: from, ToFile: to, Context: 3})
	if err != nil {
		return ""
	}
	return text
}

// maxMatchedLines bounds the texts textDiff matches line by line.
const maxMatchedLines = 4000

func diffSplit(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		return lines[:len(lines)-1]
	}
	lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	return lines
}
