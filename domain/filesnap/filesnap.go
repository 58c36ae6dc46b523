// Package filesnap holds the rules of file snapshots: what a file looked
// like before a conversation's tools first changed it in a turn, so that
// jp conversation rewind can put it back. A snapshot record names the
// turn (by its turn_start event's ID), the file, its state before the
// turn's first change and the state jp's tool left it in. Reading and
// writing files and keeping the contents is an adapter's job; this
// package decides what to restore, what conflicts and what to drop.
//
// These are not the block checkpoints of a streamed answer (app's
// checkpoint.go): those guard a killed process's text, these guard files.
package filesnap

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// State is a file's state: absent, or present with the SHA-256 of its
// content (hex) and its size.
type State struct {
	Exists bool
	Hash   string
	Size   int64
}

// Same reports whether two states have the same content (or are both
// absent).
func (s State) Same(o State) bool {
	if s.Exists != o.Exists {
		return false
	}
	return !s.Exists || s.Hash == o.Hash
}

// String is "absent" or the hash's first 12 digits and the size.
func (s State) String() string {
	if !s.Exists {
		return "absent"
	}
	h := s.Hash
	if len(h) > 12 {
		h = h[:12]
	}
	return fmt.Sprintf("%s (%d bytes)", h, s.Size)
}

// Record is one file a turn's tools changed: its state before the turn's
// first change (whose content the adapter keeps under Before.Hash), and
// the state the last tool call of that turn left it in.
type Record struct {
	Turn   string // the turn_start event's ID
	Seq    int    // order of first capture in the conversation
	Path   string // relative to the checkout, slash-separated
	Tool   string // the tool that first changed it in the turn
	At     time.Time
	Before State
	After  State
	// Wrote is set once the state jp left the file in is known (After).
	Wrote bool
}

// Index is a conversation's snapshot records, in capture order, and the
// turns whose records were dropped to keep the storage bound.
type Index struct {
	Records []Record
	Dropped []string
}

// Has reports whether the turn already has a record of path.
func (x *Index) Has(turnID, path string) bool {
	return slices.ContainsFunc(x.Records, func(r Record) bool { return r.Turn == turnID && r.Path == path })
}

// Add records path's state before its turn's first change; a file the
// turn already captured keeps its first record (ok is false).
func (x *Index) Add(turnID, path, tool string, at time.Time, before State) bool {
	if x.Has(turnID, path) {
		return false
	}
	seq := 1
	if n := len(x.Records); n > 0 {
		seq = x.Records[n-1].Seq + 1
	}
	x.Records = append(x.Records, Record{Turn: turnID, Seq: seq, Path: path, Tool: tool, At: at, Before: before})
	return true
}

// Wrote records the state a turn's tool left path in.
func (x *Index) Wrote(turnID, path string, after State) {
	for i := range x.Records {
		if x.Records[i].Turn == turnID && x.Records[i].Path == path {
			x.Records[i].After, x.Records[i].Wrote = after, true
		}
	}
}

// Bytes is what the kept contents take: the size of every distinct
// content a record keeps.
func (x *Index) Bytes() int64 {
	seen := map[string]bool{}
	var n int64
	for _, r := range x.Records {
		if r.Before.Exists && !seen[r.Before.Hash] {
			seen[r.Before.Hash] = true
			n += r.Before.Size
		}
	}
	return n
}

// Prune drops the oldest turns' records, a whole turn at a time, until
// the kept contents take at most max bytes, and returns the dropped
// turns in order (remembered in Dropped: a rewind past one of them is
// refused). The current turn (keep) is never dropped. max <= 0 keeps
// no bound.
func (x *Index) Prune(max int64, keep string) []string {
	if max <= 0 {
		return nil
	}
	var dropped []string
	for x.Bytes() > max {
		oldest := ""
		for _, r := range x.Records {
			if r.Turn != keep {
				oldest = r.Turn
				break
			}
		}
		if oldest == "" {
			break
		}
		x.Records = slices.DeleteFunc(x.Records, func(r Record) bool { return r.Turn == oldest })
		dropped = append(dropped, oldest)
		if !slices.Contains(x.Dropped, oldest) {
			x.Dropped = append(x.Dropped, oldest)
		}
	}
	return dropped
}

// Hashes are the contents the records still keep.
func (x *Index) Hashes() map[string]bool {
	out := map[string]bool{}
	for _, r := range x.Records {
		if r.Before.Exists {
			out[r.Before.Hash] = true
		}
	}
	return out
}

// Restore is what rewinding does to one file: put it back in state To
// (whose content the adapter keeps), which jp expects it to be in state
// Expect now (what jp's tools last left it in). Current is its state
// now; Conflict is set when Current is not Expect (someone changed the
// file since: refused without --force). Unknown is set when jp never
// learned what its tool left (the call failed half-way): then any
// current state is taken as jp's.
type Restore struct {
	Path     string
	To       State
	Expect   State
	Current  State
	Conflict bool
	Unknown  bool
	Turns    []string // the undone turns that changed it, in order
}

// Noop reports whether the file is already as it will be restored.
func (r Restore) Noop() bool { return r.Current.Same(r.To) }

// Plan works out, for the turns undone (every turn after the one kept),
// which files go back to which state: each file to its state before the
// first undone turn that changed it. current gives each such file's
// state now (the adapter reads it; paths the records name). The result
// is sorted by path.
func Plan(x Index, undone map[string]bool, current map[string]State) []Restore {
	by := map[string]*Restore{}
	var order []string
	for _, r := range x.Records {
		if !undone[r.Turn] {
			continue
		}
		p, ok := by[r.Path]
		if !ok {
			p = &Restore{Path: r.Path, To: r.Before}
			by[r.Path] = p
			order = append(order, r.Path)
		}
		p.Turns = append(p.Turns, r.Turn)
		p.Expect, p.Unknown = r.After, !r.Wrote
	}
	sort.Strings(order)
	out := make([]Restore, 0, len(order))
	for _, path := range order {
		p := by[path]
		p.Current = current[path]
		p.Conflict = !p.Unknown && !p.Current.Same(p.Expect)
		out = append(out, *p)
	}
	return out
}

// Paths are the files the undone turns' records name, sorted.
func Paths(x Index, undone map[string]bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range x.Records {
		if undone[r.Turn] && !seen[r.Path] {
			seen[r.Path] = true
			out = append(out, r.Path)
		}
	}
	sort.Strings(out)
	return out
}

// DroppedAmong returns the undone turns whose records were dropped.
func DroppedAmong(x Index, undone map[string]bool) []string {
	var out []string
	for _, t := range x.Dropped {
		if undone[t] {
			out = append(out, t)
		}
	}
	return out
}
