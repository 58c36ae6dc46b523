package fsstore

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

var bg = context.Background()

// op is one store call that must report a corrupt file.
type op struct {
	name string
	fn   func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error
}

var (
	opGet = op{"Get", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		_, err := s.Get(bg, loc, id)
		return err
	}}
	opList = op{"List", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		_, err := s.List(bg, loc)
		return err
	}}
	opEvents = op{"Events", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		_, err := s.Events(bg, loc, id)
		return err
	}}
	opAppend = op{"Append", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		return s.Append(bg, loc, id, sc.ev.TurnStart(loc.Root))
	}}
	opUpdate = op{"UpdateMetadata", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		return s.UpdateMetadata(bg, loc, id, func(m *conversation.Metadata) error { m.Title = "x"; return nil })
	}}
	opLocal = op{"LocalMetadata", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		_, err := s.LocalMetadata(bg, loc, id)
		return err
	}}
	opUpdateLocal = op{"UpdateLocalMetadata", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		return s.UpdateLocalMetadata(bg, loc, id, func(*conversation.LocalMetadata) error { return nil })
	}}
	opFind = op{"Find", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		_, err := s.Find(bg, sc.root)
		return err
	}}
	opReadID = op{"ReadID", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		_, err := s.ReadID(bg, sc.root)
		return err
	}}
	opInit = op{"Init", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		_, err := s.Init(bg, sc.root)
		if !errors.Is(err, ports.ErrExists) {
			return errors.New("Init did not refuse")
		}
		return err
	}}
	opKnown = op{"Known", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		_, err := s.Known(bg)
		return err
	}}
	opLookup = op{"Lookup", func(s *Store, sc *scene, loc workspace.Location, id conversation.ID) error {
		_, err := s.Lookup(bg, sc.ws.ID)
		return err
	}}
)

func TestCorruptFilesAreReportedAndLeftAlone(t *testing.T) {
	garbage := []byte(`{"title": "half a fi`)
	cases := []struct {
		name     string
		file     func(sc *scene, t *testing.T, id conversation.ID) string
		projOnly bool
		ops      []op
	}{
		{"silo metadata.json", func(sc *scene, t *testing.T, id conversation.ID) string {
			return filepath.Join(sc.siloConv(t, id), "metadata.json")
		}, false, []op{opGet, opList, opAppend, opUpdate}},
		{"silo events.json", func(sc *scene, t *testing.T, id conversation.ID) string {
			return filepath.Join(sc.siloConv(t, id), "events.json")
		}, false, []op{opEvents, opAppend, opUpdate}},
		{"events.log", func(sc *scene, t *testing.T, id conversation.ID) string {
			return filepath.Join(sc.siloConv(t, id), "events.log")
		}, false, []op{opEvents, opAppend, opUpdate}},
		{"metadata.local.json", func(sc *scene, t *testing.T, id conversation.ID) string {
			return filepath.Join(sc.siloConv(t, id), "metadata.local.json")
		}, false, []op{opGet, opList, opLocal, opUpdateLocal, opAppend, opUpdate}},
		{"projected metadata.json", func(sc *scene, t *testing.T, id conversation.ID) string {
			return filepath.Join(sc.root, ".jp", "conversations", string(id), "metadata.json")
		}, true, []op{opGet, opAppend, opUpdate, opUpdateLocal}}, // List: TestUnreadableCheckoutCopyIsListedApart
		{"projected events.json", func(sc *scene, t *testing.T, id conversation.ID) string {
			return filepath.Join(sc.root, ".jp", "conversations", string(id), "events.json")
		}, true, []op{opEvents, opAppend, opUpdateLocal}},
		{".jp/.id", func(sc *scene, t *testing.T, id conversation.ID) string {
			return filepath.Join(sc.root, ".jp", ".id")
		}, false, []op{opFind, opReadID, opInit}},
		{"roots record", func(sc *scene, t *testing.T, id conversation.ID) string {
			return filepath.Join(sc.silo(t), "roots", workspace.RootKey(sc.root)+".json")
		}, false, []op{opKnown, opLookup}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := newScene(t)
			var id conversation.ID
			if tc.projOnly {
				id = "17000000000"
				seedProjection(t, sc.root, id, conversation.Metadata{Title: "theirs"}, sc.ev.Turn(sc.root, "q", 0))
			} else {
				id = sc.create(t, ports.NewConversation{})
				sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 1)...)
			}
			path := tc.file(sc, t, id)
			garbage := garbage
			if filepath.Base(path) == "events.log" {
				garbage = append(garbage, '\n') // a whole line: not a torn write
			}
			writeFile(t, path, garbage)
			for _, o := range tc.ops {
				// A fresh store each time: nothing cached hides the file.
				s, err := New(sc.s.DataDir(), sc.clock)
				if err != nil {
					t.Fatal(err)
				}
				err = o.fn(s, sc, sc.loc, id)
				var ce *ports.CorruptError
				if !errors.As(err, &ce) || ce.Path != path || !errors.Is(err, ports.ErrCorrupt) {
					t.Errorf("%s = %v, want a *ports.CorruptError naming %s", o.name, err, path)
				}
				if got := readFile(t, path); !bytes.Equal(got, garbage) {
					t.Fatalf("%s changed the corrupt file to %q", o.name, got)
				}
			}
		})
	}
}

// TestUnreadableCheckoutCopyIsListedApart: a checkout copy's metadata.json
// that does not parse (merge-conflict markers) does not stop the listing:
// the others are listed, and that one comes with Unreadable naming the
// file, which is left as it was.
func TestUnreadableCheckoutCopyIsListedApart(t *testing.T) {
	sc := newScene(t)
	mine := sc.create(t, ports.NewConversation{Title: "mine"})
	good, bad := conversation.ID("17000000000"), conversation.ID("17000000001")
	seedProjection(t, sc.root, good, conversation.Metadata{Title: "theirs"}, sc.ev.Turn(sc.root, "q", 0))
	seedProjection(t, sc.root, bad, conversation.Metadata{Title: "conflicted"}, sc.ev.Turn(sc.root, "q", 0))
	path := filepath.Join(sc.root, ".jp", "conversations", string(bad), "metadata.json")
	conflict := []byte("{\n<<<<<<< HEAD\n  \"title\": \"a\"\n=======\n  \"title\": \"b\"\n>>>>>>> theirs\n}\n")
	writeFile(t, path, conflict)
	list, err := sc.s.List(bg, sc.loc)
	if err != nil {
		t.Fatalf("List = %v", err)
	}
	got := map[conversation.ID]conversation.Summary{}
	for _, s := range list {
		got[s.ID] = s
	}
	if len(list) != 3 || got[mine].Unreadable != nil || got[good].Metadata.Title != "theirs" || got[good].Unreadable != nil {
		t.Fatalf("List = %+v", list)
	}
	var ce *ports.CorruptError
	if !errors.As(got[bad].Unreadable, &ce) || ce.Path != path {
		t.Fatalf("the conflicted one: %v, want a *ports.CorruptError naming %s", got[bad].Unreadable, path)
	}
	if b := readFile(t, path); !bytes.Equal(b, conflict) {
		t.Fatalf("List changed the file to %q", b)
	}
}
