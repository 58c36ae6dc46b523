package fsstore

import (
	"context"
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
// conversation last used there: <silo>/active/<root-key>.
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
	b, err := os.ReadFile(filepath.Join(silo, activeDir, activeKey(loc)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read active conversation: %w", err)
	}
	id, err := conversation.ParseID(strings.TrimSpace(string(b)))
	if err != nil {
		return "", nil // a damaged record means none; the next jp q rewrites it
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
	return s.writeFile(filepath.Join(dir, activeKey(loc)), []byte(string(id)+"\n"), 0o600)
}

// activeKey names a checkout's record of its active conversation; a
// location with no checkout (the default workspace) has one of its own.
func activeKey(loc workspace.Location) string {
	if loc.Root == "" {
		return "no-checkout"
	}
	return workspace.RootKey(loc.Root)
}
