package tomlconfig

import (
	"fmt"
	"path/filepath"
)

// SafeDirectories reads safe_directories from the user configuration file
// <configDir>/config.toml alone, and returns it with the file's path: the
// key allows workspaces another user owns, so only the user's own file
// counts, never a workspace's files nor the merged configuration. A
// missing file or key gives an empty list.
func SafeDirectories(configDir string) ([]string, string, error) {
	path := filepath.Join(configDir, "config.toml")
	if configDir == "" {
		return nil, path, nil
	}
	tree, err := readFile(path)
	if err != nil || tree == nil {
		return nil, path, err
	}
	v, ok := tree["safe_directories"]
	if !ok {
		return nil, path, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, path, fmt.Errorf("%s: safe_directories must be an array of directory paths, like [\"/srv/shared\"]", path)
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, path, fmt.Errorf("%s: safe_directories must be an array of directory paths, like [\"/srv/shared\"]", path)
		}
		out = append(out, s)
	}
	return out, path, nil
}
