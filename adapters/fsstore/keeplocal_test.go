package fsstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/adapters/storetest"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

const outsideSecret = "AKIA-SECRET-FROM-OUTSIDE"

// filesHolding lists the files under dir that hold s.
func filesHolding(t *testing.T, dir, s string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLocalAttachmentsStayOutOfTheCheckout: the content of an attachment
// from outside the checkout (Local) is absent from every file under the
// checkout's .jp, which holds its reference (source, size, SHA-256); the
// user-local copy keeps the content and reads it back, by Events and by
// ScanEvents; an attachment of the checkout is stored whole as before. A
// long conversation (whose turn ends leave the log unfolded) too.
func TestLocalAttachmentsStayOutOfTheCheckout(t *testing.T) {
	for name, opts := range map[string][]Option{"short": nil, "long": {WithLongConversation(1)}} {
		t.Run(name, func(t *testing.T) {
			sc := newScene(t, opts...)
			id := sc.create(t, ports.NewConversation{Title: "secrets"})
			sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "first", 0)...)
			evs := sc.ev.Turn(sc.root, "read these", 0)
			evs[1].Attachments = []conversation.Attachment{
				{Source: "/home/me/.aws/credentials", MediaType: "text/plain", Content: outsideSecret + "\n", Size: int64(len(outsideSecret) + 1), Local: true},
				{Source: "notes.txt", MediaType: "text/plain", Content: "in the checkout\n", Size: 16},
			}
			sc.append(t, sc.loc, id, evs...)

			if got := filesHolding(t, filepath.Join(sc.root, ".jp"), outsideSecret); len(got) != 0 {
				t.Errorf("the secret is in the checkout: %v", got)
			}
			if got := filesHolding(t, sc.siloConv(t, id), outsideSecret); len(got) != 1 || filepath.Base(filepath.Dir(got[0])) != localDir {
				t.Errorf("user-local files holding the secret = %v, want one under %s/", got, localDir)
			}
			proj, err := readProjectionEvents(filepath.Join(sc.root, ".jp", "conversations", string(id)))
			if err != nil {
				t.Fatal(err)
			}
			ref := proj[len(proj)-3].Attachments
			if len(ref) != 2 || !ref[0].IsReference() || ref[0].Source != "/home/me/.aws/credentials" || ref[0].Size != int64(len(outsideSecret)+1) || !isDigest(ref[0].SHA256) {
				t.Errorf("checkout copy's attachment = %+v, want the reference", ref)
			}
			if ref[1].Content != "in the checkout\n" {
				t.Errorf("checkout copy's attachment of the checkout = %+v, want it whole", ref[1])
			}

			read, err := sc.s.Events(t.Context(), sc.loc, id)
			if err != nil {
				t.Fatal(err)
			}
			if a := read[len(read)-3].Attachments[0]; a.Content != outsideSecret+"\n" || !a.Local {
				t.Errorf("Events' attachment = %+v, want the content back", a)
			}
			var scanned []conversation.Attachment
			if err := sc.s.ScanEvents(t.Context(), sc.loc, id, func(e conversation.Event) error {
				if len(e.Attachments) > 0 {
					scanned = e.Attachments
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(scanned) != 2 || scanned[0].Content != outsideSecret+"\n" {
				t.Errorf("ScanEvents' attachments = %+v, want the content back", scanned)
			}
		})
	}
}

// TestLocalAttachmentInAClone: a clone has the checkout copy only; it reads
// the reference, and a turn continued there keeps the reference (unknown
// fields of the stored attachment included) as it was.
func TestLocalAttachmentInAClone(t *testing.T) {
	sc := newScene(t)
	ctx := t.Context()
	id := sc.create(t, ports.NewConversation{Title: "secrets"})
	evs := sc.ev.Turn(sc.root, "read this", 0)
	evs[1].Attachments = []conversation.Attachment{{Source: "cmd:env", MediaType: "text/plain", Content: outsideSecret, Size: int64(len(outsideSecret)), Local: true}}
	sc.append(t, sc.loc, id, evs...)

	// A future version's field on the reference, as a clone receives it.
	projEvents := filepath.Join(sc.root, ".jp", "conversations", string(id), "events.json")
	withField := bytes.Replace(readFile(t, projEvents), []byte(`"local":true`), []byte(`"local":true,"kept_by":"someone"`), 1)
	if bytes.Equal(withField, readFile(t, projEvents)) {
		t.Fatalf("no reference in the checkout copy:\n%s", readFile(t, projEvents))
	}

	elsewhere, _ := newTestStore(t)
	clone := filepath.Join(storetest.TempDir(t), "clone")
	writeFile(t, filepath.Join(clone, ".jp", ".id"), []byte(sc.ws.ID+"\n"))
	cloneConv := filepath.Join(clone, ".jp", "conversations", string(id))
	copyDir(t, filepath.Join(sc.root, ".jp", "conversations", string(id)), cloneConv)
	writeFile(t, filepath.Join(cloneConv, "events.json"), withField)
	locC := workspace.Location{ID: sc.ws.ID, Root: clone}
	read, err := elsewhere.Events(ctx, locC, id)
	if err != nil {
		t.Fatal(err)
	}
	a := read[1].Attachments[0]
	if !a.IsReference() || a.Source != "cmd:env" || !strings.Contains(a.ReferenceText(), "cmd:env: not in this copy") {
		t.Fatalf("clone's attachment = %+v, want the reference", a)
	}
	if err := elsewhere.Append(ctx, locC, id, storetest.NewEventMaker("c", storetest.Start).Turn(clone, "more", 0)...); err != nil {
		t.Fatal(err)
	}
	var first []map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join(cloneConv, "events.json")), &first); err != nil {
		t.Fatal(err)
	}
	att := first[1]["attachments"].([]any)[0].(map[string]any)
	if att["kept_by"] != "someone" || att["local"] != true || att["content"] != nil {
		t.Errorf("the clone's rewrite of the reference = %v, want it as it was", att)
	}
	if got := filesHolding(t, clone, outsideSecret); len(got) != 0 {
		t.Errorf("the secret reached the clone: %v", got)
	}
}

// TestPutBackRefusesForeignNames: a reference's digest names the file the
// content is read from; one that is not a SHA-256 (a hostile checkout
// copy naming ../../something) reads nothing.
func TestPutBackRefusesForeignNames(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "secret"), []byte("outside the kept files"))
	e := conversation.Event{Type: conversation.EventTypeChatRequest, Attachments: []conversation.Attachment{
		{Source: "x", MediaType: "text/plain", SHA256: "../secret", Local: true},
	}}
	if got := putBack(filepath.Join(dir, "conv"), e); got.Attachments[0].Content != "" {
		t.Errorf("put back %q from a name that is not a digest", got.Attachments[0].Content)
	}
	// Nor through a link in place of the attachments directory.
	elsewhere := t.TempDir()
	data := []byte("kept elsewhere")
	sum := sha256.Sum256(data)
	writeFile(t, filepath.Join(elsewhere, hex.EncodeToString(sum[:])), data)
	conv := filepath.Join(dir, "linked")
	if err := os.MkdirAll(conv, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(conv, localDir)); err != nil {
		t.Fatal(err)
	}
	e.Attachments[0].SHA256 = hex.EncodeToString(sum[:])
	if got := putBack(conv, e); got.Attachments[0].Content != "" {
		t.Errorf("put back %q through a link", got.Attachments[0].Content)
	}
	if err := os.Remove(filepath.Join(conv, localDir)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(conv, localDir, hex.EncodeToString(sum[:])), data)
	if got := putBack(conv, e); got.Attachments[0].Content != string(data) {
		t.Errorf("put back %q from the real directory, want %q", got.Attachments[0].Content, data)
	}
}

// TestLocalAttachmentsCopied: events read back (content put back, an
// image's bytes as bytes) and
// appended to another conversation, as jp conversation fork does, keep
// their content in the copy's user-local files, and out of the checkout.
func TestLocalAttachmentsCopied(t *testing.T) {
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{Title: "original"})
	evs := sc.ev.Turn(sc.root, "read this", 0)
	png := append([]byte("\x89PNG\r\n\x1a\n"), outsideSecret...)
	evs[1].Attachments = []conversation.Attachment{
		{Source: "https://example.test/x", MediaType: "text/plain", Content: outsideSecret, Local: true},
		{Source: "/home/me/pic.png", MediaType: "image/png", Data: png, Local: true},
	}
	sc.append(t, sc.loc, id, evs...)
	read, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	fork := sc.create(t, ports.NewConversation{Title: "fork"})
	sc.append(t, sc.loc, fork, read...)
	got, err := sc.s.Events(t.Context(), sc.loc, fork)
	if err != nil {
		t.Fatal(err)
	}
	if a := got[1].Attachments[0]; a.Content != outsideSecret {
		t.Errorf("the fork's attachment = %+v, want its content", a)
	}
	if a := got[1].Attachments[1]; !bytes.Equal(a.Data, png) || a.Content != "" {
		t.Errorf("the fork's image = %+v, want its bytes", a)
	}
	if files := filesHolding(t, filepath.Join(sc.root, ".jp"), outsideSecret); len(files) != 0 {
		t.Errorf("the secret is in the checkout: %v", files)
	}
}

// CreateFrom (jp c fork) keeps the content of Local attachments beside the
// copy, as Append does: the fork reads it back, and the checkout holds
// only the reference.
func TestCreateFromKeepsLocalContent(t *testing.T) {
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{Title: "original"})
	evs := sc.ev.Turn(sc.root, "read this", 0)
	evs[1].Attachments = []conversation.Attachment{{Source: "https://example.test/x", MediaType: "text/plain", Content: outsideSecret, Local: true}}
	sc.append(t, sc.loc, id, evs...)
	read, err := sc.s.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	fork, err := sc.s.CreateFrom(t.Context(), sc.loc, ports.NewConversation{Title: "fork"}, func(add func(conversation.Event) error) error {
		for _, e := range read {
			if err := add(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := sc.s.Events(t.Context(), sc.loc, fork)
	if err != nil {
		t.Fatal(err)
	}
	if a := got[1].Attachments[0]; a.Content != outsideSecret {
		t.Errorf("the fork's attachment = %+v, want its content", a)
	}
	if files := filesHolding(t, filepath.Join(sc.root, ".jp"), outsideSecret); len(files) != 0 {
		t.Errorf("the secret is in the checkout: %v", files)
	}
}
