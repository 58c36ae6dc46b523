package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"io"
)

// readChunk is how much of events.json EachEventRead reads at a time.
const readChunk = 1 << 20

// EachEventRead is EachEvent over the array r holds, read a chunk at a
// time: a conversation's events.json need not be in memory at once. The
// events' strings (and Raw) share the chunk they were read from, which
// stays in memory while anything holds one of them. Input that is empty
// or JSON white space is an empty array. When the array is not in the form the chunked scan reads, it is read
// again from the start and decoded whole, as EachEvent does, and fn gets
// only the events it has not had (or the error).
func EachEventRead(r io.ReadSeeker, fn func(conversation.Event) error) error {
	return eachEventRead(r, readChunk, false, fn)
}

// EachEventHeaderRead is EachEventRead giving events without their big
// values (decodeLight): what a copy of the stored bytes looks at (types,
// IDs, call IDs and names, timestamps, outcomes, attachments), with Raw
// the event as stored, which is what the copy writes.
func EachEventHeaderRead(r io.ReadSeeker, fn func(conversation.Event) error) error {
	return eachEventRead(r, readChunk, true, fn)
}

// eachEventRead is EachEventRead with chunks of the given size. The next
// chunk is read and decoded while fn takes the events of this one: fn
// (a transcript, the stream checker) is about as long as the decoding,
// and a machine has more than one core.
func eachEventRead(r io.ReadSeeker, chunk int, light bool, fn func(conversation.Event) error) error {
	n := 0 // events fn had
	a := arrayChunks{r: r, chunk: chunk, light: light}
	var windows [2][]conversation.Event
	cur := a.decodeNext(windows[0])
	for w := 1; ; w ^= 1 {
		if cur.err != nil {
			return cur.err
		}
		if !cur.ok {
			return eachWhole(r, n, fn)
		}
		windows[w^1] = cur.evs[:cap(cur.evs)]
		var next chan decodedChunk
		if !cur.last {
			next = make(chan decodedChunk, 1)
			go func() { next <- a.decodeNext(windows[w]) }()
		}
		for k := range cur.evs {
			cur.evs[k].FillID(n)
			if err := fn(cur.evs[k]); err != nil {
				if next != nil {
					<-next // the decoding goroutine ends before this returns
				}
				return err
			}
			n++
		}
		if next == nil {
			return nil
		}
		cur = <-next
	}
}

// decodedChunk is the events of a chunk, decoded.
type decodedChunk struct {
	evs  []conversation.Event
	ok   bool  // false: the chunked split or the fast decoding gave up
	last bool  // the array ended
	err  error // reading failed
}

// decodeNext reads and decodes the next chunk into window (grown when too
// small).
func (a *arrayChunks) decodeNext(window []conversation.Event) decodedChunk {
	elems, ok, err := a.next()
	if err != nil || !ok {
		return decodedChunk{err: err}
	}
	if len(elems) > len(window) {
		window = make([]conversation.Event, len(elems))
	}
	evs := window[:len(elems)]
	if !decodeAll(evs, elems, a.light) {
		return decodedChunk{}
	}
	return decodedChunk{evs: evs, ok: true, last: a.st == arrayDone && a.eof && len(a.carry) == 0}
}

// eachWhole reads r whole from its start and gives fn its events after
// the first skip, as EachEvent decodes them.
func eachWhole(r io.ReadSeeker, skip int, fn func(conversation.Event) error) error {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	i := 0
	return EachEvent(b, func(e conversation.Event) error {
		if i++; i <= skip {
			return nil
		}
		return fn(e)
	})
}

// The states of arrayChunks between tokens.
const (
	arrayBefore = iota // before '['
	arrayOpen          // after '[': a value or ']'
	arrayValue         // after a value: ',' or ']'
	arrayComma         // after ',': a value
	arrayDone          // after ']': only white space
)

// arrayChunks splits a JSON array read from r into its elements, a chunk
// at a time. Each chunk is a new buffer (the elements of earlier chunks
// stay valid); the part of an element cut by the chunk's end is carried
// into the next one.
type arrayChunks struct {
	r     io.Reader
	chunk int
	carry []byte
	elems [][]byte // reused from chunk to chunk
	eof   bool
	st    int
	light bool // decode the elements' headers only (decodeLight)
}

// next returns the complete elements of the next chunk (at least one
// unless the array ended); ok is false when the input is not an array
// this split reads (the caller decodes it whole instead).
func (a *arrayChunks) next() (elems [][]byte, ok bool, err error) {
	elems = a.elems[:0]
	defer func() { a.elems = elems }()
	for {
		buf := make([]byte, len(a.carry), max(a.chunk, 2*len(a.carry)))
		copy(buf, a.carry)
		m, err := io.ReadFull(a.r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		switch err {
		case nil:
		case io.EOF, io.ErrUnexpectedEOF:
			a.eof = true
		default:
			return nil, false, err
		}
		rest, ok := a.split(buf, &elems)
		if !ok {
			return nil, false, nil
		}
		a.carry = buf[rest:]
		if a.eof {
			if skipSpace(a.carry, 0) < len(a.carry) || (a.st != arrayDone && a.st != arrayBefore) {
				return nil, false, nil // cut short, or something follows the array
			}
			a.st, a.carry = arrayDone, nil
			return elems, true, nil
		}
		if len(elems) > 0 {
			return elems, true, nil
		}
	}
}

// split appends to elems the complete elements of b from a's state on,
// advancing it; rest is where the part not split yet starts.
func (a *arrayChunks) split(b []byte, elems *[][]byte) (rest int, ok bool) {
	for i := 0; ; {
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, true
		}
		c := b[i]
		switch a.st {
		case arrayBefore:
			if c != '[' {
				return i, false
			}
			a.st, i = arrayOpen, i+1
		case arrayOpen, arrayComma:
			if c == ']' && a.st == arrayOpen {
				a.st, i = arrayDone, i+1
				continue
			}
			end, complete := valueEnd(b, i)
			if !complete || end == len(b) && c != '{' && c != '[' {
				// Cut by the chunk's end (a number may go on): read on.
				if a.eof {
					return i, false
				}
				return i, true
			}
			*elems = append(*elems, b[i:end])
			a.st, i = arrayValue, end
		case arrayValue:
			switch c {
			case ',':
				a.st = arrayComma
			case ']':
				a.st = arrayDone
			default:
				return i, false
			}
			i++
		default: // arrayDone
			return i, false
		}
	}
}
