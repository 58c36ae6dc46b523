package fsstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

var _ ports.ConversationConfigs = (*Store)(nil)

// maxBaseConfigBytes bounds a base_config.json read as a configuration
// layer (the Rust jp writes the whole configuration there: tens of KB).
const maxBaseConfigBytes = 8 << 20

// BaseConfig implements ports.ConversationConfigs: the user-local copy's
// base_config.json when it has one, else the checkout's.
func (s *Store) BaseConfig(ctx context.Context, loc workspace.Location, id conversation.ID) ([]byte, bool, error) {
	p, err := s.find(ctx, loc, id, "conversation configuration")
	if err != nil {
		return nil, false, err
	}
	for _, dir := range []string{p.siloConv, p.projConv} {
		if dir == "" || (dir == p.siloConv && !p.inSilo) || (dir == p.projConv && !p.inProj) {
			continue
		}
		path := filepath.Join(dir, baseConfigFile)
		fi, err := os.Stat(path)
		if isNotExist(err) {
			continue
		}
		if err != nil {
			return nil, p.inProj, fmt.Errorf("read %s: %w", path, err)
		}
		if fi.Size() > maxBaseConfigBytes {
			return nil, p.inProj, fmt.Errorf("%s is larger than %d bytes: remove it or shorten it", path, maxBaseConfigBytes)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, p.inProj, fmt.Errorf("read %s: %w", path, err)
		}
		return b, p.inProj, nil
	}
	return nil, p.inProj, nil
}
