package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bufio"
	"fmt"
	"io"

	"github.com/jpcli/jp/domain/conversation"
)

// logBatch is the events of one Append encoded as lines of events.log. A
// line holding a big string (a 20 MB message) is encoded as it is
// written, straight into the log, never held whole in memory.
type logBatch struct {
	whole []byte // the lines, when none holds a big string
	lines []eventcodec.StoredLine
	size  int64 // the lines' bytes, a big string's counted before encoding
}

// encodeBatch encodes evs in format f. Every encoding error is found
// here: writing the batch cannot fail but by I/O.
func encodeBatch(evs []conversation.Event, f conversation.Format) (*logBatch, error) {
	b := &logBatch{lines: make([]eventcodec.StoredLine, len(evs))}
	big := false
	for i, e := range evs {
		l, err := eventcodec.Line(e, f)
		if err != nil {
			return nil, fmt.Errorf("encode event %q: %w", e.ID, err)
		}
		b.lines[i] = l
		b.size += int64(l.MinLen()) + 1
		big = big || l.Split()
	}
	if !big {
		b.whole = make([]byte, 0, b.size)
		for _, l := range b.lines {
			b.whole = append(append(b.whole, l.Bytes()...), '\n')
		}
	}
	return b, nil
}

// WriteTo writes the lines to w: in one write when none holds a big
// string, else through a 64 KiB buffer (readers ignore the incomplete
// last line they may see meanwhile, as they do one cut by a crash).
func (b *logBatch) WriteTo(w io.Writer) (int64, error) {
	if b.whole != nil {
		n, err := w.Write(b.whole)
		return int64(n), err
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	for _, l := range b.lines {
		if _, err := l.WriteTo(bw); err != nil {
			return cw.n, err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return cw.n, err
		}
	}
	err := bw.Flush()
	return cw.n, err
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
