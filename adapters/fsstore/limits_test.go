package fsstore

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// TestOversizedEventsAreRefusedUnread: an events.json over the limit, in
// the user-local copy or in a checkout copy, is refused in one line by
// every read and write, and neither copy changes.
func TestOversizedEventsAreRefusedUnread(t *testing.T) {
	scanOp := op{"ScanEvents", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		return s.ScanEvents(bg, loc, id, func(conversation.Event) error { return nil })
	}}
	for _, checkoutOnly := range []bool{false, true} {
		name := "user-local"
		if checkoutOnly {
			name = "checkout-only"
		}
		t.Run(name, func(t *testing.T) {
			sc := newScene(t)
			var id conversation.ID
			var path string
			if checkoutOnly {
				id = "17000000000"
				seedProjection(t, sc.root, id, conversation.Metadata{Title: "theirs"}, sc.ev.Turn(sc.root, "q", 0))
				path = filepath.Join(sc.root, ".jp", "conversations", string(id), "events.json")
			} else {
				id = sc.create(t, ports.NewConversation{})
				sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 1)...)
				path = filepath.Join(sc.siloConv(t, id), "events.json")
			}
			before := readFile(t, path)
			limit := int64(len(before) - 1)
			for _, o := range []op{opEvents, scanOp, opAppend, opUpdate, opUpdateLocal} {
				if o.name == "UpdateLocalMetadata" && !checkoutOnly {
					continue // reads no events
				}
				s, err := New(sc.s.DataDir(), sc.clock, WithMaxEventsBytes(limit))
				if err != nil {
					t.Fatal(err)
				}
				err = o.fn(s, sc, sc.loc, id)
				if err == nil || !strings.Contains(err.Error(), path+" is ") || !strings.Contains(err.Error(), "it was not read") ||
					!strings.Contains(err.Error(), MaxEventsEnv) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s = %v, want one line refusing %s", o.name, err, path)
				}
				if got := readFile(t, path); !bytes.Equal(got, before) {
					t.Fatalf("%s changed %s", o.name, path)
				}
				if checkoutOnly {
					if _, err := os.Stat(sc.siloConv(t, id)); !os.IsNotExist(err) {
						t.Fatalf("%s imported the conversation (%v)", o.name, err)
					}
				}
			}
			// At the limit it is read.
			s, err := New(sc.s.DataDir(), sc.clock, WithMaxEventsBytes(int64(len(before))))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Events(bg, sc.loc, id); err != nil {
				t.Fatalf("Events at the limit: %v", err)
			}
		})
	}
}

// TestCheckoutCopyOverTheLimitStopsATurn: a conversation in both places
// whose checkout copy grew past the limit (a commit) stops the turn
// before the copy is read, and leaves it as it was.
func TestCheckoutCopyOverTheLimitStopsATurn(t *testing.T) {
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 1)...)
	path := filepath.Join(sc.root, ".jp", "conversations", string(id), "events.json")
	big := append(bytes.Repeat([]byte(" "), 4096), readFile(t, path)...)
	writeFile(t, path, big)
	s, err := New(sc.s.DataDir(), sc.clock, WithMaxEventsBytes(4096))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Append(bg, sc.loc, id, sc.ev.TurnStart(sc.root))
	if err == nil || !strings.Contains(err.Error(), path+" is ") {
		t.Fatalf("Append = %v, want the checkout copy refused", err)
	}
	if got := readFile(t, path); !bytes.Equal(got, big) {
		t.Fatal("the checkout copy changed")
	}
}

func TestParseMaxEventsBytes(t *testing.T) {
	for in, want := range map[string]int64{"1000": 1000, "4KiB": 4096, "512MiB": 512 << 20, "1GiB": 1 << 30} {
		if got, err := ParseMaxEventsBytes(in); err != nil || got != want {
			t.Errorf("ParseMaxEventsBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "12MB", "lots", "99999999999GiB"} {
		if _, err := ParseMaxEventsBytes(in); err == nil || !strings.Contains(err.Error(), MaxEventsEnv) {
			t.Errorf("ParseMaxEventsBytes(%q) = %v, want an error naming %s", in, err, MaxEventsEnv)
		}
	}
}

// TestConfiguredEventsLimit: the configured limit
// (conversation.limits.conversation_bytes) is read once, on the first
// check, refuses a bigger events.json in one line naming the size, the
// limit and the key, and gives way to JP_MAX_EVENTS_BYTES.
func TestConfiguredEventsLimit(t *testing.T) {
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 1)...)
	path := filepath.Join(sc.siloConv(t, id), "events.json")
	size := int64(len(readFile(t, path)))
	calls := 0
	limit := func() int64 { calls++; return size - 1 }
	s, err := New(sc.s.DataDir(), sc.clock, WithEventsLimit(limit))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		err = s.ScanEvents(bg, sc.loc, id, func(conversation.Event) error { return nil })
		want := path + " is " + byteSize(size) + ", more than the " + byteSize(size-1) + " jp reads (" + LimitKey + "); it was not read: raise " + LimitKey
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("ScanEvents = %v, want one line containing %q", err, want)
		}
	}
	if calls != 1 {
		t.Fatalf("the configured limit was read %d times, want once", calls)
	}
	// JP_MAX_EVENTS_BYTES wins, and the configuration is then not read.
	calls = 0
	s, err = New(sc.s.DataDir(), sc.clock, WithEventsLimit(limit), WithMaxEventsBytes(size))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Events(bg, sc.loc, id); err != nil || calls != 0 {
		t.Fatalf("Events under JP_MAX_EVENTS_BYTES = %v (configuration read %d times)", err, calls)
	}
	// No configured limit (0) keeps the default.
	s, err = New(sc.s.DataDir(), sc.clock, WithEventsLimit(func() int64 { return 0 }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Events(bg, sc.loc, id); err != nil {
		t.Fatalf("Events under the default limit: %v", err)
	}
}
