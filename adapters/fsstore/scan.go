package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// ScanEvents calls fn with each of the conversation's events in order, as
// Events returns them, without a slice of them all: events.json is read a
// megabyte at a time and decoded as it is read (eventcodec.EachEventRead),
// so the first event reaches fn after one chunk, and a conversation of
// 100,000 events costs the chunks its caller keeps (none, when it copies
// what it keeps, as turn.Transcript.AddCopy does), not its 15 MB file or
// 50 MB of events. When this
// process holds the conversation's lock (it is about to write), the scan
// also builds the state the next append checks its events against, so
// that append does not read the conversation again.
func (s *Store) ScanEvents(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(conversation.Event) error) error {
	return s.scanEvents(ctx, loc, id, fn, scanMode{})
}

// ScanEventsTransient is ScanEvents whose events are valid only until fn
// returns (ports.TransientEventScanner): the blocks of events.json read
// through the history snapshot share one buffer.
func (s *Store) ScanEventsTransient(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(conversation.Event) error) error {
	return s.scanEvents(ctx, loc, id, fn, scanMode{transient: true})
}

// scanMode is how scanEvents gives events: light, events.json's events
// come without their big values (ScanEventHeaders) and with their stored
// bytes, read from events.json itself (not the history snapshot);
// transient, they are valid only until fn returns.
type scanMode struct{ light, transient bool }

// scanEvents is ScanEvents, read as mode says.
func (s *Store) scanEvents(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(conversation.Event) error, mode scanMode) error {
	p, err := s.find(ctx, loc, id, "read events")
	if err != nil {
		return err
	}
	dir := p.readDir()
	if err := s.checkEventsSize(dir); err != nil {
		return fmt.Errorf("conversation %s: %w", id, err)
	}
	if p.inSilo {
		if err := checkSiloEvents(p, id); err != nil {
			return err
		}
	}
	if p.inSilo {
		// The content of Local attachments kept in the user-local copy.
		inner := fn
		fn = func(e conversation.Event) error { return inner(putBack(dir, e)) }
	}
	sc := scan{dir: dir, silo: p.inSilo, fn: fn, light: mode.light, transient: mode.transient}
	// The checkout copy is checked as loading the state for a write
	// checks it; when it does not parse, that write reports it.
	if !mode.light && p.inSilo && s.holds(loc, id) && (!p.inProj || s.checkProjection(p.projConv, p.siloConv, id) == nil) {
		sweepTemps(dir) // as loading the state for a write does
		sc.seed = &streamState{}
	}
	err = sc.run()
	var stop *stopScan
	if errors.As(err, &stop) {
		return stop.err
	}
	if err != nil {
		return fmt.Errorf("conversation %s: %w", id, err)
	}
	if st := sc.seed; st != nil && sc.clean() {
		local, err := readLocal(dir)
		if err == nil {
			st.local = local.Local
			s.putStream(dir, st)
		}
	}
	return nil
}

// stopScan carries an error of the caller's fn out of the scan unwrapped.
type stopScan struct{ err error }

func (e *stopScan) Error() string { return e.err.Error() }

// scan streams the events of a conversation directory: events.json, then
// (silo) the log's events it does not hold yet and the block in flight, as
// readSiloEvents reads them.
type scan struct {
	dir       string
	silo      bool
	transient bool // fn keeps nothing of an event (ScanEventsTransient)
	fn        func(conversation.Event) error
	// seed, when set, gets the stream state of the events read (see
	// ScanEvents); it is used only when clean.
	seed    *streamState
	invalid bool // an event broke the stream's invariants
	partial bool // the log ends with a cut line
	dups    int  // log events events.json holds already
	block   bool // the block in flight was given
	n       int  // events given
	open    bool // the last turn has no turn_end yet
	light   bool // events.json read by EachEventHeaderRead
}

// clean reports whether the files read are as a writer leaves them, so
// that the state built from them can be cached: anything a write would
// repair first (a cut log line, a fold cut short, a block in flight, no
// events.json) leaves that to loading the state for the write.
func (sc *scan) clean() bool {
	return sc.seed != nil && sc.seed.json != nil && sc.seed.stream != nil &&
		!sc.invalid && !sc.partial && sc.dups == 0 && !sc.block
}

func (sc *scan) emit(e conversation.Event) error {
	e.FillID(sc.n)
	switch e.Type {
	case conversation.EventTypeTurnStart:
		sc.open = true
	case conversation.EventTypeTurnEnd:
		sc.open = false
	}
	sc.n++
	if sc.seed != nil && !sc.invalid && sc.seed.stream.Apply(e) != nil {
		sc.invalid = true // loading the state for the write reports it
	}
	if err := sc.fn(e); err != nil {
		return &stopScan{err}
	}
	return nil
}

// readJSON gives each the events of events.json (f) as the scan's mode
// asks: headers only (light), through the history snapshot (the
// user-local copy), or decoded whole.
func (sc *scan) readJSON(f *os.File, each func(conversation.Event) error) error {
	switch {
	case sc.light:
		return eventcodec.EachEventHeaderRead(f, each)
	case sc.silo:
		return jsonEvents(sc.dir, f, each, sc.transient) // the history snapshot's events, then the rest
	default:
		return eventcodec.EachEventRead(f, each)
	}
}

func (sc *scan) run() error {
	var logEvents []conversation.Event
	logIDs := map[string]bool{}
	if sc.silo {
		// The log first (see readSiloEvents): a fold running meanwhile
		// cannot hide events.
		var err error
		var size int64
		if logEvents, sc.partial, size, err = readLog(filepath.Join(sc.dir, logFile)); err != nil {
			return err
		}
		for _, e := range logEvents {
			if e.ID != "" {
				logIDs[e.ID] = true
			}
		}
		if sc.seed != nil {
			sc.seed.logSize = size
		}
	}
	jsonPath := filepath.Join(sc.dir, eventsFile)
	f, err := os.Open(jsonPath)
	switch {
	case isNotExist(err):
	case err != nil:
		return fmt.Errorf("read events: %w", err)
	default:
		defer func() { _ = f.Close() }()
		if sc.seed != nil {
			fi, err := f.Stat()
			if err != nil {
				return fmt.Errorf("read events: %w", err)
			}
			// The recorded count sizes the IDs' map once (growing it to
			// 100,000 IDs rehashes it a dozen times); it may lag a little.
			sc.seed.json = fi
			hint := 0
			if m, err := readMeta(sc.dir, "", false); err == nil {
				hint = m.EventsCount
			}
			sc.seed.stream = conversation.EmptyStream(hint + len(logEvents))
		}
		each := func(e conversation.Event) error {
			if logIDs[e.ID] {
				delete(logIDs, e.ID) // folded already (a fold cut before the log's removal)
				sc.dups++
			}
			return sc.emit(e)
		}
		err = sc.readJSON(f, each)
		var stop *stopScan
		if err != nil && !errors.As(err, &stop) {
			err = &ports.CorruptError{Path: jsonPath, Err: err}
		}
		if err != nil {
			return err
		}
	}
	for _, e := range logEvents {
		if e.ID != "" && !logIDs[e.ID] {
			continue
		}
		if err := sc.emit(e); err != nil {
			return err
		}
	}
	if sc.silo {
		if ev, ok := readPartialAt(sc.dir, sc.n, sc.open); ok {
			sc.block = true
			return sc.emit(ev)
		}
	}
	return nil
}
