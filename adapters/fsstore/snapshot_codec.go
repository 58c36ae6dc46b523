package fsstore

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"
	"unsafe"

	"github.com/jpcli/jp/adapters/eventcodec"
	"github.com/jpcli/jp/domain/conversation"
)

// The records of a history snapshot (see snapshot.go). Each event of a
// block is one record: how far its stored form (Raw) starts after the
// previous one ends, and its length; then either nothing (kind recJSON:
// the event is decoded from Raw when read, as events.json's reader
// decodes it) or its decoded fields (kind recFields). A string field that
// is a part of Raw as stored (no escapes in it) is recorded by its
// position in Raw, so reading it copies nothing; any other is recorded
// whole. Events of a shape the fields do not hold (attachments, a
// compaction overlay, a time not in UTC) are recJSON: rare, and exactly
// as a plain read makes them.
const (
	recJSON   = 0
	recFields = 1
)

// errSnapRecord is a record that does not read: the snapshot is ignored.
var errSnapRecord = errors.New("history snapshot: bad record")

// strFields are the event's string fields a record holds, in order.
func strFields(e *conversation.Event) [16]*string {
	return [...]*string{&e.ID, &e.Root, &e.Content, &e.Author, &e.Message, &e.Reasoning, &e.Signature,
		&e.Model, &e.StopReason, &e.CallID, &e.Name, &e.InquiryID, &e.Question, &e.AnswerType, &e.Kind,
		(*string)(&e.Outcome)}
}

// rawFields are the event's JSON fields a record holds, in order.
func rawFields(e *conversation.Event) [5]*json.RawMessage {
	return [...]*json.RawMessage{&e.Schema, &e.Arguments, &e.Answer, &e.Delta, &e.Metadata}
}

// fieldsFit reports whether a record's fields hold all of e.
func fieldsFit(e *conversation.Event) bool {
	return e.Compaction == nil && e.Attachments == nil && e.Timestamp.Location() == time.UTC && e.Raw != nil
}

// within returns where p[:n] starts in raw, or -1 when it is not in it.
func within(p *byte, n int, raw []byte) int {
	if n == 0 || len(raw) == 0 {
		return -1
	}
	a, r := uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	if a < r || a+uintptr(n) > r+uintptr(len(raw)) {
		return -1
	}
	return int(a - r)
}

// appendBytes records one field: by its place in raw, or whole.
func appendBytes(dst []byte, p *byte, n int, raw []byte) []byte {
	if at := within(p, n, raw); at >= 0 {
		dst = binary.AppendUvarint(dst, uint64(n)<<1|1)
		return binary.AppendUvarint(dst, uint64(at))
	}
	dst = binary.AppendUvarint(dst, uint64(n)<<1)
	return append(dst, unsafe.Slice(p, n)...)
}

// appendRecord appends e's record; gap is the bytes between the previous
// event's stored form and e's.
func appendRecord(dst []byte, e *conversation.Event, gap int) []byte {
	dst = binary.AppendUvarint(dst, uint64(gap))
	dst = binary.AppendUvarint(dst, uint64(len(e.Raw)))
	if !fieldsFit(e) {
		return append(dst, recJSON)
	}
	dst = append(dst, recFields)
	dst = binary.AppendUvarint(dst, uint64(e.Type))
	dst = binary.AppendVarint(dst, e.Timestamp.Unix())
	dst = binary.AppendUvarint(dst, uint64(e.Timestamp.Nanosecond()))
	var flags uint64
	for i, b := range []bool{e.IsError, e.Legacy, e.Usage != nil, e.Files != nil} {
		if b {
			flags |= 1 << i
		}
	}
	dst = binary.AppendUvarint(dst, flags)
	var mask uint64
	for i, s := range strFields(e) {
		if *s != "" {
			mask |= 1 << i
		}
	}
	for i, r := range rawFields(e) {
		if *r != nil {
			mask |= 1 << (16 + i)
		}
	}
	dst = binary.AppendUvarint(dst, mask)
	for _, s := range strFields(e) {
		if *s != "" {
			dst = appendBytes(dst, unsafe.StringData(*s), len(*s), e.Raw)
		}
	}
	for _, r := range rawFields(e) {
		if *r != nil {
			dst = appendBytes(dst, unsafe.SliceData(*r), len(*r), e.Raw)
		}
	}
	return appendExtras(dst, e)
}

// appendExtras records the usage and the files of e.
func appendExtras(dst []byte, e *conversation.Event) []byte {
	if u := e.Usage; u != nil {
		for _, v := range []int{u.InputTokens, u.OutputTokens, u.ReasoningTokens, u.CacheReadTokens, u.CacheWriteTokens} {
			dst = binary.AppendVarint(dst, int64(v))
		}
	}
	if e.Files != nil {
		dst = binary.AppendUvarint(dst, uint64(len(e.Files)))
		for _, f := range e.Files {
			dst = appendBytes(dst, unsafe.StringData(f), len(f), e.Raw)
		}
	}
	return dst
}

// recReader reads a block's records: recs, whose strings recorded whole
// stay in it, and blk, the block's bytes of events.json, which the
// events' Raw and other strings are parts of.
type recReader struct {
	recs []byte
	blk  []byte
	pos  int // in recs
	end  int // in blk: where the last event's stored form ended
	err  bool
}

func (r *recReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.recs[r.pos:])
	if n <= 0 {
		r.err = true
		return 0
	}
	r.pos += n
	return v
}

func (r *recReader) varint() int64 {
	v, n := binary.Varint(r.recs[r.pos:])
	if n <= 0 {
		r.err = true
		return 0
	}
	r.pos += n
	return v
}

// bytes reads a field appendBytes recorded; raw is the event's Raw.
func (r *recReader) bytes(raw []byte) []byte {
	h := r.uvarint()
	n := int(h >> 1)
	if h&1 == 1 {
		at := int(r.uvarint())
		if r.err || at < 0 || n < 0 || at > len(raw) || n > len(raw)-at {
			r.err = true
			return nil
		}
		return raw[at : at+n : at+n]
	}
	if r.err || n < 0 || n > len(r.recs)-r.pos {
		r.err = true
		return nil
	}
	b := r.recs[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return b
}

func (r *recReader) str(raw []byte) string {
	b := r.bytes(raw)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// next reads the next record into e.
func (r *recReader) next(e *conversation.Event) error {
	gap, n := int(r.uvarint()), int(r.uvarint())
	start := r.end + gap
	if r.err || r.pos >= len(r.recs) || gap < 0 || n <= 0 || start < 0 || start > len(r.blk) || n > len(r.blk)-start {
		return errSnapRecord
	}
	raw := r.blk[start : start+n : start+n]
	r.end = start + n
	kind := r.recs[r.pos]
	r.pos++
	switch kind {
	case recJSON:
		if err := eventcodec.UnmarshalShared(raw, e); err != nil {
			return errSnapRecord // it read when the snapshot was made
		}
		return nil
	case recFields:
		return r.fields(e, raw)
	}
	return errSnapRecord
}

// fields reads a recFields record's fields into e.
func (r *recReader) fields(e *conversation.Event, raw []byte) error {
	*e = conversation.Event{Type: conversation.EventType(r.uvarint()), Raw: raw}
	sec, nsec := r.varint(), r.uvarint()
	e.Timestamp = time.Unix(sec, int64(nsec)).UTC()
	flags, mask := r.uvarint(), r.uvarint()
	e.IsError, e.Legacy = flags&1 != 0, flags&2 != 0
	for i, s := range strFields(e) {
		if mask&(1<<i) != 0 {
			*s = r.str(raw)
		}
	}
	for i, f := range rawFields(e) {
		if mask&(1<<(16+i)) != 0 {
			*f = r.bytes(raw)
		}
	}
	if flags&4 != 0 {
		e.Usage = &conversation.Usage{InputTokens: int(r.varint()), OutputTokens: int(r.varint()),
			ReasoningTokens: int(r.varint()), CacheReadTokens: int(r.varint()), CacheWriteTokens: int(r.varint())}
	}
	if flags&8 != 0 {
		n := r.uvarint()
		if n > uint64(len(r.recs)) {
			return errSnapRecord
		}
		e.Files = make([]string, n)
		for i := range e.Files {
			e.Files[i] = r.str(raw)
		}
	}
	if r.err {
		return errSnapRecord
	}
	return nil
}
