package tomlconfig

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSafeDirectories(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")

	list, file, err := SafeDirectories(dir)
	if err != nil || list != nil || file != path {
		t.Fatalf("missing file: %q, %q, %v; want none, %s", list, file, err, path)
	}
	for _, tt := range []struct {
		content string
		want    []string
		bad     bool
	}{
		{"safe_directories = [\"/srv/a\", \"*\"]\n[query]\nloop = \"never\"\n", []string{"/srv/a", "*"}, false},
		{"[query]\nloop = \"never\"\n", nil, false},
		{"safe_directories = \"/srv/a\"\n", nil, true},
		{"safe_directories = [1]\n", nil, true},
		{"safe_directories = [\n", nil, true},
	} {
		if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
			t.Fatal(err)
		}
		list, _, err := SafeDirectories(dir)
		if tt.bad {
			if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), path) {
				t.Errorf("%q: error %v, want one line naming %s", tt.content, err, path)
			}
			continue
		}
		if err != nil || !slices.Equal(list, tt.want) {
			t.Errorf("%q: %q, %v; want %q", tt.content, list, err, tt.want)
		}
	}
}
