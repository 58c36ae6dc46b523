// Package jsonl reads newline-delimited lines of bounded length: the one
// line reader of the plugin protocol, on jp's side (adapters/pluginproc)
// and the plugin's (adapters/pluginsdk).
package jsonl

import (
	"bufio"
	"errors"
	"io"
)

// ErrTooLong is returned for a line longer than the limit; the caller
// words it for its side of the pipe.
var ErrTooLong = errors.New("line too long")

// ReadLine reads one line without its newline, appending to buf (a line
// begun before, or nil). A last line without a newline is returned before
// io.EOF. A line longer than max bytes gives ErrTooLong. On another error
// the part read so far is returned with it (a caller whose read was cut
// short by a deadline passes it back as buf).
func ReadLine(br *bufio.Reader, buf []byte, max int) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			frag = frag[:len(frag)-1]
			if len(buf)+len(frag) > max {
				return nil, ErrTooLong
			}
			if buf == nil {
				return append([]byte(nil), frag...), nil
			}
			return append(buf, frag...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(buf)+len(frag) > max {
				return nil, ErrTooLong
			}
			buf = append(buf, frag...)
		case errors.Is(err, io.EOF) && len(buf)+len(frag) > 0:
			if len(buf)+len(frag) > max {
				return nil, ErrTooLong
			}
			return append(buf, frag...), nil
		default:
			return append(buf, frag...), err
		}
	}
}
