package wire

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkUserEventsLimit: what reading the user's events limit costs
// (its own load of the user's configuration), with a small user file.
func BenchmarkUserEventsLimit(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[conversation.limits]\nconversation_bytes = 1000000\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	fn := userEventsLimit(Options{ConfigDir: dir, Environ: []string{"HOME=" + dir}})
	for b.Loop() {
		if fn() != 1000000 {
			b.Fatal("limit not read")
		}
	}
}
