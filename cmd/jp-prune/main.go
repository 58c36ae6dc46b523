// Command jp-prune is an example command plugin written with the Go SDK
// (adapters/pluginsdk): jp prune archives the conversations that have not
// been active for --days N, after a confirm prompt (skipped with --yes).
// See docs/plugins.md.
package main

import (
	_ "embed"
	"fmt"
	"os"
	"time"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/cmd/jp-prune/prune"
	"github.com/jpcli/jp/domain/plugin"
)

//go:embed jp-prune.manifest.json
var manifestJSON []byte

func main() {
	m, err := plugin.ParseManifest(manifestJSON)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jp-prune:", err)
		os.Exit(1)
	}
	pluginsdk.Main(m, prune.Pruner{Now: time.Now}.Run)
}
