package fsstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/internal/testkit"
	"github.com/jpcli/jp/ports"
)

// A symbolic link under .jp/conversations is never followed: every
// operation refuses it naming the link, and the target is left alone.
func TestSymlinkInProjectionIsRefused(t *testing.T) {
	t.Parallel()
	victim := newScene(t)
	vid := victim.create(t, ports.NewConversation{Title: "secret"})
	victim.append(t, victim.loc, vid, victim.ev.Turn(victim.root, "plan", 0)...)
	vdir := victim.siloConv(t, vid)
	before := snapshotFiles(t, vdir)

	sc := newScene(t)
	link := filepath.Join(sc.root, ".jp", "conversations", string(vid))
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(vdir, link); err != nil {
		t.Fatal(err)
	}
	wantLink := func(op string, err error) {
		t.Helper()
		var le *ports.LinkError
		if !errors.As(err, &le) || le.Path != link || !errors.Is(err, ports.ErrUnsafePath) {
			t.Fatalf("%s = %v, want a LinkError naming %s", op, err, link)
		}
	}
	_, err := sc.s.List(t.Context(), sc.loc)
	wantLink("List", err)
	_, err = sc.s.Get(t.Context(), sc.loc, vid)
	wantLink("Get", err)
	_, err = sc.s.Events(t.Context(), sc.loc, vid)
	wantLink("Events", err)
	wantLink("Append", sc.s.Append(t.Context(), sc.loc, vid, sc.ev.TurnStart(sc.root)))
	wantLink("UpdateMetadata", sc.s.UpdateMetadata(t.Context(), sc.loc, vid, func(m *conversation.Metadata) error { m.Title = "x"; return nil }))
	_, err = sc.s.WriteDraft(t.Context(), sc.loc, vid, "x", "")
	wantLink("WriteDraft", err)
	if after := snapshotFiles(t, vdir); after != before {
		t.Fatalf("victim changed:\n%s\n---\n%s", before, after)
	}
}

// .jp/conversations itself a link: creating a conversation refuses it.
func TestSymlinkedConversationsDirIsRefused(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(sc.root, ".jp", "conversations")); err != nil {
		t.Fatal(err)
	}
	_, err := sc.s.Create(t.Context(), sc.loc, ports.NewConversation{})
	var le *ports.LinkError
	if !errors.As(err, &le) || !strings.HasSuffix(le.Path, filepath.Join(".jp", "conversations")) {
		t.Fatalf("Create = %v, want a LinkError", err)
	}
	if names := dirNames(t, elsewhere); len(names) != 0 {
		t.Fatalf("written through the link: %v", names)
	}
}

// A file linked in place of a managed file is refused too.
func TestSymlinkedManagedFileIsRefused(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{Title: "a"})
	target := filepath.Join(t.TempDir(), "victim")
	writeFile(t, target, []byte("precious"))
	log := filepath.Join(sc.siloConv(t, id), "events.log")
	if err := os.Symlink(target, log); err != nil {
		t.Fatal(err)
	}
	err := sc.s.Append(t.Context(), sc.loc, id, sc.ev.TurnStart(sc.root))
	if !errors.Is(err, ports.ErrUnsafePath) || !strings.Contains(err.Error(), log) {
		t.Fatalf("Append = %v, want the link refused", err)
	}
	if got := string(readFile(t, target)); got != "precious" {
		t.Fatalf("target written: %q", got)
	}
}

// A rewrite keeps the mode of the file it replaces.
func TestRewriteKeepsMode(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{Title: "a"})
	proj := filepath.Join(sc.root, ".jp", "conversations", string(id), "metadata.json")
	if err := os.Chmod(proj, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sc.s.UpdateMetadata(t.Context(), sc.loc, id, func(m *conversation.Metadata) error { m.Title = "b"; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{proj, filepath.Join(sc.siloConv(t, id), "metadata.json")} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s has mode %o, want 600", p, fi.Mode().Perm())
		}
	}
}

// A checkout copy that does not parse is never overwritten: the write
// stops naming it.
func TestCorruptCheckoutCopyIsNotOverwritten(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{Title: "a"})
	sc.append(t, sc.loc, id, sc.ev.Turn(sc.root, "hi", 0)...)
	path := filepath.Join(sc.root, ".jp", "conversations", string(id), "events.json")
	conflict := []byte("<<<<<<< HEAD\n[]\n=======\n[]\n>>>>>>> other\n")
	writeFile(t, path, conflict)
	sc2, _ := New(sc.s.DataDir(), sc.clock) // a new process: no cached stream
	err := sc2.Append(t.Context(), sc.loc, id, sc.ev.TurnStart(sc.root))
	var ce *ports.CorruptError
	if !errors.As(err, &ce) || ce.Path != path || !strings.Contains(err.Error(), "jp never overwrites the checkout copy") {
		t.Fatalf("Append = %v, want a CorruptError naming %s", err, path)
	}
	err = sc2.UpdateMetadata(t.Context(), sc.loc, id, func(m *conversation.Metadata) error { m.Title = "b"; return nil })
	if !errors.As(err, &ce) || ce.Path != path {
		t.Fatalf("UpdateMetadata = %v, want a CorruptError naming %s", err, path)
	}
	if got := readFile(t, path); string(got) != string(conflict) {
		t.Fatalf("the checkout copy was rewritten: %q", got)
	}
	if p := testkit.RepeatedPrefix(err.Error()); p != "" {
		t.Fatalf("error repeats %q: %v", p, err)
	}
}

// Register's error names the checkout once.
func TestRegisterErrorSaysItOnce(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	roots := filepath.Join(sc.silo(t), "roots")
	if err := os.RemoveAll(roots); err != nil {
		t.Fatal(err)
	}
	writeFile(t, roots, []byte("not a directory"))
	err := sc.s.Register(t.Context(), sc.ws)
	if err == nil {
		t.Fatal("Register succeeded with roots a file")
	}
	if n := strings.Count(err.Error(), "register checkout"); n != 1 {
		t.Fatalf("error says register checkout %d times: %v", n, err)
	}
	if p := testkit.RepeatedPrefix(err.Error()); p != "" {
		t.Fatalf("error repeats %q: %v", p, err)
	}
}

// The block in flight: readers see its checkpoint as the last
// chat_response; the next process that writes folds it in; a checkpoint
// followed by an event is stale.
func TestCheckpointOfTheBlockInFlight(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{Title: "a"})
	sc.append(t, sc.loc, id, sc.ev.TurnStart(sc.root), sc.ev.ChatRequest("go"))
	for i, piece := range []string{"Once ", "upon ", "a time"} {
		if err := sc.s.CheckpointBlock(t.Context(), sc.loc, id, piece, false, i == 0); err != nil {
			t.Fatal(err)
		}
	}
	// A killed writer leaves half a line: it is ignored.
	f, err := os.OpenFile(filepath.Join(sc.siloConv(t, id), "events.partial"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`"and the`)
	_ = f.Close()

	// Another process reads: the partial block is the last event.
	other, err := New(sc.s.DataDir(), sc.clock)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := other.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	if len(evs) != 3 || last.Type != conversation.EventTypeChatResponse || last.Message != "Once upon a time" {
		t.Fatalf("events %+v", evs)
	}
	if err := conversation.Validate(evs); err != nil {
		t.Fatal(err)
	}
	// It writes: the block is folded in, with the same ID, then the
	// turn goes on.
	if err := other.Append(t.Context(), sc.loc, id, sc.ev.TurnEnd(conversation.OutcomeAborted)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sc.siloConv(t, id), "events.partial")); !os.IsNotExist(err) {
		t.Fatalf("events.partial still there: %v", err)
	}
	evs, err = other.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 4 || evs[2].ID != last.ID || evs[2].Message != "Once upon a time" || evs[3].Type != conversation.EventTypeTurnEnd {
		t.Fatalf("after fold: %+v", evs)
	}
	if !strings.Contains(string(readFile(t, filepath.Join(sc.siloConv(t, id), "events.json"))), "Once upon a time") {
		t.Fatal("events.json does not hold the folded block")
	}

	// The writer that checkpoints records the block: the checkpoint goes.
	sc.append(t, sc.loc, id, sc.ev.TurnStart(sc.root), sc.ev.ChatRequest("again"))
	if err := sc.s.CheckpointBlock(t.Context(), sc.loc, id, "partial", false, true); err != nil {
		t.Fatal(err)
	}
	sc.append(t, sc.loc, id, sc.ev.Message("partial and whole"))
	evs, err = sc.s.Events(t.Context(), sc.loc, id)
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Message != "partial and whole" || evs[len(evs)-2].Type != conversation.EventTypeChatRequest {
		t.Fatalf("checkpoint not dropped: %+v", evs[len(evs)-2:])
	}
	if _, err := os.Stat(filepath.Join(sc.siloConv(t, id), "events.partial")); !os.IsNotExist(err) {
		t.Fatalf("events.partial outlived its block: %v", err)
	}
}

// snapshotFiles is the names, modes and contents of the files in dir.
func snapshotFiles(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		fi, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(e.Name() + " " + fi.Mode().String() + "\n")
		if fi.Mode().IsRegular() {
			b.Write(readFile(t, filepath.Join(dir, e.Name())))
		}
	}
	return b.String()
}

// docs/storage.md shows the refusal of a link exactly as jp prints it.
func TestStorageDocShowsTheLinkRefusal(t *testing.T) {
	t.Parallel()
	doc := string(readFile(t, filepath.Join("..", "..", "docs", "storage.md")))
	want := "jp: " + (&ports.LinkError{Path: "/src/app/.jp/conversations/17127583920"}).Error()
	if !strings.Contains(doc, "```\n"+want+"\n```\n") {
		t.Fatalf("docs/storage.md does not show the refusal as jp prints it:\n%s", want)
	}
}
