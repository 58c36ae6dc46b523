package fsstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/atomicfile"
)

// activeDir holds, per checkout (file name: the root key), the ID of the
// conversation last used there: <silo>/active/<root-key>; per terminal
// session in that checkout <root-key>.session-<hash>; and next to each,
// <name>.previous, the one active before it.
const activeDir = "active"

// Active implements ports.ConversationStore: the conversation recorded by
// SetActive for loc.Root (or for a location with no checkout), or "" when none is recorded (or the record does
// not hold a conversation ID).
func (s *Store) Active(ctx context.Context, loc workspace.Location) (conversation.ID, error) {
	if err := loc.Check(); err != nil {
		return "", fmt.Errorf("read active conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	silo, err := s.siloDir(loc.ID)
	if err != nil || silo == "" {
		return "", err
	}
	dir := filepath.Join(silo, activeDir)
	if s.session != "" {
		id, err := readActive(filepath.Join(dir, s.sessionKey(loc)))
		if id != "" || err != nil {
			return id, err
		}
	}
	return readActive(filepath.Join(dir, activeKey(loc)))
}

// Previous implements ports.ConversationStore: the conversation that was
// active before the current one, in this terminal session when jp has one
// (else in the checkout); "" when none is recorded.
func (s *Store) Previous(ctx context.Context, loc workspace.Location) (conversation.ID, error) {
	if err := loc.Check(); err != nil {
		return "", fmt.Errorf("read previous conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	silo, err := s.siloDir(loc.ID)
	if err != nil || silo == "" {
		return "", err
	}
	key := activeKey(loc)
	if s.session != "" {
		key = s.sessionKey(loc)
	}
	return readActive(filepath.Join(silo, activeDir, key+previousSuffix))
}

// readActive reads one record; a missing or damaged one means none (the
// next jp q rewrites it).
func readActive(path string) (conversation.ID, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read active conversation: %w", err)
	}
	id, err := conversation.ParseID(strings.TrimSpace(string(b)))
	if err != nil {
		return "", nil
	}
	return id, nil
}

// SetActive implements ports.ConversationStore.
func (s *Store) SetActive(ctx context.Context, loc workspace.Location, id conversation.ID) error {
	if err := conversation.CheckAddress(loc, id); err != nil {
		return fmt.Errorf("set active conversation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	silo, err := s.ensureSilo(loc.ID, loc.Root)
	if err != nil {
		return err
	}
	dir := filepath.Join(silo, activeDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("set active conversation: %w", err)
	}
	atomicfile.Sweep(dir, atomicfile.StaleAge)
	keys := []string{activeKey(loc)}
	if s.session != "" {
		keys = append(keys, s.sessionKey(loc))
	}
	for _, key := range keys {
		path := filepath.Join(dir, key)
		old, err := readActive(path)
		if err != nil {
			return err
		}
		if old != "" && old != id {
			if err := s.writeFile(path+previousSuffix, []byte(string(old)+"\n"), 0o600); err != nil {
				return err
			}
		}
		if err := s.writeFile(path, []byte(string(id)+"\n"), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// WithSession gives the store the terminal session it runs in ($JP_SESSION,
// else the tmux pane): the active conversation is then recorded per session
// as well as per checkout, and read per session first, falling back to the
// checkout's. "" (the default) records per checkout only.
func WithSession(name string) Option { return func(s *Store) { s.session = name } }

// previousSuffix names the record of the conversation active before the
// current one, next to the record of the current one.
const previousSuffix = ".previous"

// sessionKey names a terminal session's record of its active conversation
// in loc's checkout; the session name is hashed, so any text is a safe
// file name.
func (s *Store) sessionKey(loc workspace.Location) string {
	sum := sha256.Sum256([]byte(s.session))
	return activeKey(loc) + ".session-" + hex.EncodeToString(sum[:8])
}

// activeKey names a checkout's record of its active conversation; a
// location with no checkout (the default workspace) has one of its own.
func activeKey(loc workspace.Location) string {
	if loc.Root == "" {
		return "no-checkout"
	}
	return workspace.RootKey(loc.Root)
}
