package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// place is where one conversation lives, as seen from a location.
type place struct {
	siloConv string // <silo>/conversations/<id>; "" when the workspace has no silo
	inSilo   bool
	projConv string // <root>/.jp/conversations/<id>; "" without a root
	inProj   bool
}

// projDir is a conversation's projection directory in a checkout.
func projDir(root string, id conversation.ID) string {
	return filepath.Join(root, dotJP, convsDir, string(id))
}

// find validates the IDs and locates the conversation; one found
// nowhere is a *ports.NotFoundError. op names the operation in errors.
func (s *Store) find(ctx context.Context, loc workspace.Location, id conversation.ID, op string) (place, error) {
	if err := checkConv(loc, id); err != nil {
		return place{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := ctx.Err(); err != nil {
		return place{}, err
	}
	p, err := s.locate(loc, id)
	if err == nil && !p.inSilo && !p.inProj {
		err = notFound(id)
	}
	return p, err
}

// begin starts a write of one conversation: it takes the conversation's
// in-process lock and finds it. On success the caller must call unlock.
func (s *Store) begin(ctx context.Context, loc workspace.Location, id conversation.ID, op string) (place, func(), error) {
	unlock := s.lockConv(loc.ID, id)
	p, err := s.find(ctx, loc, id, op)
	if err != nil {
		unlock()
		return place{}, nil, err
	}
	return p, unlock, nil
}

// locate finds a conversation in the silo and in loc.Root's projection. A
// directory counts only once its metadata.json exists (it is written last).
func (s *Store) locate(loc workspace.Location, id conversation.ID) (place, error) {
	var p place
	silo, err := s.siloDir(loc.ID)
	if err != nil {
		return p, err
	}
	if silo != "" {
		p.siloConv = filepath.Join(silo, convsDir, string(id))
		if p.inSilo, err = exists(filepath.Join(p.siloConv, metadataFile)); err != nil {
			return p, fmt.Errorf("locate conversation %s: %w", id, err)
		}
	}
	if loc.Root != "" {
		p.projConv = projDir(loc.Root, id)
		if p.inProj, err = exists(filepath.Join(p.projConv, metadataFile)); err != nil {
			return p, fmt.Errorf("locate conversation %s: %w", id, err)
		}
	}
	return p, nil
}

// readMeta reads a metadata.json, through the fast decoder List uses.
func readMeta(dir string) (conversation.Metadata, error) {
	var m conversation.Metadata
	b, err := os.ReadFile(filepath.Join(dir, metadataFile))
	if err != nil {
		return m, err
	}
	err = decodeMetadata(dir, metadataFile, b, &m)
	return m, err
}

// readLocal reads metadata.local.json, through the fast decoder List
// uses; a missing file is the zero value.
func readLocal(dir string) (conversation.LocalMetadata, error) {
	var m conversation.LocalMetadata
	b, err := os.ReadFile(filepath.Join(dir, localMetaFile))
	if isNotExist(err) {
		return m, nil
	}
	if err != nil {
		return m, err
	}
	err = decodeLocal(dir, localMetaFile, b, &m)
	return m, err
}

// Get returns one conversation's summary as seen from loc.
func (s *Store) Get(ctx context.Context, loc workspace.Location, id conversation.ID) (conversation.Summary, error) {
	p, err := s.find(ctx, loc, id, "get conversation")
	if err != nil {
		return conversation.Summary{}, err
	}
	sum := conversation.Summary{ID: id}
	if p.inSilo {
		if sum.Metadata, err = readMeta(p.siloConv); err != nil {
			return sum, fmt.Errorf("get conversation %s: %w", id, err)
		}
		local, err := readLocal(p.siloConv)
		if err != nil {
			return sum, fmt.Errorf("get conversation %s: %w", id, err)
		}
		sum.Local, sum.LastRoot = local.Local, local.LastRoot
		sum.Storage = conversation.StorageUserLocal
		if p.inProj {
			sum.Storage = conversation.StorageBoth
		}
	} else {
		if sum.Metadata, err = readMeta(p.projConv); err != nil {
			return sum, fmt.Errorf("get conversation %s: %w", id, err)
		}
		sum.Storage = conversation.StorageWorkspaceOnly
	}
	newLiveness(loc.ID).mark(&sum)
	return sum, nil
}

// Create makes a new, empty conversation. Its ID comes from the clock and
// is bumped past any ID already used in the silo or in loc.Root's
// projection.
func (s *Store) Create(ctx context.Context, loc workspace.Location, nc ports.NewConversation) (conversation.ID, error) {
	if err := checkLoc(loc); err != nil {
		return "", fmt.Errorf("create conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	silo, err := s.ensureSilo(loc.ID, loc.Root)
	if err != nil {
		return "", err
	}
	convs := filepath.Join(silo, convsDir)
	if err := os.MkdirAll(convs, 0o700); err != nil {
		return "", fmt.Errorf("create conversation: %w", err)
	}
	now := s.clock.Now().UTC()
	id, err := claimID(convs, loc.Root, conversation.NewID(now))
	if err != nil {
		return "", err
	}
	dir := filepath.Join(convs, string(id))
	unlock := s.lockConv(loc.ID, id)
	defer unlock()
	if err := s.initConversation(dir, loc, id, nc, now); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return id, nil
}

// claimID creates the conversation directory for the first free ID from
// id on. os.Mkdir is the claim, so two processes never get the same ID.
func claimID(convs, root string, id conversation.ID) (conversation.ID, error) {
	for range 100_000 {
		if root != "" {
			taken, err := exists(projDir(root, id))
			if err != nil {
				return "", fmt.Errorf("create conversation %s: %w", id, err)
			}
			if taken {
				id = id.Next()
				continue
			}
		}
		err := os.Mkdir(filepath.Join(convs, string(id)), 0o700)
		if errors.Is(err, fs.ErrExist) {
			id = id.Next()
			continue
		}
		if err != nil {
			return "", fmt.Errorf("create conversation %s: %w", id, err)
		}
		return id, nil
	}
	return "", fmt.Errorf("create conversation: no free ID after %s in %s", id, convs)
}

// initConversation writes the files of a new conversation, metadata.json
// last, and projects it.
func (s *Store) initConversation(dir string, loc workspace.Location, id conversation.ID, nc ports.NewConversation, now time.Time) error {
	events := []byte("[]\n")
	if err := s.writeFile(filepath.Join(dir, eventsFile), events, 0o600); err != nil {
		return fmt.Errorf("create conversation %s: %w", id, err)
	}
	if nc.Local {
		if err := s.writeJSON(filepath.Join(dir, localMetaFile), conversation.LocalMetadata{Local: true}, 0o600); err != nil {
			return fmt.Errorf("create conversation %s: %w", id, err)
		}
	}
	meta := conversation.Metadata{Title: nc.Title, CreatedAt: now, LastActivatedAt: now}
	if err := s.writeJSON(filepath.Join(dir, metadataFile), meta, 0o600); err != nil {
		return fmt.Errorf("create conversation %s: %w", id, err)
	}
	if err := s.syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	if nc.Local || loc.Root == "" {
		return nil
	}
	return s.projectFiles(loc.Root, id, dir, events)
}

// Remove deletes the conversation from the silo and from loc.Root's
// projection. Files other than the managed ones in the projection directory
// are left (and so is the directory, then).
func (s *Store) Remove(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	p, unlock, err := s.begin(ctx, loc, id, "remove conversation")
	if err != nil {
		return err
	}
	defer unlock()
	if p.inProj {
		for _, name := range []string{metadataFile, eventsFile} {
			if err := os.Remove(filepath.Join(p.projConv, name)); err != nil && !isNotExist(err) {
				return fmt.Errorf("remove conversation %s: %w", id, err)
			}
		}
		_ = os.Remove(p.projConv) // fails, harmlessly, when other files remain
		if err := s.syncDir(filepath.Dir(p.projConv)); err != nil {
			return err
		}
	}
	if p.siloConv != "" {
		s.dropStream(p.siloConv)
		convs := filepath.Dir(p.siloConv)
		tomb := filepath.Join(convs, "."+string(id)+".removed-"+strconv.FormatInt(s.clock.Now().UnixNano(), 10))
		if err := os.Rename(p.siloConv, tomb); err != nil && !isNotExist(err) {
			return fmt.Errorf("remove conversation %s: %w", id, err)
		}
		if err := s.syncDir(convs); err != nil {
			return err
		}
		if err := os.RemoveAll(tomb); err != nil {
			return fmt.Errorf("remove conversation %s: %w", id, err)
		}
	}
	return nil
}

// liveness derives (and caches, for one call) whether recorded roots still
// hold the workspace.
type liveness struct {
	id    workspace.ID
	cache map[string]bool
}

func newLiveness(id workspace.ID) *liveness {
	return &liveness{id: id, cache: map[string]bool{}}
}

// live reports whether path holds the workspace now.
func (l *liveness) live(path string) bool {
	if v, ok := l.cache[path]; ok {
		return v
	}
	v := checkoutLive(l.id, path)
	l.cache[path] = v
	return v
}

// checkoutLive applies workspace.IsLive to what is at <path>/.jp/.id now.
func checkoutLive(id workspace.ID, path string) bool {
	b, err := os.ReadFile(filepath.Join(path, dotJP, idFile))
	return workspace.IsLive(id, workspace.Observation{Exists: err == nil, Content: string(b)})
}

// mark fills sum.LastRoot.Live.
func (l *liveness) mark(sum *conversation.Summary) {
	if sum.LastRoot == nil {
		return
	}
	lr := *sum.LastRoot
	v := l.live(lr.Path)
	lr.Live = &v
	sum.LastRoot = &lr
}

// sortSummaries orders conversations by ID, oldest first.
func sortSummaries(out []conversation.Summary) {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].ID, out[j].ID
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
}
