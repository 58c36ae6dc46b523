package gitignore

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// benchIgnore is a .gitignore like a real project's.
const benchIgnore = `# build output
/bin/
/dist/
*.o
*.a
*.so
*.log
*.tmp
node_modules/
vendor/
coverage.*
.cache/
**/testdata/golden/*.out
!keep.log
docs/_build/
*.py[cod]
__pycache__/
`

// benchTree is 10,000 files in 100 directories (a tenth of them ignored),
// a .gitignore at the root and one in every tenth directory.
var benchTree = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "jp-walk-bench-")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(benchIgnore), 0o644); err != nil {
		return "", err
	}
	for d := range 100 {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return "", err
		}
		if d%10 == 0 {
			if err := os.WriteFile(filepath.Join(sub, ".gitignore"), []byte("gen_*.go\n!gen_keep.go\n"), 0o644); err != nil {
				return "", err
			}
		}
		for f := range 100 {
			name := fmt.Sprintf("file%03d.go", f)
			switch f % 10 {
			case 3:
				name = fmt.Sprintf("file%03d.o", f)
			case 7:
				name = fmt.Sprintf("gen_%03d.go", f)
			}
			if err := os.WriteFile(filepath.Join(sub, name), nil, 0o644); err != nil {
				return "", err
			}
		}
	}
	return dir, nil
})

// BenchmarkWalk10000Files walks benchTree with its .gitignore files.
func BenchmarkWalk10000Files(b *testing.B) {
	dir, err := benchTree()
	if err != nil {
		b.Fatal(err)
	}
	fsys := os.DirFS(dir)
	for b.Loop() {
		n := 0
		err := Walk(context.Background(), fsys, ".", Options{}, func(string, fs.DirEntry, error) error {
			n++
			return nil
		})
		if err != nil || n != 8911 {
			b.Fatalf("%d files, %v", n, err)
		}
	}
}
