// Package conversation holds the conversation model of jp: IDs, the events
// of docs/storage.md, metadata, and the invariants every event stream keeps.
//
// It does no I/O. Storage lives in adapters/fsstore and adapters/memstore;
// the on-disk format is described in docs/storage.md.
package conversation

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ID identifies a conversation within a workspace: a decisecond Unix
// timestamp written as a decimal string, e.g. "17127583920".
type ID string

// ErrInvalidID is returned by ParseID for a string that is not a
// conversation ID.
var ErrInvalidID = errors.New("invalid conversation ID")

// maxIDLen bounds IDs so that a hostile string cannot become a huge path.
const maxIDLen = 20

// ParseID validates s as a conversation ID. Only ASCII digits are accepted,
// so an ID can never carry path characters such as "/" or "..".
func ParseID(s string) (ID, error) {
	if s == "" || len(s) > maxIDLen {
		return "", fmt.Errorf("%w %q: expected a decimal timestamp such as 17127583920", ErrInvalidID, s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", fmt.Errorf("%w %q: expected a decimal timestamp such as 17127583920", ErrInvalidID, s)
		}
	}
	return ID(s), nil
}

// NewID returns the ID for a conversation created at t.
func NewID(t time.Time) ID {
	return ID(strconv.FormatInt(t.UnixMilli()/100, 10))
}

// Next returns the ID one decisecond after id. Stores use it to resolve a
// collision when two conversations are created within one decisecond.
func (id ID) Next() ID {
	n, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil {
		return id
	}
	return ID(strconv.FormatInt(n+1, 10))
}

// Time returns the creation time encoded in the ID.
func (id ID) Time() time.Time {
	n, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(n * 100).UTC()
}

// String returns the ID as stored.
func (id ID) String() string { return string(id) }
