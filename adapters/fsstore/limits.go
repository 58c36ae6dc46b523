package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// DefaultMaxEventsBytes is the largest events.json the store reads
// (conversation.limits.conversation_bytes's default, 256 MiB): a bigger
// one, in the user-local copy or in a checkout (where anyone who can
// commit can put one), is refused before it is read rather than
// exhausting memory.
const DefaultMaxEventsBytes = config.DefaultConversationBytes

// MaxEventsEnv is the environment variable that sets the limit, in bytes.
const MaxEventsEnv = "JP_MAX_EVENTS_BYTES"

// LimitKey is the configuration key of the limit.
const LimitKey = "conversation.limits.conversation_bytes"

// WithMaxEventsBytes sets the largest events.json the store reads
// ($JP_MAX_EVENTS_BYTES): it wins over WithEventsLimit. 0 or less keeps
// the default.
func WithMaxEventsBytes(n int64) Option {
	return func(s *Store) {
		if n > 0 {
			s.maxEvents, s.limit.fixed = n, true
		}
	}
}

// WithEventsLimit gives the store the configured limit
// (conversation.limits.conversation_bytes): fn is called once, when the
// first events.json is checked, unless WithMaxEventsBytes set one; 0 or
// less keeps the default.
func WithEventsLimit(fn func() int64) Option {
	return func(s *Store) { s.limit.fn = fn }
}

// eventsLimit is how the store's limit was set.
type eventsLimit struct {
	fixed bool         // by WithMaxEventsBytes
	fn    func() int64 // see WithEventsLimit
	once  sync.Once
}

// maxEventsBytes is the limit, reading the configured one the first time.
func (s *Store) maxEventsBytes() int64 {
	s.limit.once.Do(func() {
		if s.limit.fixed || s.limit.fn == nil {
			return
		}
		if n := s.limit.fn(); n > 0 {
			s.maxEvents = n
		}
	})
	return s.maxEvents
}

// ParseMaxEventsBytes reads the value of JP_MAX_EVENTS_BYTES: a number of
// bytes, or of KiB, MiB or GiB with that suffix ("512MiB").
func ParseMaxEventsBytes(v string) (int64, error) {
	unit := int64(1)
	num := v
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if len(v) > len(u.suffix) && v[len(v)-len(u.suffix):] == u.suffix {
			num, unit = v[:len(v)-len(u.suffix)], u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/unit {
		return 0, fmt.Errorf("%s=%q is not a size: give a positive number of bytes, or of KiB, MiB or GiB (e.g. %s=512MiB)", MaxEventsEnv, v, MaxEventsEnv)
	}
	return n * unit, nil
}

// checkEventsSize refuses an events.json in dir larger than the limit,
// from its size alone: nothing of it is read. A missing file passes.
func (s *Store) checkEventsSize(dir string) error {
	path := filepath.Join(dir, eventsFile)
	fi, err := os.Stat(path)
	limit := s.maxEventsBytes()
	if err != nil || fi.Size() <= limit {
		return nil // a read that follows reports what is wrong
	}
	if s.limit.fixed {
		return fmt.Errorf("%s is %s, more than the %s jp reads (%s); it was not read: raise the limit (e.g. %s=%dMiB) if you trust the file, or remove the conversation",
			path, byteSize(fi.Size()), byteSize(limit), MaxEventsEnv, MaxEventsEnv, nextLimit(fi.Size()))
	}
	return fmt.Errorf("%s is %s, more than the %s jp reads (%s); it was not read: raise %s in your user config.toml (or %s=%dMiB for one command) if you trust the file, or remove the conversation",
		path, byteSize(fi.Size()), byteSize(limit), LimitKey, LimitKey, MaxEventsEnv, nextLimit(fi.Size()))
}

// nextLimit is a round limit above size, in MiB.
func nextLimit(size int64) int64 { return size>>20 + 1 }

// byteSize writes a size in the largest binary unit that keeps it whole
// or above 1.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// checkoutStream builds the stream state of a checkout copy's events.json
// (in dir) as the events stream from the file, a chunk at a time: the
// events are checked, not kept. A missing file has no events; an empty
// one, or one that does not decode or breaks the stream's invariants, is
// a *ports.CorruptError.
func checkoutStream(dir string) (*conversation.Stream, error) {
	path := filepath.Join(dir, eventsFile)
	f, err := os.Open(path)
	if isNotExist(err) {
		return conversation.EmptyStream(0), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	defer func() { _ = f.Close() }()
	if fi, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	} else if fi.Size() == 0 {
		return nil, &ports.CorruptError{Path: path, Err: errors.New("it is empty")}
	}
	st := conversation.EmptyStream(0)
	n := 0
	err = eventcodec.EachEventRead(f, func(e conversation.Event) error {
		e.FillID(n)
		n++
		if err := st.Apply(e); err != nil {
			return fmt.Errorf("event %d: %w", n-1, err)
		}
		return nil
	})
	if err != nil {
		return nil, &ports.CorruptError{Path: path, Err: err}
	}
	return st, nil
}
