package eventcodec

import (
	"github.com/jpcli/jp/domain/conversation"

	"bytes"
	"encoding/json"
	"runtime"
	"sync"
)

// decodeChunk is how many events one decoding goroutine takes at a time.
const decodeChunk = 2048

// DecodeEvents parses the JSON array form of events.json (either stored
// form) and gives events stored without an ID one from their position
// (FillIDs). The events' Raw bytes are sub-slices of b: b must not be
// changed afterwards.
//
// events.json of a long conversation is megabytes: the array is split
// into its elements in one pass and the elements are decoded in parallel,
// each once (json.Unmarshal of the whole array would validate it first and
// then decode every element twice over). Anything the split does not
// accept, and any element that does not decode, is decoded again by
// json.Unmarshal, so errors read as they always did.
func DecodeEvents(b []byte) ([]conversation.Event, error) {
	elems, ok := splitArray(b)
	if !ok {
		return decodeEventsSlow(b)
	}
	evs := make([]conversation.Event, len(elems))
	if !decodeAll(evs, elems, false) {
		return decodeEventsSlow(b)
	}
	conversation.FillIDs(evs)
	return evs, nil
}

// decodeAll decodes elems[i] into evs[i] (sharing the elements' bytes), in
// parallel when there are many; false when one does not decode by the
// fast path. With light, the events' big values are left in Raw
// (decodeLight).
func decodeAll(evs []conversation.Event, elems [][]byte, light bool) bool {
	dec := func(e *conversation.Event, b []byte, w *storedEvent) error {
		if light {
			return decodeLight(e, b, w)
		}
		return decodeScratch(e, b, false, true, w)
	}
	workers := min(runtime.GOMAXPROCS(0), (len(elems)+decodeChunk-1)/decodeChunk)
	failed := false
	if workers <= 1 {
		var w storedEvent
		for i, el := range elems {
			if dec(&evs[i], el, &w) != nil {
				return false
			}
		}
		return true
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
	)
	for range workers {
		wg.Go(func() {
			var w storedEvent
			for {
				mu.Lock()
				lo := next
				next += decodeChunk
				stop := failed
				mu.Unlock()
				if stop || lo >= len(elems) {
					return
				}
				for i := lo; i < min(lo+decodeChunk, len(elems)); i++ {
					if dec(&evs[i], elems[i], &w) != nil {
						mu.Lock()
						failed = true
						mu.Unlock()
						return
					}
				}
			}
		})
	}
	wg.Wait()
	return !failed
}

// eachWindow is how many events EachEvent decodes before it hands them on.
const eachWindow = 2 * decodeChunk

// EachEvent is DecodeEvents calling fn with each event in order instead of
// returning them all: the array is split and decoded a window of events at
// a time (in parallel), and the window is reused, so a conversation of
// 100,000 events costs its bytes (which the events' strings share: b must
// not be changed afterwards) and one window, not 100,000 Event values. An
// error of fn is returned as it is, and ends the walk. When the array does
// not decode by the fast path, json.Unmarshal decodes it whole and gives
// the error (after fn had the events before the fault) or the events fn has
// not had yet.
func EachEvent(b []byte, fn func(conversation.Event) error) error {
	n := 0 // events fn had
	slow := func() error {
		evs, err := decodeEventsSlow(b)
		if err != nil {
			return err
		}
		for _, e := range evs[min(n, len(evs)):] {
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return slow()
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		if skipSpace(b, i+1) != len(b) {
			return slow()
		}
		return nil
	}
	elems := make([][]byte, 0, eachWindow)
	evs := make([]conversation.Event, eachWindow)
	for done := false; !done; {
		elems = elems[:0]
		for len(elems) < eachWindow && !done {
			end, ok := valueEnd(b, i)
			if !ok {
				return slow()
			}
			elems = append(elems, b[i:end])
			if i = skipSpace(b, end); i >= len(b) {
				return slow()
			}
			switch b[i] {
			case ',':
				i = skipSpace(b, i+1)
			case ']':
				if skipSpace(b, i+1) != len(b) {
					return slow()
				}
				done = true
			default:
				return slow()
			}
		}
		if !decodeAll(evs[:len(elems)], elems, false) {
			return slow()
		}
		for k := range elems {
			evs[k].FillID(n)
			if err := fn(evs[k]); err != nil {
				return err
			}
			n++
		}
	}
	return nil
}

// decodeEventsSlow is DecodeEvents by json.Unmarshal of the whole array.
func decodeEventsSlow(b []byte) ([]conversation.Event, error) {
	var js []JSON
	if err := json.Unmarshal(b, &js); err != nil {
		return nil, err
	}
	evs := make([]conversation.Event, len(js))
	for i := range js {
		evs[i] = conversation.Event(js[i])
	}
	conversation.FillIDs(evs)
	return evs, nil
}

// splitArray returns the elements of the JSON array b, or false when b is
// not an array with well-delimited elements. It checks the structure only
// (brackets, strings, commas); the elements' own syntax is checked when
// they are decoded.
func splitArray(b []byte) ([][]byte, bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, false
	}
	i = skipSpace(b, i+1)
	// jp writes one event a line: the lines are a good guess of the
	// elements, counted much faster than the slice would grow.
	elems := make([][]byte, 0, min(bytes.Count(b, []byte{'\n'})+1, len(b)/32+1))
	if i < len(b) && b[i] == ']' {
		return elems, skipSpace(b, i+1) == len(b)
	}
	for {
		end, ok := valueEnd(b, i)
		if !ok {
			return nil, false
		}
		elems = append(elems, b[i:end])
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return elems, skipSpace(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the end of the JSON value starting at b[i].
func valueEnd(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			case '"':
				end, ok := stringEnd(b, i)
				if !ok {
					return 0, false
				}
				i = end - 1
			}
		}
		return 0, false
	case '"':
		return stringEnd(b, i)
	case ',', ']', '}', ':':
		return 0, false
	}
	// A number or a literal: up to the next delimiter.
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return j, true
		}
		j++
	}
	return j, true
}

// stringEnd returns the end of the JSON string starting at b[i] (a quote).
// A message of a long conversation is kilobytes: the next quote is found
// by bytes.IndexByte (many bytes a step), and it ends the string when an
// even number of backslashes (none, or escaped ones) comes before it.
func stringEnd(b []byte, i int) (int, bool) {
	for i++; i < len(b); {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, false
		}
		q := i + j
		n := 0
		for k := q - 1; k >= i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, true
		}
		i = q + 1
	}
	return 0, false
}
