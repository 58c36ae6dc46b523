package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/jpcli/jp/ports"
)

// FmtTargets says which configuration files jp config fmt lays out. None
// set means all of them, as in the Rust jp.
type FmtTargets struct {
	// UserGlobal is the user's config.toml.
	UserGlobal bool
	// UserWorkspace is the user's per-workspace configuration, which this
	// jp does not have.
	UserWorkspace bool
	// Cwd is the nearest .jp.toml from the launch directory up to the
	// checkout's root.
	Cwd bool
}

// FmtResult is what jp config fmt did to one file.
type FmtResult struct {
	Path    string
	Changed bool // laid out anew (never with check: that stops with an error)
}

// Format lays out the configuration files of targets (jp config fmt):
// the checkout's .jp/config.toml, the user's config.toml and the nearest
// .jp.toml when no target is given. Files that do not exist are left out.
// With check nothing is written, and the first file not laid out stops
// it with a *UserError.
func (c *Config) Format(ctx context.Context, in ConfigInput, t FmtTargets, check bool) ([]FmtResult, error) {
	if t.UserWorkspace {
		return nil, &UsageError{Msg: "jp config fmt --user-workspace: this jp has no per-workspace user configuration; format the user configuration with --user-global"}
	}
	root := ""
	f, err := c.ws.Resolve(ctx, in.Target, in.LaunchDir)
	switch {
	case err == nil:
		root = f.Root
	case in.Target == "" && errors.Is(err, ports.ErrNoWorkspace):
	default:
		return nil, err
	}
	all := !t.UserGlobal && !t.Cwd
	var files [][]string // each: candidates, the first that exists is formatted
	if all && root != "" {
		files = append(files, []string{filepath.Join(root, ".jp", "config.toml")})
	}
	if (all || t.UserGlobal) && in.UserConfigDir != "" {
		files = append(files, []string{filepath.Join(in.UserConfigDir, "config.toml")})
	}
	if all || t.Cwd {
		files = append(files, dotJPUp(root, in.LaunchDir))
	}
	var out []FmtResult
	for _, candidates := range files {
		for _, file := range candidates {
			changed, err := c.editor.Format(ctx, file, check)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return out, &UserError{Msg: err.Error(), Err: err}
			}
			if changed && check {
				return out, &UserError{Msg: fmt.Sprintf("Configuration file %s is not formatted correctly; run jp config fmt to format it", file)}
			}
			out = append(out, FmtResult{Path: file, Changed: changed})
			break
		}
	}
	return out, nil
}

// dotJPUp lists .jp.toml in dir and each directory above it up to root
// (dir alone outside a checkout or when dir is not inside root).
func dotJPUp(root, dir string) []string {
	if dir == "" {
		return nil
	}
	dir = filepath.Clean(dir)
	out := []string{filepath.Join(dir, ".jp.toml")}
	if root == "" {
		return out
	}
	root = filepath.Clean(root)
	rel, err := filepath.Rel(root, dir)
	if err != nil || !filepath.IsLocal(rel) {
		return out
	}
	for dir != root {
		dir = filepath.Dir(dir)
		out = append(out, filepath.Join(dir, ".jp.toml"))
	}
	return out
}
