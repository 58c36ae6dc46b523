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
	return eachEventReadAt(r, chunk, light, 0, 0, func(e conversation.Event, _ int64) error { return fn(e) })
}

// eachEventReadAt is eachEventRead from offset start of r (r is there
// already): 0, or the end of an element, where before events precede it.
// fn also gets the offset of each event's stored form in r, or -1 when
// the array was decoded whole instead (then fn gets the events after the
// first before+n, n the events it had).
func eachEventReadAt(r io.ReadSeeker, chunk int, light bool, start int64, before int, fn func(conversation.Event, int64) error) error {
	n := before // events fn had, with those before start
	a := arrayChunks{r: r, chunk: chunk, light: light, read: start}
	if start > 0 {
		a.st = arrayValue
	}
	var windows [2][]conversation.Event
	cur := a.decodeNext(windows[0])
	for w := 1; ; w ^= 1 {
		if cur.err != nil {
			return cur.err
		}
		if !cur.ok {
			return eachWhole(r, n, func(e conversation.Event) error { return fn(e, -1) })
		}
		windows[w^1] = cur.evs[:cap(cur.evs)]
		var next chan decodedChunk
		if !cur.last {
			next = make(chan decodedChunk, 1)
			go func() { next <- a.decodeNext(windows[w]) }()
		}
		for k := range cur.evs {
			cur.evs[k].FillID(n)
			if err := fn(cur.evs[k], cur.offs[k]); err != nil {
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
	offs []int64 // where each event's stored form starts in the input
	ok   bool    // false: the chunked split or the fast decoding gave up
	last bool    // the array ended
	err  error   // reading failed
}

// decodeNext reads and decodes the next chunk into window (grown when too
// small).
func (a *arrayChunks) decodeNext(window []conversation.Event) decodedChunk {
	a.offs = make([]int64, 0, len(a.elems))
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
	return decodedChunk{evs: evs, offs: a.offs, ok: true, last: a.st == arrayDone && a.eof && len(a.carry) == 0}
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
	// read is the offset in the input of the end of what was read, base
	// that of the chunk being split, offs the offsets of its elements.
	read, base int64
	offs       []int64
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
		a.base = a.read - int64(len(a.carry))
		m, err := io.ReadFull(a.r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		a.read += int64(m)
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
			a.offs = append(a.offs, a.base+int64(i))
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

// EachEventReadAt is EachEventRead from offset start of r, where r is
// positioned already: 0 (the array's start) or the end of one of its
// elements, where before events precede it (their IDs count them). fn
// also gets the offset in r of each event's stored form (its Raw), or -1
// when the array was not in the form the chunked scan reads and was
// decoded whole from r's start instead (fn then gets the events after the
// first before+n, n the events it had).
func EachEventReadAt(r io.ReadSeeker, start int64, before int, fn func(e conversation.Event, off int64) error) error {
	return eachEventReadAt(r, readChunk, false, start, before, fn)
}
