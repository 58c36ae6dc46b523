package fsstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// ScanEvents calls fn with each of the conversation's events in order, as
// Events returns them, decoding events.json as it reads it: the first
// event reaches fn before the file is read whole, and memory stays that
// of one event (and of the log's, which a fold keeps small).
func (s *Store) ScanEvents(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(conversation.Event) error) error {
	p, err := s.find(ctx, loc, id, "read events")
	if err != nil {
		return err
	}
	dir := p.projConv
	if p.inSilo {
		dir = p.siloConv
	}
	err = scanDir(dir, p.inSilo, fn)
	var stop *stopScan
	if errors.As(err, &stop) {
		return stop.err
	}
	if err != nil {
		return fmt.Errorf("conversation %s: %w", id, err)
	}
	return nil
}

// stopScan carries an error of the caller's fn out of the scan unwrapped.
type stopScan struct{ err error }

func (e *stopScan) Error() string { return e.err.Error() }

// scanDir streams the events of a conversation directory: events.json,
// then (silo) the log's events it does not hold yet and the block in
// flight, as readSiloEvents reads them.
func scanDir(dir string, silo bool, fn func(conversation.Event) error) error {
	var logEvents []conversation.Event
	logIDs := map[string]bool{}
	logPath := filepath.Join(dir, logFile)
	if silo {
		// The log first (see readSiloEvents): a fold running meanwhile
		// cannot hide events.
		var err error
		if logEvents, _, err = readLog(logPath); err != nil {
			return err
		}
		for _, e := range logEvents {
			if e.ID != "" {
				logIDs[e.ID] = true
			}
		}
	}
	n, open := 0, false
	emit := func(e conversation.Event) error {
		e.FillID(n)
		switch e.Type {
		case conversation.EventTypeTurnStart:
			open = true
		case conversation.EventTypeTurnEnd:
			open = false
		}
		n++
		if err := fn(e); err != nil {
			return &stopScan{err}
		}
		return nil
	}
	jsonPath := filepath.Join(dir, eventsFile)
	f, err := os.Open(jsonPath)
	switch {
	case isNotExist(err):
	case err != nil:
		return fmt.Errorf("read events: %w", err)
	default:
		defer func() { _ = f.Close() }()
		err := scanArray(bufio.NewReaderSize(f, 64<<10), func(b []byte) error {
			var e conversation.Event
			if err := e.UnmarshalJSON(b); err != nil {
				return &ports.CorruptError{Path: jsonPath, Err: err}
			}
			delete(logIDs, e.ID) // folded already (a fold cut before the log's removal)
			return emit(e)
		})
		var stop *stopScan
		if err != nil && !errors.As(err, &stop) && !errors.As(err, new(*ports.CorruptError)) {
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
		if err := emit(e); err != nil {
			return err
		}
	}
	if silo {
		if ev, ok := readPartialAt(dir, n, open); ok {
			return emit(ev)
		}
	}
	return nil
}

// scanArray calls fn with the bytes of each element of the JSON array r
// holds (valid only during the call). An empty file is an empty array.
func scanArray(r *bufio.Reader, fn func([]byte) error) error {
	c, err := nextNonSpace(r)
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	if c != '[' {
		return fmt.Errorf("events.json does not start with '[' but %q", c)
	}
	var buf []byte
	c, err = nextNonSpace(r)
	for err == nil && c != ']' {
		if buf, err = readValue(r, c, buf[:0]); err != nil {
			return err
		}
		if err := fn(buf); err != nil {
			return err
		}
		if c, err = nextNonSpace(r); err != nil || c == ']' {
			break
		}
		if c != ',' {
			return fmt.Errorf("%q where ',' or ']' should be in events.json", c)
		}
		c, err = nextNonSpace(r)
	}
	if err != nil {
		return unexpected(err)
	}
	if _, err := nextNonSpace(r); err != io.EOF {
		return errors.New("something follows the array in events.json")
	}
	return nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func nextNonSpace(r *bufio.Reader) (byte, error) {
	for {
		c, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return c, nil
		}
	}
}

// readValue appends to buf the JSON value that starts with c (read
// already) and returns it. It follows brackets and strings only; the
// value's own syntax is checked when it is decoded.
func readValue(r *bufio.Reader, c byte, buf []byte) ([]byte, error) {
	buf = append(buf, c)
	if c != '{' && c != '[' {
		return nil, fmt.Errorf("%q where an event should start in events.json", c)
	}
	depth := 1
	for depth > 0 {
		c, err := r.ReadByte()
		if err != nil {
			return nil, unexpected(err)
		}
		buf = append(buf, c)
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			for {
				c, err := r.ReadByte()
				if err != nil {
					return nil, unexpected(err)
				}
				buf = append(buf, c)
				if c == '\\' {
					c, err := r.ReadByte()
					if err != nil {
						return nil, unexpected(err)
					}
					buf = append(buf, c)
				} else if c == '"' {
					break
				}
			}
		}
	}
	return buf, nil
}
