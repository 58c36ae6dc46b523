package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// place is where one conversation lives, as seen from a location.
type place struct {
	siloConv string // <silo>/conversations/<name>; "" when the workspace has no silo
	inSilo   bool
	projConv string // <root>/.jp/conversations/<name>; "" without a root
	inProj   bool
	// name is the directory's path relative to its conversations
	// directory: "<id>", or in a Rust jp workspace "<id>-<slug>" or
	// ".archive/<id>-<slug>". A copy made in the other place (import,
	// projection) gets the same name.
	name   string
	format conversation.Format // the workspace's stored form
}

// archived reports whether the conversation is in the Rust jp's archive.
func (p place) archived() bool { return isArchivedRel(p.name) }

// projConvs is a checkout's conversations directory.
func projConvs(root string) string { return filepath.Join(root, dotJP, convsDir) }

// find validates the IDs and locates the conversation; one found
// nowhere is a *ports.NotFoundError. op names the operation in errors.
func (s *Store) find(ctx context.Context, loc workspace.Location, id conversation.ID, op string) (place, error) {
	if err := conversation.CheckAddress(loc, id); err != nil {
		return place{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := ctx.Err(); err != nil {
		return place{}, err
	}
	p, err := s.locate(loc, id)
	if err == nil && !p.inSilo && !p.inProj {
		err = ports.ConversationNotFound(id)
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
	p.format = s.formatOf(loc, silo)
	var siloName, projName string
	if silo != "" {
		if siloName, err = findConvDir(filepath.Join(silo, convsDir), id, p.format); err != nil {
			return p, fmt.Errorf("locate conversation %s: %w", id, err)
		}
		p.inSilo = siloName != ""
	}
	if loc.Root != "" {
		if projName, err = findConvDir(projConvs(loc.Root), id, p.format); err != nil {
			return p, fmt.Errorf("locate conversation %s: %w", id, err)
		}
		p.inProj = projName != ""
	}
	p.name = cmp.Or(siloName, projName, string(id))
	if silo != "" {
		p.siloConv = filepath.Join(silo, convsDir, p.name)
	}
	if loc.Root != "" {
		p.projConv = filepath.Join(projConvs(loc.Root), cmp.Or(projName, p.name))
	}
	if p.siloConv != "" {
		if err := confineConv(silo, p.siloConv); err != nil {
			return p, err
		}
	}
	if p.projConv != "" {
		if err := confineConv(loc.Root, p.projConv); err != nil {
			return p, err
		}
	}
	return p, nil
}

// readMeta reads a metadata.json, through the fast decoder List uses, and
// completes what the Rust jp does not write (completeMeta).
func readMeta(dir string, id conversation.ID, archived bool) (conversation.Metadata, error) {
	var m conversation.Metadata
	b, err := os.ReadFile(filepath.Join(dir, metadataFile))
	if err != nil {
		return m, err
	}
	if err = decodeMetadata(dir, metadataFile, b, &m); err == nil {
		completeMeta(&m, id, dir, archived)
	}
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
		if sum.Metadata, err = readMeta(p.siloConv, id, p.archived()); err != nil {
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
		if sum.Metadata, err = readMeta(p.projConv, id, p.archived()); err != nil {
			return sum, fmt.Errorf("get conversation %s: %w", id, err)
		}
		sum.Storage = conversation.StorageWorkspaceOnly
	}
	newLiveness(loc.ID).mark(&sum)
	return sum, nil
}

// prepareCreate is what creating a conversation in loc begins with: the
// silo, its conversations directory (made, confined, and swept of what
// killed creations left).
func (s *Store) prepareCreate(ctx context.Context, loc workspace.Location) (silo, convs string, err error) {
	if err := loc.Check(); err != nil {
		return "", "", fmt.Errorf("create conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	if silo, err = s.ensureSilo(loc.ID, loc.Root); err != nil {
		return "", "", err
	}
	convs = filepath.Join(silo, convsDir)
	if err := confine(silo, convsDir); err != nil {
		return "", "", err
	}
	if loc.Root != "" {
		if err := confine(loc.Root, filepath.Join(dotJP, convsDir)); err != nil {
			return "", "", err
		}
	}
	if err := os.MkdirAll(convs, 0o700); err != nil {
		return "", "", fmt.Errorf("create conversation: %w", err)
	}
	sweepConvs(convs)
	return silo, convs, nil
}

// Create makes a new, empty conversation. Its ID comes from the clock and
// is bumped past any ID already used in the silo or in loc.Root's
// projection.
func (s *Store) Create(ctx context.Context, loc workspace.Location, nc ports.NewConversation) (conversation.ID, error) {
	silo, convs, err := s.prepareCreate(ctx, loc)
	if err != nil {
		return "", err
	}
	now := s.clock.Now().UTC()
	f := s.formatOf(loc, silo)
	id, name, err := claimID(convs, loc.Root, conversation.NewID(now), f, nc.Title)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(convs, name)
	unlock := s.lockConv(loc.ID, id)
	defer unlock()
	if err := s.initConversation(dir, name, loc, id, nc, now, f); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return id, nil
}

// claimID creates the conversation directory for the first free ID from
// id on, and returns it with the directory's name ("<id>", or in a Rust jp
// workspace the Rust jp's "<id>-<slug>" when there is a title). os.Mkdir
// is the claim, so two processes never get the same ID.
func claimID(convs, root string, id conversation.ID, f conversation.Format, title string) (conversation.ID, string, error) {
	taken := func(parent string, id conversation.ID) (bool, error) {
		if f != conversation.FormatRust {
			return exists(filepath.Join(parent, string(id)))
		}
		name, err := findConvDir(parent, id, f)
		if name == "" && err == nil {
			return exists(filepath.Join(parent, string(id)))
		}
		return name != "", err
	}
	for range 100_000 {
		if root != "" {
			t, err := taken(projConvs(root), id)
			if err != nil {
				return "", "", fmt.Errorf("create conversation %s: %w", id, err)
			}
			if t {
				id = id.Next()
				continue
			}
		}
		if f == conversation.FormatRust {
			if t, err := taken(convs, id); err != nil || t {
				if err != nil {
					return "", "", fmt.Errorf("create conversation %s: %w", id, err)
				}
				id = id.Next()
				continue
			}
		}
		name := string(id)
		if f == conversation.FormatRust {
			name = rustDirName(id, title)
		}
		err := os.Mkdir(filepath.Join(convs, name), 0o700)
		if errors.Is(err, fs.ErrExist) {
			id = id.Next()
			continue
		}
		if err != nil {
			return "", "", fmt.Errorf("create conversation %s: %w", id, err)
		}
		return id, name, nil
	}
	return "", "", fmt.Errorf("create conversation: no free ID after %s in %s", id, convs)
}

// initConversation writes the files of a new conversation, metadata.json
// last, and projects it.
func (s *Store) initConversation(dir, name string, loc workspace.Location, id conversation.ID, nc ports.NewConversation, now time.Time, f conversation.Format) error {
	events := []byte("[]\n")
	if err := s.writeFile(filepath.Join(dir, eventsFile), events, 0o600); err != nil {
		return fmt.Errorf("create conversation %s: %w", id, err)
	}
	if nc.Local {
		if err := s.writeJSON(filepath.Join(dir, localMetaFile), eventcodec.LocalJSON{Local: true}, 0o600); err != nil {
			return fmt.Errorf("create conversation %s: %w", id, err)
		}
	}
	meta := conversation.Metadata{Title: nc.Title, CreatedAt: now, LastActivatedAt: now, Format: f}
	if err := s.writeJSON(filepath.Join(dir, metadataFile), eventcodec.MetadataJSON(meta), 0o600); err != nil {
		return fmt.Errorf("create conversation %s: %w", id, err)
	}
	if err := s.syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	if nc.Local || loc.Root == "" {
		return nil
	}
	return s.projectFiles(filepath.Join(projConvs(loc.Root), name), id, dir, events)
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

// ConversationDir implements ports.ConversationDirs: the checkout's copy
// of the conversation when there is one (where the Rust jp looks first),
// else the silo's.
func (s *Store) ConversationDir(ctx context.Context, loc workspace.Location, id conversation.ID) (string, error) {
	p, err := s.find(ctx, loc, id, "conversation path")
	if err != nil {
		return "", err
	}
	if p.inProj {
		return p.projConv, nil
	}
	return p.siloConv, nil
}
