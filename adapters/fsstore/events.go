package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// siloEvents is what a silo conversation's files hold.
type siloEvents struct {
	events  []conversation.Event // events.json, then the log's new events
	dups    int                  // log events already in events.json
	partial bool                 // the log ends with an incomplete line
	block   bool                 // the last event is the checkpoint of a block in flight
}

// readSiloEvents reads events.log, then events.json. In that order a fold
// running concurrently cannot hide events: whatever the log held is in the
// events.json read after it. Log events whose IDs end events.json (a fold
// interrupted before it removed the log) are skipped, and so is a trailing
// partial line (a write interrupted by a crash).
func readSiloEvents(dir string) (siloEvents, error) {
	se, err := readSiloBase(dir)
	if err != nil {
		return se, err
	}
	se.addPartial(dir)
	return se, nil
}

// readLog decodes events.log: its complete lines, and partial when its
// last line was cut (a crash mid-append), and the bytes read. A missing
// log has no events.
func readLog(logPath string) (evs []conversation.Event, partial bool, size int64, err error) {
	raw, err := os.ReadFile(logPath)
	if err != nil && !isNotExist(err) {
		return nil, false, 0, fmt.Errorf("read events: %w", err)
	}
	lines, partial := splitLines(raw)
	evs = make([]conversation.Event, 0, len(lines))
	for i, l := range lines {
		var e conversation.Event
		if err := eventcodec.Unmarshal(l, &e); err != nil { // the fast decoder, not a validation pass first
			return nil, false, 0, &ports.CorruptError{Path: logPath, Err: fmt.Errorf("line %d: %w", i+1, err)}
		}
		evs = append(evs, e)
	}
	return evs, partial, int64(len(raw)), nil
}

// readSiloBase is readSiloEvents without the block in flight.
func readSiloBase(dir string) (siloEvents, error) {
	var se siloEvents
	logEvents, partial, _, err := readLog(filepath.Join(dir, logFile))
	if err != nil {
		return se, err
	}
	se.partial = partial
	jsonPath := filepath.Join(dir, eventsFile)
	b, err := os.ReadFile(jsonPath)
	switch {
	case isNotExist(err):
		b = []byte("[]")
	case err != nil:
		return se, fmt.Errorf("read events: %w", err)
	}
	if se.events, err = eventcodec.DecodeEvents(b); err != nil {
		return se, &ports.CorruptError{Path: jsonPath, Err: err}
	}
	if len(logEvents) == 0 {
		return se, nil
	}
	// A fold cut before it removed the log left the log's events at the
	// end of events.json, followed by at most one more: the block in
	// flight that a repair (rewriteEvents) folded in after them.
	tail := se.events[max(0, len(se.events)-len(logEvents)-1):]
	folded := make(map[string]bool, len(tail))
	for _, e := range tail {
		folded[e.ID] = true
	}
	for _, e := range logEvents {
		if e.ID != "" && folded[e.ID] {
			se.dups++
			continue
		}
		se.events = append(se.events, e)
	}
	conversation.FillIDs(se.events)
	return se, nil
}

// addPartial appends the checkpoint of a block in flight (or cut by a
// kill) when it still applies.
func (se *siloEvents) addPartial(dir string) {
	if ev, ok := readPartial(dir, se.events); ok {
		se.events = append(se.events, ev)
		se.block = true
	}
}

// splitLines returns the complete, non-empty lines of a log and whether an
// incomplete line follows them.
func splitLines(raw []byte) ([][]byte, bool) {
	end := bytes.LastIndexByte(raw, '\n')
	partial := len(bytes.TrimSpace(raw[end+1:])) > 0
	var lines [][]byte
	for l := range bytes.SplitSeq(raw[:end+1], []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			lines = append(lines, l)
		}
	}
	return lines, partial
}

// Events returns the conversation's events in order: the silo's when it has
// the conversation, else the projection's.
func (s *Store) Events(ctx context.Context, loc workspace.Location, id conversation.ID) ([]conversation.Event, error) {
	p, err := s.find(ctx, loc, id, "read events")
	if err != nil {
		return nil, err
	}
	if err := s.checkEventsSize(p.readDir()); err != nil {
		return nil, fmt.Errorf("conversation %s: %w", id, err)
	}
	if p.inSilo {
		if err := checkSiloEvents(p, id); err != nil {
			return nil, err
		}
		se, err := readSiloEvents(p.siloConv)
		if err != nil {
			return nil, fmt.Errorf("conversation %s: %w", id, err)
		}
		for i, e := range se.events {
			se.events[i] = putBack(p.siloConv, e)
		}
		return se.events, nil
	}
	evs, err := readProjectionEvents(p.projConv)
	if err != nil {
		return nil, fmt.Errorf("conversation %s: %w", id, err)
	}
	return evs, nil
}

// readProjectionEvents reads a projection's events.json (which has no log).
func readProjectionEvents(dir string) ([]conversation.Event, error) {
	path := filepath.Join(dir, eventsFile)
	b, err := os.ReadFile(path)
	if isNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	evs, err := eventcodec.DecodeEvents(b)
	if err != nil {
		return nil, &ports.CorruptError{Path: path, Err: err}
	}
	return evs, nil
}

// Append checks evs against the stream invariants and adds them to the
// conversation's log, importing a projection-only conversation first. It
// writes nothing when an event is invalid. The log is folded into
// events.json, and a non-local conversation re-projected into loc.Root,
// when the append ends a turn (a turn's end appended with the next turn's
// start waits for that turn's end) or the log outgrows the fold threshold.
func (s *Store) Append(ctx context.Context, loc workspace.Location, id conversation.ID, evs ...conversation.Event) error {
	p, unlock, err := s.begin(ctx, loc, id, "append events")
	if err != nil {
		return err
	}
	defer unlock()
	if len(evs) == 0 {
		return nil
	}
	a, err := s.prepareAppend(loc, id, &p, evs)
	if err != nil {
		return err
	}
	// The content the events refer to is in place before they are.
	if err := s.writeKept(p.siloConv, a.kept); err != nil {
		return s.appendFailed(p, id, err)
	}
	foldNow, deferred, err := s.writeAppend(id, p, &a)
	if err != nil {
		return err
	}
	return s.finishAppend(loc, id, p, &a, foldNow, deferred)
}

// pendingAppend is an append checked against the stream and ready to
// write: the encoded log lines, the content kept beside the log, the
// metadata to update and the conversation's stream state.
type pendingAppend struct {
	batch    *logBatch
	kept     []keptContent
	plan     turnWrites
	meta     conversation.Metadata
	st       *streamState
	imported bool   // the conversation was imported into the silo now
	logged   []byte // the log's whole content, when it is only these lines
}

// appendFailed drops the cached stream of a conversation whose append
// failed part way (it is read again from disk next time).
func (s *Store) appendFailed(p place, id conversation.ID, err error) error {
	s.dropStream(p.siloConv)
	return fmt.Errorf("append to conversation %s: %w", id, err)
}

// prepareAppend encodes evs, applies them to the conversation's stream
// (refusing an invalid one before anything is written) and imports a
// projection-only conversation into the silo.
func (s *Store) prepareAppend(loc workspace.Location, id conversation.ID, p *place, evs []conversation.Event) (pendingAppend, error) {
	evs, kept := keepLocal(evs)
	if p.format == conversation.FormatRust {
		kept = nil // the Rust jp's form records no attachments at all
	}
	batch, err := encodeBatch(evs, p.format)
	if err != nil {
		return pendingAppend{}, fmt.Errorf("append to conversation %s: %w", id, err)
	}
	a := pendingAppend{batch: batch, kept: kept, plan: planTurnWrites(evs), imported: !p.inSilo}
	src := p.siloConv
	if !p.inSilo {
		src = p.projConv
	}
	if a.meta, err = readMeta(src, id, p.archived()); err != nil {
		return pendingAppend{}, fmt.Errorf("append to conversation %s: %w", id, err)
	}
	if a.imported {
		s.cleanImported(&a.meta)
	}
	if a.st, err = s.streamFor(*p); err != nil {
		return pendingAppend{}, fmt.Errorf("append to conversation %s: %w", id, err)
	}
	for _, e := range evs {
		if err := a.st.stream.Apply(e); err != nil {
			s.dropStream(p.siloConv)
			return pendingAppend{}, fmt.Errorf("append to conversation %s: event %q: %w", id, e.ID, err)
		}
	}
	if !a.imported {
		return a, nil
	}
	if err := s.importConversation(loc, id, p); err != nil {
		s.dropStream(p.siloConv)
		return pendingAppend{}, err
	}
	if a.st.json, err = os.Stat(filepath.Join(p.siloConv, eventsFile)); err != nil {
		return pendingAppend{}, s.appendFailed(*p, id, err)
	}
	return a, nil
}

// writeAppend appends the lines to the log and updates the metadata when
// the plan asks. It says whether the events are to be folded now, and
// whether a turn's end was left in the log of a long conversation.
//
// Events that end a turn, or that take the log past the fold threshold,
// are folded at once: their log line is not synced, the fold's atomic
// replacement of events.json is (a crash before it leaves them in the log,
// or, after a power cut, a partial line that readers ignore). The log's
// events stay the tail of events.json, which is how readers recognise a
// fold cut before it removed the log.
//
// On a long conversation the end of a turn is not folded: its events stay
// in the (synced) log, and only the checkout copy is written whole, from
// events.json and the log (projectFiles). The log is folded once it passes
// the threshold, every few hundred turns.
func (s *Store) writeAppend(id conversation.ID, p place, a *pendingAppend) (foldNow, deferred bool, err error) {
	st := a.st
	grown := st.logSize+a.batch.size >= s.foldThreshold
	deferred = a.plan.endsTurn && !grown && !a.imported && st.json != nil && st.json.Size() >= s.longConv
	foldNow = a.plan.endsTurn && !deferred || grown
	if st.logSize == 0 {
		a.logged = a.batch.whole // nil (read back) for a big line
	}
	if err := s.appendLog(p.siloConv, a.batch, st, !foldNow); err != nil {
		return false, false, s.appendFailed(p, id, err)
	}
	if s.checkpointing(p.siloConv) {
		// The block this process checkpointed is recorded now, or the turn
		// moved on: the checkpoint is stale.
		_ = s.dropPartial(p.siloConv)
	}
	// metadata.json (events_count, last_activated_at) is rewritten when a
	// turn starts or ends and at a fold, not for every event in between:
	// that would be two more fsyncs per streamed event (turnwrites.go).
	if a.plan.metadata || foldNow || a.imported {
		a.meta.EventsCount = st.stream.Len()
		a.meta.LastActivatedAt = s.clock.Now().UTC()
		write := s.writeJSON
		if foldNow {
			write = s.replaceJSON // the fold syncs the directory
		}
		if err := write(filepath.Join(p.siloConv, metadataFile), a.meta, 0o600); err != nil {
			return false, false, s.appendFailed(p, id, err)
		}
	}
	return foldNow, deferred, nil
}

// finishAppend folds the log when writeAppend says so and brings the
// checkout copy of a non-local conversation up to date.
func (s *Store) finishAppend(loc workspace.Location, id conversation.ID, p place, a *pendingAppend, foldNow, deferred bool) error {
	st := a.st
	if !foldNow {
		s.putStream(p.siloConv, st)
		if !deferred || st.local || loc.Root == "" {
			return nil
		}
		err := s.projectFiles(p.projConv, id, p.siloConv, nil)
		if !errors.Is(err, errNotArray) {
			return checkoutCopy(id, err)
		}
		// events.json is not one this store extends: fold
	}
	if _, err := s.foldLog(p.siloConv, st, p.format, a.logged); err != nil {
		return s.appendFailed(p, id, err)
	}
	s.putStream(p.siloConv, st)
	if st.local || loc.Root == "" {
		return nil
	}
	return checkoutCopy(id, s.projectFiles(p.projConv, id, p.siloConv, nil))
}

// checkoutCopy marks err, from the update of a checkout copy after the
// user-local copy was written, as a *ports.CheckoutCopyError: the events
// are saved.
func checkoutCopy(id conversation.ID, err error) error {
	if err == nil {
		return nil
	}
	return &ports.CheckoutCopyError{ID: id, Err: err}
}

// appendLog appends whole lines to events.log (see logBatch.WriteTo)
// and, with sync, fsyncs it (and the directory when it creates the log).
func (s *Store) appendLog(dir string, data io.WriterTo, st *streamState, sync bool) error {
	path := filepath.Join(dir, logFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	n, err := data.WriteTo(f)
	if err == nil && sync {
		err = s.syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if st.logSize == 0 && sync {
		if err := s.syncDir(dir); err != nil {
			return err
		}
	}
	st.logSize += n
	return nil
}

// fold moves the log's events into events.json:
// an atomic rewrite of events.json that copies the events already there
// as they are (file to file, in the kernel where it can: neither read into
// memory nor decoded) and adds the new lines, then removal of the log. A
// crash between the two leaves log events that readers recognise as
// folded by their IDs. It reports whether there was anything to fold.
func (s *Store) fold(dir string, st *streamState, f conversation.Format) (bool, error) {
	return s.foldLog(dir, st, f, nil)
}

// foldLog is fold, given the log's content when the caller knows it (it
// holds the conversation's lock and wrote the whole log itself), so that
// a 20 MB message just appended is not read back.
func (s *Store) foldLog(dir string, st *streamState, f conversation.Format, raw []byte) (bool, error) {
	logPath := filepath.Join(dir, logFile)
	var log io.Reader = bytes.NewReader(raw)
	if raw == nil {
		// The log is streamed into the new events.json, not read into
		// memory: it may hold a 20 MB message.
		lf, err := os.Open(logPath)
		if isNotExist(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("fold events: %w", err)
		}
		defer func() { _ = lf.Close() }()
		fi, err := lf.Stat()
		if err != nil {
			return false, fmt.Errorf("fold events: %w", err)
		}
		if fi.Size() == 0 {
			return false, nil
		}
		if log, err = completeLines(lf, fi.Size()); err != nil {
			return false, fmt.Errorf("fold events: %w", err)
		}
	} else if len(raw) == 0 {
		return false, nil
	}
	jsonPath := filepath.Join(dir, eventsFile)
	ok, err := s.appendToArray(jsonPath, jsonPath, 0o600, log)
	if err != nil {
		return false, err
	}
	if !ok {
		se, err := readSiloEvents(dir)
		if err != nil {
			return false, err
		}
		if se.block { // a checkpoint is not an event
			se.events = se.events[:len(se.events)-1]
		}
		merged, err := eventcodec.EncodeStoredEvents(se.events, f)
		if err != nil {
			return false, fmt.Errorf("fold events: %w", err)
		}
		if err := s.replaceFile(jsonPath, 0o600, func(w *os.File) error {
			_, err := w.Write(merged)
			return err
		}); err != nil {
			return false, err
		}
	}
	if err := os.Remove(logPath); err != nil && !isNotExist(err) {
		return false, fmt.Errorf("fold events: %w", err)
	}
	// One sync of the directory makes the new events.json, the log's
	// removal and a metadata.json the caller replaced with it durable.
	if err := s.syncDir(dir); err != nil {
		return false, err
	}
	if st != nil {
		if st.json, err = os.Stat(jsonPath); err != nil {
			return false, fmt.Errorf("fold events: %w", err)
		}
		st.logSize = 0
	}
	return true, nil
}

// appendToArray replaces the JSON array of events at dst with the one at
// src (one event per line, as eventcodec.EncodeEvents writes it; a
// missing file is empty) followed by lines, atomically. The array's events
// are copied file to file. ok is false, and nothing is written, when src
// does not end like such an array. The caller syncs the directory.
func (s *Store) appendToArray(src, dst string, perm fs.FileMode, log io.Reader) (ok bool, err error) {
	a, ok, err := openArray(src)
	if err != nil || !ok {
		return false, err
	}
	defer a.close()
	err = s.replaceFile(dst, perm, func(w *os.File) error { return a.writeTo(w, log) })
	return err == nil, err
}

// arrayFile is a JSON array of events in a file, ready to be written
// again with more elements.
type arrayFile struct {
	src   *os.File // nil: missing or empty, an empty array
	body  int64    // bytes of the array before its closing bracket
	empty bool     // the array has no element
}

// openArray opens the array at path; ok is false when the file does not
// end like an array of one event per line.
func openArray(path string) (a arrayFile, ok bool, err error) {
	a.empty = true
	src, err := os.Open(path)
	if isNotExist(err) {
		return a, true, nil
	}
	if err != nil {
		return a, false, fmt.Errorf("fold events: %w", err)
	}
	if fi, err := src.Stat(); err == nil && fi.Size() == 0 {
		_ = src.Close() // an empty file is an empty array
		return a, true, nil
	}
	if a.body, a.empty, ok = arrayBody(src); !ok {
		_ = src.Close()
		return a, false, nil
	}
	a.src = src
	return a, true, nil
}

func (a arrayFile) close() {
	if a.src != nil {
		_ = a.src.Close()
	}
}

// writeTo writes the array with the non-blank lines of log (complete
// lines) added as elements.
func (a arrayFile) writeTo(w io.Writer, log io.Reader) error {
	if a.src != nil {
		if _, err := a.src.Seek(0, io.SeekStart); err != nil {
			return err
		}
		// *os.File reads from a LimitedReader of a file with
		// copy_file_range: the kernel copies (or shares) the blocks.
		if n, err := io.Copy(w, io.LimitReader(a.src, a.body)); err != nil || n != a.body {
			return cmp.Or(err, io.ErrUnexpectedEOF)
		}
	} else if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	empty := a.empty
	if err := copyLines(bw, log, &empty); err != nil {
		return err
	}
	if _, err := bw.WriteString("\n]\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// copyLines writes the non-blank lines of the log r, which holds only
// complete lines, as elements of a JSON array being written to w (each
// after a separator; empty reports that the array has no element yet).
// A line is copied in pieces: it may be a 20 MB message.
func copyLines(w *bufio.Writer, r io.Reader, empty *bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var blank []byte // the start of the line, white space so far
	inLine := false  // the line's separator is written
	for {
		piece, err := br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			if err == io.EOF {
				return nil
			}
			return err
		}
		end := err == nil
		if end {
			piece = piece[:len(piece)-1]
		}
		if !inLine {
			if len(bytes.TrimSpace(piece)) == 0 {
				blank = append(blank, piece...)
				if end {
					blank = blank[:0]
				}
				continue
			}
			if *empty {
				_ = w.WriteByte('\n')
				*empty = false
			} else {
				_, _ = w.WriteString(",\n")
			}
			_, _ = w.Write(blank)
			blank, inLine = blank[:0], true
		}
		if _, err := w.Write(piece); err != nil {
			return err
		}
		if end {
			inLine = false
		}
	}
}

// completeLines returns the part of the log f (size bytes) up to its last
// newline: a last line cut by a crash is not an event.
func completeLines(f *os.File, size int64) (io.Reader, error) {
	buf := make([]byte, 4096)
	for end := size; end > 0; {
		n := min(end, int64(len(buf)))
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return nil, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return io.NewSectionReader(f, 0, end-n+int64(i)+1), nil
		}
		end -= n
	}
	return bytes.NewReader(nil), nil
}

// arrayBody finds the end of a JSON array's last element in f (the offset
// of the white space and bracket closing it). empty reports an array with
// no element; ok is false when f does not hold a JSON array by its first
// and last bytes.
func arrayBody(f *os.File) (end int64, empty, ok bool) {
	fi, err := f.Stat()
	if err != nil || fi.Size() < 2 {
		return 0, false, false
	}
	size := fi.Size()
	head := make([]byte, min(size, 512))
	if _, err := f.ReadAt(head, 0); err != nil {
		return 0, false, false
	}
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '[' {
		return 0, false, false
	}
	n := min(size, 4096)
	tail := make([]byte, n)
	if _, err := f.ReadAt(tail, size-n); err != nil {
		return 0, false, false
	}
	t := bytes.TrimRight(tail, " \t\r\n")
	if len(t) == 0 || t[len(t)-1] != ']' {
		return 0, false, false
	}
	t = bytes.TrimRight(t[:len(t)-1], " \t\r\n")
	if len(t) == 0 {
		return 0, false, false // white space all along the tail: not what this store writes
	}
	return size - n + int64(len(t)), t[len(t)-1] == '[', true
}
