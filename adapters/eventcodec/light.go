package eventcodec

import (
	"bytes"
	"encoding/json"

	"github.com/jpcli/jp/domain/conversation"
)

// bigKeys are the storedKeys (as bits of their index) whose values can be
// megabytes and that a copy of the stored bytes never looks at: a chat's
// content, message and reasoning, a tool call's arguments and result, an
// inquiry's answer, a schema. The first three are strings (bigStrings);
// the others any JSON value.
var bigKeys, bigStrings = keyBits("content", "message", "reasoning", "schema", "arguments", "answer"), keyBits("content", "message", "reasoning")

// keyBits is the set of the storedKeys given, as bits of their index.
func keyBits(keys ...string) uint32 {
	var m uint32
	for _, k := range keys {
		m |= 1 << keyIndex([]byte(k))
	}
	return m
}

// decodeLight decodes the stored event b as decodeScratch does (Raw is b),
// except that the big values (bigKeys) are only checked to be valid JSON,
// not decoded: their fields stay empty. A fork that copies events as they
// are stored needs their type, IDs, call IDs and names, timestamps,
// outcomes and attachments (its invariant checks and its selection of
// turns), never a message's text. An event stored on more than one line,
// which the copy encodes again rather than copying, and one the fast
// scanner does not read, are decoded whole.
func decodeLight(e *conversation.Event, b []byte, w *storedEvent) error {
	if bytes.IndexByte(b, '\n') < 0 {
		*w = storedEvent{}
		if scanStoredMode(b, w, true) {
			return fromStored(e, w, b)
		}
	}
	return decodeScratch(e, b, false, true, w)
}

// validSkipped reports whether v, the value valueEnd delimited of the big
// field k, decodes, as decoding it would have found: a string (for a
// string field) without control bytes and with valid escapes
// (encoding/json takes invalid UTF-8, replacing it), or any JSON value
// (json.Valid) for the others.
func validSkipped(k int, v []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return bigStrings&(1<<k) == 0 && json.Valid(v)
	}
	body := v[1 : len(v)-1]
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c < 0x20:
			return false
		case c == '\\':
			if !validEscape(body, i+1) {
				return false
			}
			i++
		}
	}
	return v[len(v)-1] == '"'
}

// validEscape reports whether the escape whose letter is at b[i] is one
// JSON has: \" \\ \/ \b \f \n \r \t, or \u and four hex digits.
func validEscape(b []byte, i int) bool {
	if i >= len(b) {
		return false
	}
	switch b[i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return true
	case 'u':
		if i+5 > len(b) {
			return false
		}
		for _, c := range b[i+1 : i+5] {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
		return true
	}
	return false
}
