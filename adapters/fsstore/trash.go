package fsstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// The trash: jp conversation rm moves a conversation to
// <silo>/trash/<id>-<unix-nanos>/, which holds trash.json (what was
// removed, and when) and conversation/ (the conversation's directory as it
// was in the silo, or the projection's files for a conversation that was
// only in a checkout). The trash lives in the silo, beside conversations/,
// so neither jp's listing nor the Rust jp's ever reads it.
const (
	trashDir      = "trash"
	trashInfoFile = "trash.json"
	trashConvDir  = "conversation"
)

// trashInfo is trash.json.
type trashInfo struct {
	ID conversation.ID `json:"id"`
	// Name is the directory's path relative to conversations/ (place.name),
	// where Restore puts it back.
	Name      string    `json:"name"`
	Title     string    `json:"title"`
	RemovedAt time.Time `json:"removed_at"`
}

// trashEntry is one entry of the trash on disk.
type trashEntry struct {
	dir  string
	info trashInfo
}

// Trash implements ports.ConversationStore: the conversation's silo
// directory is renamed into the trash (one rename, whatever its size); a
// conversation found only in loc.Root's projection has its files copied
// there. The projection is removed as Remove removes it.
func (s *Store) Trash(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	p, unlock, err := s.begin(ctx, loc, id, "remove conversation")
	if err != nil {
		return err
	}
	defer unlock()
	silo, err := s.ensureSilo(loc.ID, loc.Root)
	if err != nil {
		return err
	}
	if !p.inSilo && p.inProj && s.interruptedRemoval(silo, p, id) != nil {
		// A removal killed after it trashed the user-local copy: only
		// the checkout copy is left to remove.
		return s.removeCheckoutCopy(p, id)
	}
	src := p.siloConv
	if !p.inSilo {
		src = p.projConv
	}
	info := trashInfo{ID: id, Name: p.name, RemovedAt: s.clock.Now().UTC()}
	if m, err := readMeta(src, id, p.archived()); err == nil {
		info.Title = m.Title
	}
	trash := filepath.Join(silo, trashDir)
	entry := filepath.Join(trash, string(id)+"-"+strconv.FormatInt(info.RemovedAt.UnixNano(), 10))
	if err := os.MkdirAll(entry, 0o700); err != nil {
		return fmt.Errorf("remove conversation %s: %w", id, err)
	}
	if err := s.syncDir(trash); err != nil {
		return err
	}
	// trash.json first: an entry without conversation/ is debris of an
	// interrupted removal, and the conversation is still in place.
	if err := s.writeJSON(filepath.Join(entry, trashInfoFile), info, 0o600); err != nil {
		return fmt.Errorf("remove conversation %s: %w", id, err)
	}
	dst := filepath.Join(entry, trashConvDir)
	if p.inSilo && p.inProj {
		// The checkout copy goes first: a removal killed after it leaves
		// the conversation user-local (listed, not in the trash), and
		// jp conversation rm again finishes it.
		if err := s.removeCheckoutCopy(p, id); err != nil {
			return err
		}
		p.inProj = false
	}
	if p.inSilo {
		s.dropStream(p.siloConv)
		if err := os.Rename(p.siloConv, dst); err != nil {
			return fmt.Errorf("remove conversation %s: %w", id, err)
		}
		if err := s.syncDir(filepath.Dir(p.siloConv)); err != nil {
			return err
		}
	} else if err := s.copyProjection(p.projConv, dst); err != nil {
		return fmt.Errorf("remove conversation %s: %w", id, err)
	}
	if err := s.syncDir(entry); err != nil {
		return err
	}
	if p.inProj {
		if err := s.removeCheckoutCopy(p, id); err != nil {
			return err
		}
	}
	_, _ = s.purgeTrash(silo) // expired entries; an error here changes nothing removed
	return nil
}

// removeCheckoutCopy removes the checkout copy's managed files (metadata.json
// first: without it the directory is no conversation) and its directory
// when nothing else is left in it.
func (s *Store) removeCheckoutCopy(p place, id conversation.ID) error {
	for _, name := range []string{metadataFile, eventsFile, baseConfigFile} {
		if err := os.Remove(filepath.Join(p.projConv, name)); err != nil && !isNotExist(err) {
			return fmt.Errorf("remove conversation %s: %w", id, err)
		}
	}
	_ = os.Remove(p.projConv) // fails, harmlessly, when other files remain
	return s.syncDir(filepath.Dir(p.projConv))
}

// interruptedRemoval returns the trash entry of a removal of conversation
// id that was killed before it removed the checkout copy at p (an older
// jp moved the user-local copy to the trash first): the most recent entry
// of id, when the checkout copy still matches its copy byte for byte (its
// metadata.json, and its events.json as the user-local copy projects).
// nil otherwise: a checkout copy that differs from the last removal is a
// conversation of its own, whatever older removals hold.
func (s *Store) interruptedRemoval(silo string, p place, id conversation.ID) *trashEntry {
	ents, err := s.purgeTrash(silo)
	if err != nil {
		return nil
	}
	for i := range ents {
		if ents[i].info.ID != id {
			continue
		}
		conv := filepath.Join(ents[i].dir, trashConvDir)
		meta, err := os.ReadFile(filepath.Join(conv, metadataFile))
		if err != nil {
			return nil
		}
		if meta, err = forCheckout(meta); err != nil {
			return nil
		}
		cur, err := os.ReadFile(filepath.Join(p.projConv, metadataFile))
		if err != nil || !bytes.Equal(cur, meta) || !sameAsProjection(filepath.Join(p.projConv, eventsFile), conv) {
			return nil
		}
		return &ents[i]
	}
	return nil
}

// copyProjection copies a projection-only conversation's files into dst
// (metadata.json last).
func (s *Store) copyProjection(src, dst string) error {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	for _, name := range []string{eventsFile, baseConfigFile, metadataFile} {
		if err := s.copyFile(filepath.Join(src, name), filepath.Join(dst, name), 0o600); err != nil && !isNotExist(err) {
			return err
		}
	}
	return nil
}

// Trashed implements ports.ConversationStore. It also deletes the entries
// kept longer than ports.TrashKeep.
func (s *Store) Trashed(ctx context.Context, loc workspace.Location) ([]ports.TrashedConversation, error) {
	if err := loc.Check(); err != nil {
		return nil, fmt.Errorf("list the trash: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	silo, err := s.siloDir(loc.ID)
	if err != nil || silo == "" {
		return nil, err
	}
	ents, err := s.purgeTrash(silo)
	if err != nil {
		return nil, fmt.Errorf("list the trash: %w", err)
	}
	out := make([]ports.TrashedConversation, 0, len(ents))
	for _, e := range ents {
		out = append(out, ports.TrashedConversation{ID: e.info.ID, Title: e.info.Title, RemovedAt: e.info.RemovedAt})
	}
	return out, nil
}

// purgeTrash deletes the expired entries and the debris of interrupted
// removals, and returns the others, most recently removed first.
func (s *Store) purgeTrash(silo string) ([]trashEntry, error) {
	trash := filepath.Join(silo, trashDir)
	names, err := readDirNames(trash)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	var out []trashEntry
	removed := false
	for _, n := range names {
		dir := filepath.Join(trash, n)
		var e trashEntry
		e.dir = dir
		infoErr := readJSON(filepath.Join(dir, trashInfoFile), &e.info)
		_, convErr := os.Stat(filepath.Join(dir, trashConvDir))
		switch {
		case infoErr == nil && convErr == nil && now.Sub(e.info.RemovedAt) < ports.TrashKeep:
			if e.info.Name == "" || !strings.HasPrefix(filepath.Base(e.info.Name), string(e.info.ID)) {
				continue // not ours to restore or delete
			}
			out = append(out, e)
		case infoErr == nil && convErr == nil, trashDebris(n, now):
			if os.RemoveAll(dir) == nil {
				removed = true
			}
		}
	}
	if removed {
		_ = s.syncDir(trash)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].info.RemovedAt.After(out[j].info.RemovedAt) })
	return out, nil
}

// trashDebris reports whether an incomplete entry named n is old enough
// (an hour) that no removal can still be writing it.
func trashDebris(n string, now time.Time) bool {
	i := strings.LastIndexByte(n, '-')
	if i < 0 {
		return false
	}
	ns, err := strconv.ParseInt(n[i+1:], 10, 64)
	return err == nil && now.Sub(time.Unix(0, ns)) > time.Hour
}

// Restore implements ports.ConversationStore: the most recently trashed
// copy of id is renamed back into the silo under its old directory name
// (a Rust jp workspace's "<id>-<slug>" or ".archive/..." included), then
// projected into loc.Root unless it is --local, with the same bytes.
func (s *Store) Restore(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	if err := conversation.CheckAddress(loc, id); err != nil {
		return fmt.Errorf("restore conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	silo, err := s.siloDir(loc.ID)
	if err != nil {
		return err
	}
	var entry *trashEntry
	if silo != "" {
		ents, err := s.purgeTrash(silo)
		if err != nil {
			return fmt.Errorf("restore conversation %s: %w", id, err)
		}
		for i := range ents {
			if ents[i].info.ID == id {
				entry = &ents[i]
				break
			}
		}
	}
	if entry == nil {
		return &ports.NotFoundError{What: "conversation " + string(id) + " in the trash", Hint: "list the trash with jp conversation restore --list"}
	}
	return s.restoreEntry(ctx, loc, silo, id, entry)
}

// restoreEntry moves a trash entry's conversation back into the silo and
// projects it, holding the conversation's in-process lock.
func (s *Store) restoreEntry(ctx context.Context, loc workspace.Location, silo string, id conversation.ID, e *trashEntry) error {
	unlock := s.lockConv(loc.ID, id)
	defer func() { unlock() }()
	p, err := s.locate(loc, id)
	if err != nil {
		return err
	}
	if p.inSilo || p.inProj && s.interruptedRemoval(silo, p, id) == nil {
		return fmt.Errorf("restore conversation %s: it %w in this workspace (remove that one first to restore the trashed one)", id, ports.ErrExists)
	}
	// A checkout copy left by a killed removal of this very entry is
	// written again from it below, with the same bytes.
	dst := filepath.Join(silo, convsDir, e.info.Name)
	if err := confineUnder(silo, dst); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return fmt.Errorf("restore conversation %s: %w", id, err)
	}
	if err := os.Rename(filepath.Join(e.dir, trashConvDir), dst); err != nil {
		return fmt.Errorf("restore conversation %s: %w", id, err)
	}
	if err := s.syncDir(filepath.Dir(dst)); err != nil {
		return err
	}
	if err := os.RemoveAll(e.dir); err != nil {
		return fmt.Errorf("restore conversation %s: %w", id, err)
	}
	if err := s.syncDir(filepath.Dir(e.dir)); err != nil {
		return err
	}
	if loc.Root == "" {
		return nil
	}
	if local, err := readLocal(dst); err != nil || local.Local {
		return err
	}
	if st, err := os.Stat(filepath.Join(dst, logFile)); err == nil && st.Size() > 0 {
		// Events not folded yet: UpdateMetadata folds them and projects.
		unlock()
		unlock = func() {}
		return s.UpdateMetadata(ctx, loc, id, func(*conversation.Metadata) error { return nil })
	}
	// The files as they were: the projection gets the silo's bytes.
	p.siloConv, p.inSilo, p.projConv = dst, true, filepath.Join(projConvs(loc.Root), e.info.Name)
	return s.projectFiles(p.projConv, id, p.siloConv, nil)
}
