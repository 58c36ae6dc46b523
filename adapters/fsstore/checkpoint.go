package fsstore

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

var _ ports.BlockCheckpoints = (*Store)(nil)

// The checkpoint of the block in flight is events.partial in the silo's
// conversation directory: a header line, then one JSON string per line,
// each a piece of the block's text, appended as the block streams. It is
// never fsynced: it guards against a killed process, whose writes the
// kernel keeps, not against a power cut. A line cut short by the kill is
// ignored, so a reader gets every piece written before it.
//
// The header records how many events the conversation had when the block
// began (after): once any event is recorded after that, the checkpoint is
// stale (its block was recorded, or the turn moved on) and is ignored.

// partialHeader is the first line of events.partial.
type partialHeader struct {
	ID        string    `json:"id"`
	Timestamp time.Time `json:"timestamp"`
	After     int       `json:"after"`
	Reasoning bool      `json:"reasoning,omitempty"`
}

// CheckpointBlock implements ports.BlockCheckpoints.
func (s *Store) CheckpointBlock(ctx context.Context, loc workspace.Location, id conversation.ID, text string, reasoning, fresh bool) error {
	p, unlock, err := s.begin(ctx, loc, id, "checkpoint block")
	if err != nil {
		return err
	}
	defer unlock()
	if !p.inSilo {
		return nil // nothing was recorded yet: the block has no turn to join
	}
	path := filepath.Join(p.siloConv, partialFile)
	chunk, err := json.Marshal(text)
	if err != nil {
		return fmt.Errorf("checkpoint block of conversation %s: %w", id, err)
	}
	chunk = append(chunk, '\n')
	flags := os.O_WRONLY | os.O_APPEND
	var data []byte
	if fresh {
		st, err := s.streamFor(p)
		if err != nil {
			return fmt.Errorf("checkpoint block of conversation %s: %w", id, err)
		}
		var rnd [8]byte
		if _, err := io.ReadFull(s.rand, rnd[:]); err != nil {
			return fmt.Errorf("checkpoint block of conversation %s: %w", id, err)
		}
		h, err := json.Marshal(partialHeader{
			ID: "partial-" + hex.EncodeToString(rnd[:]), Timestamp: s.clock.Now().UTC(),
			After: st.stream.Len(), Reasoning: reasoning,
		})
		if err != nil {
			return fmt.Errorf("checkpoint block of conversation %s: %w", id, err)
		}
		data = append(append(h, '\n'), chunk...)
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		s.setCheckpointing(p.siloConv, true)
	} else {
		data = chunk
	}
	f, err := os.OpenFile(path, flags|noFollow, 0o600)
	if isNotExist(err) && !fresh {
		return nil // dropped meanwhile: the block was recorded
	}
	if err != nil {
		return fmt.Errorf("checkpoint block of conversation %s: %w", id, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("checkpoint block of conversation %s: %w", id, err)
	}
	return nil
}

// DropCheckpoint implements ports.BlockCheckpoints.
func (s *Store) DropCheckpoint(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	p, unlock, err := s.begin(ctx, loc, id, "drop checkpoint")
	if err != nil {
		return err
	}
	defer unlock()
	if !p.inSilo {
		return nil
	}
	if err := s.dropPartial(p.siloConv); err != nil {
		return fmt.Errorf("drop checkpoint of conversation %s: %w", id, err)
	}
	return nil
}

// setCheckpointing records whether this process writes dir's checkpoint.
func (s *Store) setCheckpointing(dir string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.ckpts[dir] = true
	} else {
		delete(s.ckpts, dir)
	}
}

// checkpointing reports whether this process writes dir's checkpoint.
func (s *Store) checkpointing(dir string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ckpts[dir]
}

// dropPartial removes dir's events.partial.
func (s *Store) dropPartial(dir string) error {
	s.setCheckpointing(dir, false)
	if err := os.Remove(filepath.Join(dir, partialFile)); err != nil && !isNotExist(err) {
		return err
	}
	return nil
}

// readPartial returns the event the checkpoint in dir stands for when it
// still applies to evs (no event was recorded after the block began, and
// the turn is open); ok is false otherwise, and for no checkpoint.
func readPartial(dir string, evs []conversation.Event) (conversation.Event, bool) {
	return readPartialAt(dir, len(evs), turnOpen(evs))
}

// readPartialAt is readPartial after n events, the last turn open or not.
func readPartialAt(dir string, n int, open bool) (conversation.Event, bool) {
	raw, err := os.ReadFile(filepath.Join(dir, partialFile))
	if err != nil || len(raw) == 0 {
		return conversation.Event{}, false
	}
	nl := bytes.IndexByte(raw, '\n')
	if nl < 0 {
		return conversation.Event{}, false
	}
	var h partialHeader
	if err := json.Unmarshal(raw[:nl], &h); err != nil || h.ID == "" || h.Timestamp.IsZero() || h.After != n || !open {
		return conversation.Event{}, false
	}
	var text strings.Builder
	lines, _ := splitLines(raw[nl+1:])
	for _, l := range lines {
		var piece string
		if err := json.Unmarshal(l, &piece); err != nil {
			break
		}
		text.WriteString(piece)
	}
	if text.Len() == 0 {
		return conversation.Event{}, false
	}
	ev := conversation.Event{Type: conversation.EventTypeChatResponse, ID: h.ID, Timestamp: h.Timestamp}
	if h.Reasoning {
		ev.Reasoning = text.String()
	} else {
		ev.Message = text.String()
	}
	return ev, true
}

// turnOpen reports whether the last turn of evs has no turn_end.
func turnOpen(evs []conversation.Event) bool {
	for i := len(evs) - 1; i >= 0; i-- {
		switch evs[i].Type {
		case conversation.EventTypeTurnEnd:
			return false
		case conversation.EventTypeTurnStart:
			return true
		}
	}
	return false
}
