package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// streamState is the invariant state of a silo conversation's events, kept
// between appends so that an append to a long conversation checks only the
// new events instead of re-reading the stream. It is valid while events.json
// is the same file and events.log has the size it recorded; any other
// writer changes one of them.
type streamState struct {
	json    os.FileInfo // events.json as last seen
	logSize int64       // bytes of events.log covered
	stream  *conversation.Stream
	local   bool // a --local conversation: never projected
}

func (s *Store) putStream(dir string, st *streamState) {
	s.mu.Lock()
	s.streams[dir] = st
	s.mu.Unlock()
}

func (s *Store) dropStream(dir string) {
	s.mu.Lock()
	delete(s.streams, dir)
	s.mu.Unlock()
}

// cachedStream returns the cached state of dir while the files match it.
func (s *Store) cachedStream(dir string) *streamState {
	s.mu.Lock()
	st := s.streams[dir]
	s.mu.Unlock()
	if st == nil {
		return nil
	}
	fi, err := os.Stat(filepath.Join(dir, eventsFile))
	if err == nil && os.SameFile(fi, st.json) && fi.Size() == st.json.Size() && fi.ModTime().Equal(st.json.ModTime()) {
		if size, err := fileSize(filepath.Join(dir, logFile)); err == nil && size == st.logSize {
			return st
		}
	}
	s.dropStream(dir)
	return nil
}

// fileSize is a file's size; a missing file has size 0.
func fileSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if isNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// streamFor returns the stream state of the conversation at p: the silo's
// (cached, or loaded and repaired), else a fresh one from the projection.
// The caller holds the conversation's write lock.
func (s *Store) streamFor(p place) (*streamState, error) {
	if err := s.checkEventsSize(p.readDir()); err != nil {
		return nil, err
	}
	if !p.inSilo {
		stream, err := checkoutStream(p.projConv)
		if err != nil {
			return nil, err
		}
		return &streamState{stream: stream}, nil
	}
	if st := s.cachedStream(p.siloConv); st != nil {
		return st, nil
	}
	if err := checkSiloEvents(p, p.id()); err != nil {
		return nil, err
	}
	if p.inProj {
		// The checkout copy is synced when the turn ends: a copy that no
		// longer parses (a merge left conflict markers in it) stops the
		// write now, before the turn, rather than being overwritten then.
		if err := s.checkProjection(p.projConv, p.siloConv, conversation.ID(filepath.Base(p.projConv))); err != nil {
			return nil, err
		}
	}
	return s.loadStream(p.siloConv, p.format)
}

// checkProjection fails with a *ports.CorruptError naming the first
// managed file of the checkout copy dir that is not valid JSON. jp never
// overwrites such a file: it may hold someone's unresolved merge. A file
// this process wrote or checked and that is still the same file, or one
// with the bytes this store writes there from siloDir (the user-local
// copy, and for events.json the log not folded yet), is not parsed again:
// a long conversation's copy is megabytes.
func (s *Store) checkProjection(dir, siloDir string, id conversation.ID) error {
	for _, n := range []string{eventsFile, metadataFile} {
		path := filepath.Join(dir, n)
		fi, err := os.Stat(path)
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("check checkout copy of conversation %s: %w", id, err)
		}
		if s.knownValid(path, fi) {
			continue
		}
		same := sameContent
		if n == eventsFile {
			// events.json and the log not folded yet, as projected
			same = func(path, _ string) bool { return sameAsProjection(path, siloDir) }
		}
		if same(path, filepath.Join(siloDir, n)) {
			s.markValid(path)
			continue
		}
		if n == eventsFile {
			if err := s.checkEventsSize(dir); err != nil {
				return err
			}
		}
		b, err := os.ReadFile(path)
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("check checkout copy of conversation %s: %w", id, err)
		}
		if !json.Valid(b) {
			return &ports.CorruptError{Path: path, Err: errors.New("it does not parse as JSON"), Hint: fmt.Sprintf(
				"jp never overwrites the checkout copy of conversation %s: resolve the merge in it (or delete it; jp writes it again from the user-local copy), then run jp again", id)}
		}
		s.markValid(path)
	}
	return nil
}

// loadStream reads a silo conversation's events and builds its state. What
// a crash can leave is cleaned up first: old temp files are removed, and a
// log left inconsistent (a partial last line, or events a fold had already
// moved into events.json) is repaired by rewriting events.json with the
// sequence readers see and removing the log.
func (s *Store) loadStream(dir string, f conversation.Format) (*streamState, error) {
	sweepTemps(dir)
	se, err := readSiloEvents(dir)
	if err != nil {
		return nil, err
	}
	if se.block && s.checkpointing(dir) {
		// This process is still streaming that block: it is not debris.
		se.events, se.block = se.events[:len(se.events)-1], false
	}
	jsonPath := filepath.Join(dir, eventsFile)
	fi, err := os.Stat(jsonPath)
	// A block checkpointed by a process that died is folded in as the
	// chat_response it was becoming.
	if se.partial || se.dups > 0 || se.block || isNotExist(err) {
		if err := s.rewriteEvents(dir, se.events, f); err != nil {
			return nil, err
		}
		fi, err = os.Stat(jsonPath)
	}
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	logSize, err := fileSize(filepath.Join(dir, logFile))
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	stream, err := conversation.NewStream(se.events)
	if err != nil {
		return nil, &ports.CorruptError{Path: jsonPath, Err: err}
	}
	local, err := readLocal(dir)
	if err != nil {
		return nil, err
	}
	st := &streamState{json: fi, logSize: logSize, stream: stream, local: local.Local}
	s.putStream(dir, st)
	return st, nil
}

// rewriteEvents replaces events.json with evs and removes the log. Events
// read from the files are written back as they were stored (unknown fields
// and types included); f is the form of any others.
func (s *Store) rewriteEvents(dir string, evs []conversation.Event, f conversation.Format) error {
	b, err := eventcodec.EncodeStoredEvents(evs, f)
	if err != nil {
		return fmt.Errorf("rewrite events in %s: %w", dir, err)
	}
	if err := s.writeFile(filepath.Join(dir, eventsFile), b, 0o600); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, logFile)); err != nil && !isNotExist(err) {
		return fmt.Errorf("rewrite events in %s: %w", dir, err)
	}
	if !s.checkpointing(dir) {
		if err := s.dropPartial(dir); err != nil {
			return fmt.Errorf("rewrite events in %s: %w", dir, err)
		}
	}
	return s.syncDir(dir)
}
