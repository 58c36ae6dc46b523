package main

import (
	"bufio"
	"fmt"
	"path/filepath"

	"github.com/jpcli/jp/adapters/pluginproc"
	"github.com/jpcli/jp/app/pluginhost"
)

// PluginCmd is jp plugin: the built-in plugin management group. It wins
// over any jp-plugin executable.
type PluginCmd struct {
	Ls PluginLsCmd `cmd:"" aliases:"list" help:"List command plugins with their path, version, scope and trust state."`
}

// PluginLsCmd is jp plugin ls.
type PluginLsCmd struct {
	FormatFlag
}

// Run lists the discovered plugins.
func (c *PluginLsCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	views, err := a.Plugins.List(rt.Ctx, pluginhost.ListInput{
		SearchPath: searchPath(rt.Environ),
		Config:     rt.configInput(),
	})
	if err != nil {
		return err
	}
	w := bufio.NewWriter(rt.Streams.Out)
	defer w.Flush()
	if c.JSON() {
		return writeJSON(w, views)
	}
	if len(views) == 0 {
		fmt.Fprintf(w, "No plugins found: put jp-<name> executables (with a jp-<name>.manifest.json beside them) in %s or on $PATH; see docs/plugins.md.\n",
			pluginproc.NewCatalog(rt.Paths.DataDir).InstallDir())
		return nil
	}
	fmt.Fprintf(w, "%-14s  %-18s  %-10s  %-6s  %-24s  %s\n", "NAME", "COMMAND", "VERSION", "SCOPE", "TRUST", "PATH")
	for _, v := range views {
		ver := v.Version
		if ver == "" {
			ver = "-"
		}
		fmt.Fprintf(w, "%-14s  %-18s  %-10s  %-6s  %-24s  %s\n", v.Name, "jp "+v.Command, ver, v.Scope, v.Trust, v.Path)
		if v.Problem != "" {
			fmt.Fprintf(w, "  ! %s\n", v.Problem)
		}
	}
	return nil
}

// searchPath is $PATH of environ, split.
func searchPath(environ []string) []string {
	return filepath.SplitList(envMap(environ)["PATH"])
}
