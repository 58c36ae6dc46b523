package conversation

import (
	"bytes"
	"io"
	"strings"
)

// readChunk is how much of events.json EachEventRead reads at a time.
const readChunk = 1 << 20

// EachEventRead is EachEvent over the array r holds, read a chunk at a
// time: a conversation's events.json need not be in memory at once. The
// events' strings (and Raw) share the chunk they were read from, which
// stays in memory while anything holds one of them: Detached copies an
// event out of it. Input that is empty or JSON white space is an empty array.
// When the array is not in the form the chunked scan reads, it is read
// again from the start and decoded whole, as EachEvent does, and fn gets
// only the events it has not had (or the error).
func EachEventRead(r io.ReadSeeker, fn func(Event) error) error {
	return eachEventRead(r, readChunk, fn)
}

// eachEventRead is EachEventRead with chunks of the given size.
func eachEventRead(r io.ReadSeeker, chunk int, fn func(Event) error) error {
	n := 0 // events fn had
	a := arrayChunks{r: r, chunk: chunk}
	var evs []Event
	for {
		elems, ok, err := a.next()
		if err != nil {
			return err
		}
		if !ok {
			return eachWhole(r, n, fn)
		}
		if len(elems) > len(evs) {
			evs = make([]Event, len(elems))
		}
		if !decodeAll(evs[:len(elems)], elems) {
			return eachWhole(r, n, fn)
		}
		for k := range elems {
			evs[k].FillID(n)
			if err := fn(evs[k]); err != nil {
				return err
			}
			n++
		}
		if a.st == arrayDone && a.eof && len(a.carry) == 0 {
			return nil
		}
	}
}

// eachWhole reads r whole from its start and gives fn its events after
// the first skip, as EachEvent decodes them.
func eachWhole(r io.ReadSeeker, skip int, fn func(Event) error) error {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	i := 0
	return EachEvent(b, func(e Event) error {
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

// Detached is e with its own copy of every string and byte slice, and no
// Raw: an event read by EachEventRead keeps the whole chunk it was read
// from while one of its strings is held; a detached one keeps nothing of it.
func (e Event) Detached() Event {
	d := e
	d.ID, d.Root, d.Content, d.Author = strings.Clone(e.ID), strings.Clone(e.Root), strings.Clone(e.Content), strings.Clone(e.Author)
	d.Message, d.Reasoning, d.Signature, d.Model = strings.Clone(e.Message), strings.Clone(e.Reasoning), strings.Clone(e.Signature), strings.Clone(e.Model)
	d.StopReason, d.CallID, d.Name = strings.Clone(e.StopReason), strings.Clone(e.CallID), strings.Clone(e.Name)
	d.InquiryID, d.Question, d.AnswerType, d.Kind = strings.Clone(e.InquiryID), strings.Clone(e.Question), strings.Clone(e.AnswerType), strings.Clone(e.Kind)
	d.Schema, d.Arguments, d.Answer, d.Metadata = cloneRaw(e.Schema), cloneRaw(e.Arguments), cloneRaw(e.Answer), cloneRaw(e.Metadata)
	d.Raw = nil
	if e.Files != nil {
		d.Files = make([]string, len(e.Files))
		for i, f := range e.Files {
			d.Files[i] = strings.Clone(f)
		}
	}
	if e.Attachments != nil {
		d.Attachments = make([]Attachment, len(e.Attachments))
		for i, at := range e.Attachments {
			d.Attachments[i] = Attachment{
				Source: strings.Clone(at.Source), MediaType: strings.Clone(at.MediaType), Content: strings.Clone(at.Content),
				Data: bytes.Clone(at.Data), Size: at.Size, SHA256: strings.Clone(at.SHA256),
			}
		}
	}
	if e.Usage != nil {
		u := *e.Usage
		d.Usage = &u
	}
	return d
}

func cloneRaw(b []byte) []byte {
	if b == nil {
		return nil
	}
	return bytes.Clone(b)
}
