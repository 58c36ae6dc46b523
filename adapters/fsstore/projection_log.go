package fsstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// errNotArray: the user-local events.json does not end like an array of
// one event a line, so its checkout copy cannot be written from it and
// the log without folding the log first.
var errNotArray = errors.New("events.json does not end like an array of one event a line")

// siloLog opens the complete lines of the log of the silo conversation
// dir; a nil reader when there is none.
func siloLog(dir string) (io.Reader, func(), error) {
	f, err := os.Open(filepath.Join(dir, logFile))
	if isNotExist(err) {
		return nil, func() {}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() == 0 {
		_ = f.Close()
		return nil, func() {}, nil
	}
	var lines io.Reader
	if err == nil {
		lines, err = completeLines(f, fi.Size())
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return lines, func() { _ = f.Close() }, nil
}

// projectEvents writes dst, the checkout copy of the events of the silo
// conversation siloConv: its events.json followed by the log's complete
// lines, as a fold would write them (a long conversation's turn end
// leaves its events in the log; its checkout copy is complete all the
// same). Without a log it is a copy of events.json. It fails with
// errNotArray when events.json cannot be extended so.
func (s *Store) projectEvents(siloConv, dst string) error {
	log, done, err := siloLog(siloConv)
	if err != nil {
		return err
	}
	defer done()
	src := filepath.Join(siloConv, eventsFile)
	if log == nil {
		return s.copyFile(src, dst, 0o644)
	}
	ok, err := s.appendToArray(src, dst, 0o644, log)
	if err == nil && !ok {
		err = errNotArray
	}
	return err
}

// sameAsProjection reports whether the file at path holds exactly what
// projectEvents writes for siloConv now: the checkout copy this store
// wrote, unchanged, which need not be parsed again.
func sameAsProjection(path, siloConv string) bool {
	log, done, err := siloLog(siloConv)
	if err != nil {
		return false
	}
	defer done()
	if log == nil {
		return sameContent(path, filepath.Join(siloConv, eventsFile))
	}
	a, ok, err := openArray(filepath.Join(siloConv, eventsFile))
	if err != nil || !ok {
		return false
	}
	defer a.close()
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	cw := &compareWriter{r: bufio.NewReaderSize(f, 64<<10)}
	if a.writeTo(cw, log) != nil {
		return false
	}
	_, err = cw.r.ReadByte()
	return err == io.EOF // and nothing follows
}

// compareWriter takes bytes and checks them against what r holds next.
type compareWriter struct {
	r   *bufio.Reader
	buf []byte
}

var errDiffers = errors.New("differs")

func (c *compareWriter) Write(p []byte) (int, error) {
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	b := c.buf[:len(p)]
	if _, err := io.ReadFull(c.r, b); err != nil || !bytes.Equal(b, p) {
		return 0, fmt.Errorf("checkout copy: %w", errDiffers)
	}
	return len(p), nil
}
