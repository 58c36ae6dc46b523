package fsstore

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/internal/gitignore"
	"github.com/jpcli/jp/ports"
)

// put writes files (a name ending in "/" is a directory), their times
// set age ago.
func put(t *testing.T, age time.Duration, paths ...string) {
	t.Helper()
	then := time.Now().Add(-age)
	for _, p := range paths {
		var err error
		if p[len(p)-1] == '/' {
			err = os.MkdirAll(p, 0o700)
		} else if err = os.MkdirAll(filepath.Dir(p), 0o700); err == nil {
			err = os.WriteFile(p, []byte("[]\n"), 0o600)
		}
		if err == nil {
			err = os.Chtimes(p, then, then)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// present fails the test unless each path's existence is want.
func present(t *testing.T, want bool, paths ...string) {
	t.Helper()
	for _, p := range paths {
		_, err := os.Lstat(p)
		if got := err == nil; got != want {
			t.Errorf("%s exists = %v, want %v (%v)", p, got, want, err)
		}
	}
}

// A write to roots/ or active/ removes the temp files a killed write left
// there a minute ago or more, and nothing else.
func TestRootsAndActiveWritesSweepTemps(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	id := sc.create(t, ports.NewConversation{Title: "a"})
	roots, active := filepath.Join(sc.silo(t), rootsDir), filepath.Join(sc.silo(t), activeDir)
	var old, kept []string
	for _, d := range []string{roots, active} {
		o := filepath.Join(d, ".0123456789abcdef.json.tmp-0123456789ab")
		k := []string{filepath.Join(d, ".0123456789abcdef.json.tmp-ba9876543210"), filepath.Join(d, ".notes.tmp-mine")}
		put(t, 2*time.Minute, o, k[1])
		put(t, 0, k[0])
		old, kept = append(old, o), append(kept, k...)
	}
	if err := sc.s.Register(t.Context(), sc.ws); err != nil {
		t.Fatal(err)
	}
	present(t, false, old[0])
	present(t, true, old[1])
	if err := sc.s.SetActive(t.Context(), sc.loc, id); err != nil {
		t.Fatal(err)
	}
	present(t, false, old[1])
	present(t, true, kept...)
}

// Creating a conversation removes what killed creations left in the
// silo's conversations directory a minute ago or more: a staging
// directory, and a conversation directory without metadata.json holding
// only what a creation writes. A directory holding a draft or another
// file, or a fresh one, stays; none of them is ever listed.
func TestCreateSweepsUnfinishedConversations(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	sc.create(t, ports.NewConversation{Title: "first"})
	convs := filepath.Join(sc.silo(t), convsDir)
	staging := filepath.Join(convs, stagingPrefix+"123")
	unfinished := filepath.Join(convs, "17000000000")
	rust := filepath.Join(convs, "17000000001-a-title")
	drafted := filepath.Join(convs, "17000000002")
	foreign := filepath.Join(convs, "17000000003")
	fresh := filepath.Join(convs, "17000000004")
	put(t, 2*time.Minute,
		filepath.Join(staging, eventsFile),
		filepath.Join(unfinished, eventsFile), filepath.Join(unfinished, ".metadata.json.tmp-0123456789ab"),
		filepath.Join(rust, eventsFile),
		filepath.Join(drafted, eventsFile), filepath.Join(drafted, draftFile),
		filepath.Join(foreign, "notes.md"),
	)
	put(t, 0, filepath.Join(fresh, eventsFile))
	put(t, 2*time.Minute, staging+"/", unfinished+"/", rust+"/", drafted+"/", foreign+"/")
	l, err := sc.s.List(t.Context(), sc.loc)
	if err != nil || len(l) != 1 {
		t.Fatalf("List = %d conversations, %v; want the first only", len(l), err)
	}
	sc.clock.Advance(1e9)
	sc.create(t, ports.NewConversation{Title: "second"})
	present(t, false, staging, unfinished, rust)
	present(t, true, drafted, foreign, fresh)
}

// A fork given events and then an error leaves nothing behind.
func TestCreateFromErrorLeavesNothing(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	ev := sc.ev
	errStop := os.ErrDeadlineExceeded
	_, err := sc.s.CreateFrom(t.Context(), sc.loc, ports.NewConversation{Title: "f"}, func(add func(conversation.Event) error) error {
		for _, e := range ev.Turn(sc.root, "q", 1) {
			if err := add(e); err != nil {
				return err
			}
		}
		return errStop
	})
	if err != errStop {
		t.Fatalf("CreateFrom = %v, want fill's error as it is", err)
	}
	for _, d := range []string{filepath.Join(sc.silo(t), convsDir), filepath.Join(sc.root, dotJP, convsDir)} {
		names, err := readDirNames(d)
		if err != nil || len(names) != 0 {
			t.Errorf("%s holds %v (%v), want nothing", d, names, err)
		}
	}
}

// The .gitignore jp init writes keeps the temp files of jp's writes (in
// .jp/ and in the checkout copies) out of what git would add.
func TestInitGitignoreHidesTempFiles(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	sc.create(t, ports.NewConversation{Title: "a"})
	conv := filepath.Join(sc.root, dotJP, convsDir)
	names, err := readDirNames(conv)
	if err != nil || len(names) != 1 {
		t.Fatalf("checkout conversations %v, %v", names, err)
	}
	put(t, 0,
		filepath.Join(sc.root, dotJP, ".config.toml.tmp-0123456789ab"),
		filepath.Join(conv, names[0], ".events.json.tmp-0123456789ab"),
	)
	var walked []string
	err = gitignore.Walk(context.Background(), os.DirFS(sc.root), ".", gitignore.Options{}, func(p string, _ fs.DirEntry, err error) error {
		walked = append(walked, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".jp/.gitignore", ".jp/.id", ".jp/config.toml", ".jp/conversations/" + names[0] + "/events.json", ".jp/conversations/" + names[0] + "/metadata.json"}
	slices.Sort(walked)
	if !slices.Equal(walked, want) {
		t.Fatalf("git would add %q, want %q", walked, want)
	}
}

// A draft path that is a directory is not a draft jp wrote: deleting the
// draft leaves it, with what it holds, and is not an error.
func TestDeleteDraftLeavesWhatJPDidNotWrite(t *testing.T) {
	t.Parallel()
	sc := newScene(t)
	for _, inside := range []bool{true, false} {
		id := sc.create(t, ports.NewConversation{Title: "a"})
		dir := filepath.Join(sc.siloConv(t, id), draftFile)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if inside {
			if err := os.WriteFile(filepath.Join(dir, "notes"), []byte("mine"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := sc.s.DeleteDraft(t.Context(), sc.loc, id); err != nil {
			t.Fatalf("DeleteDraft: %v", err)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Fatalf("the directory at the draft path is gone: %v", err)
		}
		sc.clock.Advance(1e9)
	}
	// A draft jp wrote is still removed.
	id := sc.create(t, ports.NewConversation{Title: "b"})
	if _, err := sc.s.WriteDraft(t.Context(), sc.loc, id, "queued", ""); err != nil {
		t.Fatal(err)
	}
	if err := sc.s.DeleteDraft(t.Context(), sc.loc, id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(sc.siloConv(t, id), draftFile)); !os.IsNotExist(err) {
		t.Fatalf("draft still there: %v", err)
	}
}
