package conversation

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrLastRootMismatch is wrapped by every refusal of CheckLastRoot.
var ErrLastRootMismatch = errors.New("last root does not match")

// LastRootError refuses a turn: it carries the record as stored, with its
// derived Live flag, so a frontend can show it and ask again.
type LastRootError struct {
	Current LastRoot
	Reason  string
}

func (e *LastRootError) Error() string { return e.Reason }

// Unwrap makes errors.Is(err, ErrLastRootMismatch) true.
func (e *LastRootError) Unwrap() error { return ErrLastRootMismatch }

// CheckLastRoot applies the last-root precondition before a turn in root
// starts (under the conversation lock). stored is the record (nil when
// absent) and live its derived liveness; expected is the request's
// expected_last_root (nil when not sent). Records compare by path and
// last_used; a live flag the caller echoes back is ignored.
//
//   - absent record: the turn runs;
//   - expected sent: it must equal the stored record (a confirmation of a
//     dead record, or an inferred continuation), else the record moved;
//   - not sent: a live record for another checkout refuses the turn naming
//     it; a dead record refuses it until confirmed; a record for root
//     itself lets it run.
func CheckLastRoot(root string, stored *LastRoot, live bool, expected *LastRoot) error {
	if stored == nil {
		if expected != nil {
			return &LastRootError{Reason: "this conversation has no last-root record any more: send the query again without expected_last_root"}
		}
		return nil
	}
	cur := *stored
	cur.Live = &live
	send := SendRecord(*stored)
	if expected != nil {
		if !stored.SameRecord(*expected) {
			return &LastRootError{Current: cur, Reason: fmt.Sprintf(
				"the conversation last ran in %s at %s, not where expected_last_root says: it moved since it was read; show the new record, and to run the turn in this checkout send the query again with %s",
				stored.Path, stored.LastUsed.UTC().Format(time.RFC3339), send)}
		}
		return nil
	}
	switch {
	case stored.Path == root:
		return nil
	case live:
		return &LastRootError{Current: cur, Reason: fmt.Sprintf(
			"the conversation last ran in %s, another checkout: to continue it there, address that checkout; to run the turn in this checkout, send the query again with %s", stored.Path, send)}
	}
	return &LastRootError{Current: cur, Reason: fmt.Sprintf(
		"the conversation last ran in %s, a worktree that no longer exists: to run the turn in this checkout, send the query again with %s", stored.Path, send)}
}

// SendRecord is the exact request field that confirms the record r:
// "expected_last_root":{"path":...,"last_used":...}, as a refusal quotes
// it for the plugin to send.
func SendRecord(r LastRoot) string {
	b, err := json.Marshal(struct {
		Path     string    `json:"path"`
		LastUsed time.Time `json:"last_used"`
	}{r.Path, r.LastUsed})
	if err != nil {
		return "expected_last_root set to the record"
	}
	return `"expected_last_root":` + string(b)
}
