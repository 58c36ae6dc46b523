package fsstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// The expiry record (next-expiry.json in the silo) spares the end of every
// jp q the reading of every conversation's metadata to find the expired
// --tmp ones: it holds the earliest expiry the last full sweep left, and
// the state of the conversations when that sweep listed them: a digest of
// each metadata.json's name, inode, size and modification time, in the
// silo and the checkout (a Rust jp's archive too). While that state is
// the same and the expiry has not passed, no conversation can have
// expired: a new, removed or rewritten metadata.json (jp writes a new
// file and renames it; the Rust jp, an editor or a git pull change its
// time or size) changes the state. A stat per conversation costs a
// fraction of reading and decoding its metadata. No record, an
// unreadable one or another state means a full sweep, as before.

var _ ports.ExpiryRecord = (*Store)(nil)

// expiryFile is the record, in the silo.
const expiryFile = "next-expiry.json"

// expiryRecord is the stored form of the record. The conversation of the
// run that wrote it (Keep, never removed by that run, and rewritten by
// it at every turn) is left out of the digest; its own expiry is read
// when another run asks.
type expiryRecord struct {
	Keep  conversation.ID `json:"keep,omitempty"`
	State string          `json:"state"`
	Next  *time.Time      `json:"next,omitempty"`
}

// SweepNeeded implements ports.ExpiryRecord. The conversation keep of the
// asking run is left out of the comparison too: its own turn rewrote its
// metadata, or it is new; the run does not remove it either way.
func (s *Store) SweepNeeded(ctx context.Context, loc workspace.Location, now time.Time, keep conversation.ID) (bool, string) {
	state, err := s.expiryState(loc, keep)
	token := string(keep) + " " + state
	if err != nil || ctx.Err() != nil {
		return true, ""
	}
	silo, err := s.siloDir(loc.ID)
	if err != nil || silo == "" {
		return true, token
	}
	var rec expiryRecord
	if err := readJSON(filepath.Join(silo, expiryFile), &rec); err != nil {
		return true, token
	}
	if rec.Keep != keep {
		if state, err = s.expiryState(loc, keep, rec.Keep); err != nil {
			return true, token
		}
	}
	if rec.State != state || rec.Next != nil && !now.Before(*rec.Next) {
		return true, token
	}
	return rec.Keep != keep && s.expiredNow(ctx, loc, rec.Keep, now), token
}

// expiredNow reports whether the conversation id may have expired by
// now: true unless it is gone or its metadata says it has not.
func (s *Store) expiredNow(ctx context.Context, loc workspace.Location, id conversation.ID, now time.Time) bool {
	if id == "" {
		return false
	}
	sum, err := s.Get(ctx, loc, id)
	if errors.Is(err, ports.ErrNotFound) {
		return false
	}
	return err != nil || sum.Unreadable != nil || sum.Metadata.Expired(now)
}

// RecordNextExpiry implements ports.ExpiryRecord.
func (s *Store) RecordNextExpiry(_ context.Context, loc workspace.Location, token string, next time.Time) error {
	keep, state, ok := strings.Cut(token, " ")
	if !ok || state == "" {
		return nil
	}
	silo, err := s.siloDir(loc.ID)
	if err != nil || silo == "" {
		return err
	}
	rec := expiryRecord{Keep: conversation.ID(keep), State: state}
	if !next.IsZero() {
		rec.Next = &next
	}
	if err := s.replaceJSON(filepath.Join(silo, expiryFile), rec, 0o600); err != nil {
		return fmt.Errorf("record the next expiry: %w", err)
	}
	return nil
}

// expiryState is a digest of the identity (name, inode, size, time) of
// every metadata.json in loc's conversations directories (the silo's and
// the checkout's, with a Rust jp's archive), but those of skip.
func (s *Store) expiryState(loc workspace.Location, skip ...conversation.ID) (string, error) {
	if err := loc.Check(); err != nil {
		return "", err
	}
	silo, err := s.siloDir(loc.ID)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, dir := range []string{siloConvsOf(silo), projConvsOf(loc.Root)} {
		if err := stampDir(h, dir, skip); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// stampDir writes to h the name and identity of every metadata.json in
// the conversations directory dir (none when dir is "" or missing), but
// those of skip.
func stampDir(h io.Writer, dir string, skip []conversation.ID) error {
	if dir == "" {
		return nil
	}
	names, err := readDirNames(dir)
	if err != nil || len(names) == 0 {
		return err
	}
	if names, err = withArchive(names, dir); err != nil {
		return err
	}
	d, err := openDir(dir)
	if err != nil {
		return err
	}
	defer d.close()
	slices.Sort(names)
	b := append([]byte(dir), '\n')
	for _, n := range names {
		if id, ok := listName(n); ok && slices.Contains(skip, id) {
			continue
		}
		b = append(append(b, n...), ' ')
		b = append(d.appendStamp(b, filepath.Join(n, metadataFile)), '\n')
	}
	_, err = h.Write(b)
	return err
}

func siloConvsOf(silo string) string {
	if silo == "" {
		return ""
	}
	return filepath.Join(silo, convsDir)
}

func projConvsOf(root string) string {
	if root == "" {
		return ""
	}
	return projConvs(root)
}
