package fsstore

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/ports"
)

// TestLegacyApprovalsNeverReachTheCheckout: approvals an older version
// kept in the user-local metadata.json stay there (they are still read
// from that copy) but the checkout copy written from it has none.
func TestLegacyApprovalsNeverReachTheCheckout(t *testing.T) {
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{})
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "q", 1)...)
	siloMeta := filepath.Join(sc.siloConv(t, id), "metadata.json")
	b := readFile(t, siloMeta)
	b = bytes.Replace(b, []byte(`"events_count"`), []byte(`"approved_tools": ["shell"], "events_count"`), 1)
	writeFile(t, siloMeta, b)
	if err := sc.s.UpdateMetadata(bg, sc.loc, id, func(m *conversation.Metadata) error { m.Title = "t"; return nil }); err != nil {
		t.Fatal(err)
	}
	proj := readFile(t, filepath.Join(sc.root, ".jp", "conversations", string(id), "metadata.json"))
	if bytes.Contains(proj, []byte("approved_tools")) || !bytes.Contains(proj, []byte(`"title": "t"`)) {
		t.Fatalf("checkout copy = %s", proj)
	}
	sum, err := sc.s.Get(bg, sc.loc, id)
	if err != nil || len(sum.Metadata.LegacyApprovedTools()) != 1 {
		t.Fatalf("user-local approvals = %v (%v)", sum.Metadata.LegacyApprovedTools(), err)
	}
}

// TestImportDropsCheckoutApprovals: a conversation shipped in the
// checkout, imported by a write, brings neither its approvals nor a
// last_activated_at later than now into the user-local copy.
func TestImportDropsCheckoutApprovals(t *testing.T) {
	for _, o := range []op{opAppend, opUpdate, opUpdateLocal} {
		t.Run(o.name, func(t *testing.T) {
			sc := newScene(t)
			id := conversation.ID("17000000000")
			future := sc.clock.Now().AddDate(50, 0, 0)
			seedProjection(t, sc.root, id, conversation.Metadata{Title: "theirs", LastActivatedAt: future}, sc.ev.Turn(sc.root, "q", 0))
			path := filepath.Join(sc.root, ".jp", "conversations", string(id), "metadata.json")
			writeFile(t, path, bytes.Replace(readFile(t, path), []byte(`"events_count"`), []byte(`"approved_tools": ["shell"], "events_count"`), 1))
			if err := o.fn(sc.s, sc, sc.loc, id); err != nil {
				t.Fatal(err)
			}
			b := readFile(t, filepath.Join(sc.siloConv(t, id), "metadata.json"))
			if bytes.Contains(b, []byte("approved_tools")) {
				t.Fatalf("user-local copy = %s", b)
			}
			sum, err := sc.s.Get(bg, sc.loc, id)
			if err != nil || sum.Metadata.LastActivatedAt.After(sc.clock.Now()) {
				t.Fatalf("last_activated_at = %v, now %v (%v)", sum.Metadata.LastActivatedAt, sc.clock.Now(), err)
			}
		})
	}
}
