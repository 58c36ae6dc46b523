package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
)

// UpdateMetadata rewrites metadata.json through fn, then syncs loc.Root's
// projection of a non-local conversation. A projection-only conversation is
// imported first. When fn fails nothing is written.
func (s *Store) UpdateMetadata(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(*conversation.Metadata) error) error {
	p, unlock, err := s.begin(ctx, loc, id, "update metadata")
	if err != nil {
		return err
	}
	defer unlock()
	src := p.siloConv
	if !p.inSilo {
		src = p.projConv
	}
	meta, err := readMeta(src, id, p.archived())
	if err != nil {
		return fmt.Errorf("update metadata of conversation %s: %w", id, err)
	}
	// Everything the projection sync needs is read (and checked) before
	// anything is written.
	project := loc.Root != ""
	var st *streamState
	if p.inSilo && project {
		local, err := readLocal(p.siloConv)
		if err != nil {
			return fmt.Errorf("update metadata of conversation %s: %w", id, err)
		}
		if project = !local.Local; project {
			if st, err = s.streamFor(p); err != nil {
				return fmt.Errorf("update metadata of conversation %s: %w", id, err)
			}
		}
	}
	if !p.inSilo {
		s.cleanImported(&meta)
	}
	if err := fn(&meta); err != nil {
		return fmt.Errorf("update metadata of conversation %s: %w", id, err)
	}
	if !p.inSilo {
		if err := s.importConversation(loc, id, &p); err != nil {
			return err
		}
	}
	if err := s.writeJSON(filepath.Join(p.siloConv, metadataFile), eventcodec.MetadataJSON(meta), 0o600); err != nil {
		return fmt.Errorf("update metadata of conversation %s: %w", id, err)
	}
	if p.format == conversation.FormatRust && meta.Archived() != p.archived() {
		if err := s.moveArchived(&p, meta.Archived()); err != nil {
			return fmt.Errorf("update metadata of conversation %s: %w", id, err)
		}
	}
	if !project {
		return nil
	}
	if st != nil && st.logSize > 0 {
		if _, err = s.fold(p.siloConv, st, p.format); err != nil {
			s.dropStream(p.siloConv)
			return fmt.Errorf("update metadata of conversation %s: %w", id, err)
		}
	}
	return s.projectFiles(p.projConv, id, p.siloConv, nil)
}

// moveArchived moves a conversation of a Rust jp workspace into the Rust
// jp's archive (.archive/) or out of it, in the silo and in the
// projection, so that both jps agree on what is archived. Each move is one
// rename of the directory.
func (s *Store) moveArchived(p *place, archive bool) error {
	base := filepath.Base(p.name)
	name := base
	if archive {
		name = filepath.Join(archiveDir, base)
	}
	move := func(from string, present bool) (string, error) {
		if from == "" {
			return "", nil
		}
		convs := filepath.Dir(from)
		if isArchivedRel(p.name) {
			convs = filepath.Dir(convs)
		}
		to := filepath.Join(convs, name)
		if !present {
			return to, nil
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return "", err
		}
		if ok, err := exists(to); err != nil || ok {
			if ok {
				err = fmt.Errorf("move to %s: it exists", to)
			}
			return "", err
		}
		if err := os.Rename(from, to); err != nil {
			return "", err
		}
		if err := s.syncDir(filepath.Dir(from)); err != nil {
			return "", err
		}
		return to, s.syncDir(filepath.Dir(to))
	}
	s.dropStream(p.siloConv)
	silo, err := move(p.siloConv, p.inSilo)
	if err != nil {
		return err
	}
	proj, err := move(p.projConv, p.inProj)
	if err != nil {
		return err
	}
	p.siloConv, p.projConv, p.name = silo, proj, name
	return nil
}

// LocalMetadata reads metadata.local.json; it is the zero value when the
// file is absent or the conversation is only in the projection.
func (s *Store) LocalMetadata(ctx context.Context, loc workspace.Location, id conversation.ID) (conversation.LocalMetadata, error) {
	p, err := s.find(ctx, loc, id, "read local metadata")
	if err != nil || !p.inSilo {
		return conversation.LocalMetadata{}, err
	}
	m, err := readLocal(p.siloConv)
	if err != nil {
		return m, fmt.Errorf("read local metadata of conversation %s: %w", id, err)
	}
	return m, nil
}

// UpdateLocalMetadata rewrites metadata.local.json through fn; keys this
// version does not know survive (conversation.LocalMetadata keeps them). A
// projection-only conversation is imported first.
func (s *Store) UpdateLocalMetadata(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(*conversation.LocalMetadata) error) error {
	p, unlock, err := s.begin(ctx, loc, id, "update local metadata")
	if err != nil {
		return err
	}
	defer unlock()
	var m conversation.LocalMetadata
	if p.inSilo {
		if m, err = readLocal(p.siloConv); err != nil {
			return fmt.Errorf("update local metadata of conversation %s: %w", id, err)
		}
	}
	if err := fn(&m); err != nil {
		return fmt.Errorf("update local metadata of conversation %s: %w", id, err)
	}
	if !p.inSilo {
		if err := s.importConversation(loc, id, &p); err != nil {
			return err
		}
	}
	if err := s.writeJSON(filepath.Join(p.siloConv, localMetaFile), eventcodec.LocalJSON(m), 0o600); err != nil {
		return fmt.Errorf("update local metadata of conversation %s: %w", id, err)
	}
	s.mu.Lock()
	if st := s.streams[p.siloConv]; st != nil {
		st.local = m.Local
	}
	s.mu.Unlock()
	return nil
}

// importConversation copies a projection-only conversation's managed files
// into the silo (events.json first, metadata.json last) and points p at
// the copy. Machine-local files are never copied from a checkout.
func (s *Store) importConversation(loc workspace.Location, id conversation.ID, p *place) error {
	if err := s.checkEventsSize(p.projConv); err != nil {
		return fmt.Errorf("import conversation %s: %w", id, err)
	}
	// The events are checked as they stream, then copied file to file:
	// a long shipped conversation is never held in memory.
	projEvents := filepath.Join(p.projConv, eventsFile)
	if _, err := checkoutStream(p.projConv); err != nil {
		return err
	}
	hasEvents, err := exists(projEvents)
	if err != nil {
		return fmt.Errorf("import conversation %s: %w", id, err)
	}
	metaPath := filepath.Join(p.projConv, metadataFile)
	meta, err := os.ReadFile(metaPath)
	if err != nil {
		return fmt.Errorf("import conversation %s: %w", id, err)
	}
	var m conversation.Metadata
	if err := decodeJSON(metaPath, meta, &m); err != nil {
		return err
	}
	if meta, err = s.fromCheckout(meta, m); err != nil {
		return fmt.Errorf("import conversation %s: %w", id, err)
	}
	silo, err := s.ensureSilo(loc.ID, loc.Root)
	if err != nil {
		return err
	}
	dir := filepath.Join(silo, convsDir, p.name)
	if err := confineConv(silo, dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("import conversation %s: %w", id, err)
	}
	// A directory without metadata.json is debris of an interrupted create.
	if err := os.Remove(filepath.Join(dir, logFile)); err != nil && !isNotExist(err) {
		return fmt.Errorf("import conversation %s: %w", id, err)
	}
	if hasEvents {
		err = s.copyFile(projEvents, filepath.Join(dir, eventsFile), 0o600)
	} else {
		err = s.writeFile(filepath.Join(dir, eventsFile), []byte("[]\n"), 0o600)
	}
	if err != nil {
		return fmt.Errorf("import conversation %s: %w", id, err)
	}
	if err := s.copyBaseConfig(p.projConv, dir); err != nil {
		return fmt.Errorf("import conversation %s: %w", id, err)
	}
	if err := s.writeFile(filepath.Join(dir, metadataFile), meta, 0o600); err != nil {
		return fmt.Errorf("import conversation %s: %w", id, err)
	}
	if err := s.syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	s.dropStream(dir)
	p.siloConv, p.inSilo = dir, true
	return nil
}

// projectFiles copies the silo's events.json and metadata.json into the
// projection, one file at a time (events first, so that metadata.json, the
// marker readers look for, comes last). Other files in the projection
// directory are left alone. The caller has folded the log; events is the
// silo's events.json when the caller holds it (nil: it is read).
func (s *Store) projectFiles(dir string, id conversation.ID, siloConv string, events []byte) error {
	// dir is <root>/.jp/conversations/...: confine it from the root.
	root := dir
	for filepath.Base(root) != dotJP && root != filepath.Dir(root) {
		root = filepath.Dir(root)
	}
	if err := confineConv(filepath.Dir(root), dir); err != nil {
		return err
	}
	existed, err := exists(dir)
	if err != nil {
		return fmt.Errorf("project conversation %s: %w", id, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("project conversation %s: %w", id, err)
	}
	if existed {
		if err := s.checkProjection(dir, siloConv, id); err != nil {
			return err
		}
		sweepTemps(dir)
	} else if err := s.syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	meta, err := os.ReadFile(filepath.Join(siloConv, metadataFile))
	if err != nil {
		return fmt.Errorf("project conversation %s: %w", id, err)
	}
	if meta, err = forCheckout(meta); err != nil {
		return fmt.Errorf("project conversation %s: %w", id, err)
	}
	if events != nil {
		err = s.replaceFile(filepath.Join(dir, eventsFile), 0o644, func(w *os.File) error {
			_, err := w.Write(events)
			return err
		})
	} else {
		err = s.projectEvents(siloConv, filepath.Join(dir, eventsFile))
	}
	if err != nil {
		return fmt.Errorf("project conversation %s: %w", id, err)
	}
	s.markValid(filepath.Join(dir, eventsFile))
	if err := s.copyBaseConfig(siloConv, dir); err != nil {
		return fmt.Errorf("project conversation %s: %w", id, err)
	}
	if err := s.replaceFile(filepath.Join(dir, metadataFile), 0o644, func(w *os.File) error {
		_, err := w.Write(meta)
		return err
	}); err != nil {
		return fmt.Errorf("project conversation %s: %w", id, err)
	}
	s.markValid(filepath.Join(dir, metadataFile))
	// One sync of the directory for both files (and base_config.json).
	return s.syncDir(dir)
}

// copyBaseConfig copies the Rust jp's base_config.json of a conversation
// from directory src to dst when src has one and dst has none or another.
func (s *Store) copyBaseConfig(src, dst string) error {
	b, err := os.ReadFile(filepath.Join(src, baseConfigFile))
	if isNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if cur, err := os.ReadFile(filepath.Join(dst, baseConfigFile)); err == nil && bytes.Equal(cur, b) {
		return nil
	}
	return s.writeFile(filepath.Join(dst, baseConfigFile), b, 0o644)
}

// approvalsKey is how the approvals' key shows in a metadata.json (see
// conversation.Metadata.DropApprovals).
var approvalsKey = []byte(`"approved_tools"`)

// forCheckout returns a user-local metadata.json's bytes as the checkout
// copy gets them: without the approvals an older version kept there, which
// are the user's alone. Bytes without them are returned as they are.
func forCheckout(b []byte) ([]byte, error) {
	if !bytes.Contains(b, approvalsKey) {
		return b, nil
	}
	var m conversation.Metadata
	if err := eventcodec.UnmarshalMetadata(b, &m); err != nil {
		return nil, err
	}
	m.DropApprovals()
	return encodeMeta(m)
}

// fromCheckout returns a checkout copy's metadata.json (b, decoded as m)
// as the user-local copy imported from it gets it (see cleanImported).
func (s *Store) fromCheckout(b []byte, m conversation.Metadata) ([]byte, error) {
	if !s.cleanImported(&m) && !bytes.Contains(b, approvalsKey) {
		return b, nil
	}
	return encodeMeta(m)
}

// cleanImported makes metadata read from a checkout copy fit for the
// user-local copy: whoever wrote the checkout copy approves nothing for
// this user (approved_tools is dropped), and cannot make it the newest
// activity either (a last_activated_at later than now becomes now). It
// reports whether it changed anything.
func (s *Store) cleanImported(m *conversation.Metadata) bool {
	had := m.DropApprovals()
	now := s.clock.Now().UTC()
	future := m.LastActivatedAt.After(now)
	if future {
		m.LastActivatedAt = now
	}
	return had || future
}

// encodeMeta encodes metadata.json as writeJSON does.
func encodeMeta(m conversation.Metadata) ([]byte, error) {
	b, err := json.MarshalIndent(eventcodec.MetadataJSON(m), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
