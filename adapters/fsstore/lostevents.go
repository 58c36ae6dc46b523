package fsstore

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// checkSiloEvents fails with a *ports.CorruptError when the user-local
// events.json of the conversation at p is empty (0 bytes) or missing
// while its metadata.json counts events. jp never writes such a file
// (a new conversation starts with "[]"), so the history was lost by
// something else: reading it as an empty conversation would show nothing
// and the next turn would replace the checkout copy, which may still hold
// that history, with the new turn only. Nothing is written; the line
// says where the history may still be.
func checkSiloEvents(p place, id conversation.ID) error {
	path := filepath.Join(p.siloConv, eventsFile)
	fi, err := os.Stat(path)
	if err == nil && fi.Size() > 0 {
		return nil
	}
	state := "it is empty"
	if isNotExist(err) {
		state = "it is missing"
	} else if err != nil {
		return fmt.Errorf("read events of conversation %s: %w", id, err)
	}
	meta, err := readMeta(p.siloConv, id, p.archived())
	if err != nil || !meta.HasEventsCount || meta.EventsCount == 0 {
		return nil // a count read from the events themselves, or none: nothing is known lost
	}
	hint := fmt.Sprintf("jp never writes an empty events.json and will not start conversation %s over; restore the file from a backup, then run jp again", id)
	if p.inProj && checkoutHolds(p.projConv) {
		proj := filepath.Join(p.projConv, eventsFile)
		hint = fmt.Sprintf("the checkout copy still holds the history and was left as it is: recover it with cp '%s' '%s', then run jp again", proj, path)
	}
	return &ports.CorruptError{Path: path, Err: fmt.Errorf("%s, but metadata.json counts %d events", state, meta.EventsCount), Hint: hint}
}

// checkoutHolds reports whether the checkout copy in dir has an
// events.json with at least one element (by its first bytes, not parsed).
func checkoutHolds(dir string) bool {
	f, err := os.Open(filepath.Join(dir, eventsFile))
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	head := make([]byte, 64)
	n, _ := f.Read(head)
	for _, c := range head[:n] {
		switch c {
		case ' ', '\t', '\r', '\n', '[':
			continue
		case ']':
			return false
		default:
			return true
		}
	}
	return false
}

// id is the conversation's ID, from its directory's name.
func (p place) id() conversation.ID {
	id, _ := listName(p.name)
	return id
}

// readDir is where the conversation's events are read from: the
// user-local copy when there is one, else the checkout copy.
func (p place) readDir() string {
	if p.inSilo {
		return p.siloConv
	}
	return p.projConv
}
