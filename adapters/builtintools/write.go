package builtintools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

// change is one file a write call touches.
type change struct {
	path    string // relative, slash-separated
	newPath string // fs_move_file: the destination
	before  []byte // nil: the file does not exist yet
	after   []byte // nil: the file is deleted (or moved away)
	base    string // sha256 of before, checked again just before writing
	repls   int
}

// plan is what a write call will do.
type plan struct {
	tool    string
	changes []change
}

func (p *plan) files() []string {
	var out []string
	for _, c := range p.changes {
		out = append(out, c.path)
		if c.newPath != "" {
			out = append(out, c.newPath)
		}
	}
	return out
}

func (p *plan) summary() string {
	var parts []string
	for _, c := range p.changes {
		switch {
		case c.newPath != "":
			parts = append(parts, fmt.Sprintf("move %s to %s", c.path, c.newPath))
		case c.before == nil:
			parts = append(parts, fmt.Sprintf("create %s (%d lines)", c.path, countLines(c.after)))
		case c.after == nil:
			parts = append(parts, fmt.Sprintf("delete %s (%d lines)", c.path, countLines(c.before)))
		default:
			parts = append(parts, fmt.Sprintf("modify %s (%s)", c.path, plural(c.repls, "replacement")))
		}
	}
	return strings.Join(parts, "; ")
}

func (p *plan) diff() string {
	var b strings.Builder
	for _, c := range p.changes {
		if c.newPath != "" {
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nrename from %s\nrename to %s\n", c.path, c.newPath, c.path, c.newPath)
			continue
		}
		b.WriteString(unifiedDiff(c.path, c.before, c.after))
	}
	return b.String()
}

// unifiedDiff renders before -> after as a unified diff with three lines
// of context (--- /dev/null for a new file, +++ /dev/null for a deleted
// one).
func unifiedDiff(name string, before, after []byte) string {
	from, to := "a/"+name, "b/"+name
	if before == nil {
		from = "/dev/null"
	}
	if after == nil {
		to = "/dev/null"
	}
	a, b := splitLines(before), splitLines(after)
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: a, B: b, FromFile: from, ToFile: to, Context: 3})
	if err != nil {
		return fmt.Sprintf("(no diff: %v)\n", err)
	}
	return text
}

// splitLines splits into lines that each end in "\n"; a last line without
// one is marked as git marks it.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		return lines[:len(lines)-1]
	}
	lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	return lines
}

func countLines(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func hash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// pattern is one replacement of fs_modify_file.
type pattern struct {
	Old   string   `json:"old"`
	New   string   `json:"new"`
	Paths []string `json:"paths"`
}

// plan works out a write call's changes without writing anything.
func (s *Server) plan(tool string, args json.RawMessage) (*plan, error) {
	p := &plan{tool: tool}
	var err error
	switch tool {
	case CreateFile:
		p.changes, err = s.planCreate(tool, args)
	case ModifyFile:
		p.changes, err = s.planModify(tool, args)
	case DeleteFile:
		p.changes, err = s.planDelete(tool, args)
	case MoveFile:
		p.changes, err = s.planMove(tool, args)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// planCreate is fs_create_file's change: a new file, refused where one
// exists.
func (s *Server) planCreate(tool string, args json.RawMessage) ([]change, error) {
	var a struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	rel, err := s.writable(tool, a.Path)
	if err != nil {
		return nil, err
	}
	if _, err := s.root.Lstat(rel); err == nil {
		return nil, refuse("%s already exists; use fs_modify_file to change it", rel)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, rootErr("create", rel, err)
	}
	return []change{{path: rel, after: []byte(a.Content)}}, nil
}

// planModify is fs_modify_file's changes: each pattern applied in turn to
// each of its files, one change per file.
func (s *Server) planModify(tool string, args json.RawMessage) ([]change, error) {
	var a struct {
		Path     string    `json:"path"`
		Patterns []pattern `json:"patterns"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	if len(a.Patterns) == 0 {
		return nil, refuse("patterns is empty: give at least one {old, new, paths}")
	}
	var changes []change
	byPath := map[string]int{}
	for i, pt := range a.Patterns {
		paths := pt.Paths
		if len(paths) == 0 && a.Path != "" {
			paths = []string{a.Path}
		}
		if len(paths) == 0 {
			return nil, refuse("patterns[%d] has no paths: name the files it applies to", i)
		}
		if pt.Old == "" {
			return nil, refuse("patterns[%d].old is empty: give the exact text to replace", i)
		}
		for _, raw := range paths {
			rel, err := s.writable(tool, raw)
			if err != nil {
				return nil, err
			}
			j, seen := byPath[rel]
			if !seen {
				c, err := s.freshChange(tool, rel)
				if err != nil {
					return nil, err
				}
				changes = append(changes, c)
				j = len(changes) - 1
				byPath[rel] = j
			}
			if err := changes[j].replace(i, pt); err != nil {
				return nil, err
			}
		}
	}
	return changes, nil
}

// freshChange reads the text file rel for a modification, refusing one
// changed since the model last read it.
func (s *Server) freshChange(tool, rel string) (change, error) {
	before, err := s.readText(tool, rel)
	if err != nil {
		return change{}, err
	}
	if err := s.checkFresh(rel, before); err != nil {
		return change{}, err
	}
	return change{path: rel, before: before, after: before, base: hash(before)}, nil
}

// replace applies patterns[i] to the change's text: its old text must
// occur exactly once.
func (c *change) replace(i int, pt pattern) error {
	switch n := strings.Count(string(c.after), pt.Old); {
	case n == 0:
		return refuse("patterns[%d].old was not found in %s; nothing was changed. Read the file again and copy the text exactly", i, c.path)
	case n > 1:
		return refuse("patterns[%d].old occurs %d times in %s; nothing was changed. Include more surrounding lines so it matches once", i, n, c.path)
	}
	c.after = []byte(strings.Replace(string(c.after), pt.Old, pt.New, 1))
	c.repls++
	return nil
}

// planDelete is fs_delete_file's change.
func (s *Server) planDelete(tool string, args json.RawMessage) ([]change, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	rel, err := s.writable(tool, a.Path)
	if err != nil {
		return nil, err
	}
	before, err := s.readAny(tool, rel)
	if err != nil {
		return nil, err
	}
	if err := s.checkFresh(rel, before); err != nil {
		return nil, err
	}
	return []change{{path: rel, before: before, base: hash(before)}}, nil
}

// planMove is fs_move_file's change, refused where the new path exists.
func (s *Server) planMove(tool string, args json.RawMessage) ([]change, error) {
	var a struct {
		Path    string `json:"path"`
		NewPath string `json:"new_path"`
	}
	if err := decode(args, &a); err != nil {
		return nil, err
	}
	rel, err := s.writable(tool, a.Path)
	if err != nil {
		return nil, err
	}
	dst, err := s.writable(tool, a.NewPath)
	if err != nil {
		return nil, err
	}
	before, err := s.readAny(tool, rel)
	if err != nil {
		return nil, err
	}
	if _, err := s.root.Lstat(dst); err == nil {
		return nil, refuse("%s already exists; delete it first or choose another new_path", dst)
	}
	return []change{{path: rel, newPath: dst, before: before, after: before, base: hash(before)}}, nil
}

// readAny reads a regular file whole (binary allowed: delete and move).
func (s *Server) readAny(tool, rel string) ([]byte, error) {
	f, fi, err := s.openRegular(tool, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.IsDir() {
		return nil, refuse("%s: %s is a directory, not a regular file", tool, rel)
	}
	if fi.Size() > maxWriteSize {
		return nil, refuse("%s is %d bytes, more than the built-in tools change (%d)", rel, fi.Size(), maxWriteSize)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxWriteSize+1))
	if err != nil {
		return nil, rootErr("read", rel, err)
	}
	if len(b) > maxWriteSize {
		return nil, refuse("%s is more than %d bytes, more than the built-in tools change", rel, maxWriteSize)
	}
	return b, nil
}

// readText reads a text file to modify.
func (s *Server) readText(tool, rel string) ([]byte, error) {
	b, err := s.readAny(tool, rel)
	if err != nil {
		return nil, err
	}
	if isBinary(b) {
		return nil, refuse("%s is a binary file; fs_modify_file changes text only", rel)
	}
	return b, nil
}

// maxWriteSize bounds the files write tools plan in memory.
const maxWriteSize = 8 << 20

// checkFresh refuses a file changed since the model last read it in this
// turn.
func (s *Server) checkFresh(rel string, now []byte) error {
	s.mu.Lock()
	seen, ok := s.reads[rel]
	s.mu.Unlock()
	if ok && seen != hash(now) {
		return refuse("%s changed since you last read it in this turn; read it again before changing it", rel)
	}
	return nil
}

func (s *Server) remember(rel string, b []byte) {
	s.mu.Lock()
	s.reads[rel] = hash(b)
	s.mu.Unlock()
}

func (s *Server) forget(rel string) {
	s.mu.Lock()
	delete(s.reads, rel)
	s.mu.Unlock()
}

// apply writes a plan: every new content goes to a temporary file first
// (so a failure before the renames changes nothing), each file's base is
// checked again, then the renames replace the files.
func (s *Server) apply(p *plan) (ports.ToolResult, error) {
	for _, c := range p.changes {
		if c.before == nil {
			continue
		}
		now, err := s.readRegular(p.tool, c.path)
		if err != nil {
			return ports.ToolResult{}, err
		}
		if hash(now) != c.base {
			return ports.ToolResult{}, refuse("%s changed while the call waited; nothing was changed. Read it again", c.path)
		}
	}
	s.sweepTemps(p)
	type staged struct{ tmp, dst string }
	var temps []staged
	cleanup := func() {
		for _, t := range temps {
			_ = s.root.Remove(t.tmp)
		}
	}
	for _, c := range p.changes {
		if c.newPath != "" || c.after == nil {
			continue
		}
		tmp, err := s.stage(c.path, c.after, c.before == nil)
		if err != nil {
			cleanup()
			return ports.ToolResult{}, err
		}
		temps = append(temps, staged{tmp, c.path})
	}
	for _, t := range temps {
		if err := s.root.Rename(t.tmp, t.dst); err != nil {
			cleanup()
			return ports.ToolResult{}, rootErr("write", t.dst, err)
		}
		s.syncDir(path.Dir(t.dst))
	}
	for _, c := range p.changes {
		switch {
		case c.newPath != "":
			if err := s.root.MkdirAll(path.Dir(c.newPath), 0o755); err != nil {
				return ports.ToolResult{}, rootErr("move", c.newPath, err)
			}
			if _, err := s.root.Lstat(c.newPath); err == nil {
				return ports.ToolResult{}, refuse("%s already exists; nothing was moved", c.newPath)
			}
			if err := s.root.Rename(c.path, c.newPath); err != nil {
				return ports.ToolResult{}, rootErr("move", c.path, err)
			}
			s.syncDir(path.Dir(c.path))
			s.syncDir(path.Dir(c.newPath))
			s.forget(c.path)
			s.remember(c.newPath, c.after)
		case c.after == nil:
			if err := s.root.Remove(c.path); err != nil {
				return ports.ToolResult{}, rootErr("delete", c.path, err)
			}
			s.syncDir(path.Dir(c.path))
			s.forget(c.path)
		default:
			s.remember(c.path, c.after)
		}
	}
	content := "Done: " + p.summary() + ".\n"
	if d := p.diff(); d != "" {
		content += "\n" + d
	}
	return ports.ToolResult{Content: content, Changed: p.files()}, nil
}

// stage writes content to a new temporary file beside rel and syncs it
// (the file keeps its mode; a new one is 0644).
// A new file's directories are created.
func (s *Server) stage(rel string, content []byte, create bool) (string, error) {
	dir := path.Dir(rel)
	if create {
		if err := s.root.MkdirAll(dir, 0o755); err != nil {
			return "", rootErr("create", dir, err)
		}
	}
	tmp, err := atomicfile.Stage(rel, content, atomicfile.Options{Perm: 0o644, FS: s.root, Marker: tempMarker})
	if err != nil {
		return "", rootErr("write", rel, err)
	}
	return tmp, nil
}

// tempMarker names the temporary files the write tools stage beside the
// file they replace, ".NAME.jp-tmp-" and 12 hex digits, so that one left
// by a killed jp is plainly jp's (and swept by sweepTemps).
const tempMarker = ".jp-tmp-"

// sweepTemps removes, from every directory the plan writes to, jp's own
// temporary files older than atomicfile.StaleAge: what a jp killed mid-write left.
// Only names of jp's pattern are touched, only regular files, and a
// failure is ignored (the write goes on).
func (s *Server) sweepTemps(p *plan) {
	seen := map[string]bool{}
	for _, c := range p.changes {
		for _, rel := range []string{c.path, c.newPath} {
			if rel == "" || seen[path.Dir(rel)] {
				continue
			}
			dir := path.Dir(rel)
			seen[dir] = true
			atomicfile.SweepIn(s.root, dir, tempMarker, atomicfile.StaleAge)
		}
	}
}

// syncDir makes a rename in dir durable (best effort).
func (s *Server) syncDir(dir string) { _ = atomicfile.SyncDir(s.root, dir) }

// isBinary reports whether b looks like a binary file (a NUL byte in its
// first 8 KiB, as git decides).
func isBinary(b []byte) bool {
	if len(b) > 8<<10 {
		b = b[:8<<10]
	}
	return bytes.IndexByte(b, 0) >= 0
}
