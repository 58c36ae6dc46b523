package fsstore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// TestLostUserLocalEventsAreReported: an empty or missing user-local
// events.json beside a metadata.json that counts events is reported like
// an unparsable file by every read and write, and neither copy is
// touched: the checkout copy keeps the history, and the line says how to
// recover it.
func TestLostUserLocalEventsAreReported(t *testing.T) {
	scanOp := op{"ScanEvents", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		return s.ScanEvents(bg, loc, id, func(conversation.Event) error { return nil })
	}}
	for _, missing := range []bool{false, true} {
		name := "empty"
		if missing {
			name = "missing"
		}
		t.Run(name, func(t *testing.T) {
			sc := newScene(t)
			id := sc.create(t, ports.NewConversation{})
			sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 1)...)
			path := filepath.Join(sc.siloConv(t, id), "events.json")
			proj := filepath.Join(sc.root, ".jp", "conversations", string(id), "events.json")
			before := readFile(t, proj)
			if missing {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(t, path, nil)
			}
			for _, o := range []op{opEvents, scanOp, opAppend, opUpdate} {
				s, err := New(sc.s.DataDir(), sc.clock)
				if err != nil {
					t.Fatal(err)
				}
				err = o.fn(s, sc, sc.loc, id)
				var ce *ports.CorruptError
				if !errors.As(err, &ce) || ce.Path != path || !strings.Contains(err.Error(), "metadata.json counts 6 events") ||
					!strings.Contains(err.Error(), "cp '"+proj+"' '"+path+"'") {
					t.Errorf("%s = %v, want a *ports.CorruptError naming %s and the checkout copy", o.name, err, path)
				}
				if got := readFile(t, proj); !bytes.Equal(got, before) {
					t.Fatalf("%s changed the checkout copy to %q", o.name, got)
				}
				_, statErr := os.Stat(path)
				if missing != os.IsNotExist(statErr) || (!missing && len(readFile(t, path)) != 0) {
					t.Fatalf("%s touched the user-local events.json (%v)", o.name, statErr)
				}
			}
		})
	}
}
