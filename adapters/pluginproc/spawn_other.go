//go:build !unix

package pluginproc

import (
	"context"
	"errors"

	"github.com/jpcli/jp/ports"
)

// Spawner is the ports.PluginSpawner; command plugins need a Unix system.
type Spawner struct{}

var _ ports.PluginSpawner = Spawner{}

// Spawn refuses: process groups and pipes as used here are Unix-only.
func (Spawner) Spawn(ctx context.Context, spec ports.PluginSpec) (ports.PluginTransport, error) {
	return nil, errors.New("command plugins need a Unix system")
}
