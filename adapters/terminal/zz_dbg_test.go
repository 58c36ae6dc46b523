package terminal

import (
	"os"
	"fmt"
	"strings"
	"testing"

	"github.com/jpcli/jp/ports"
)

type rec struct{ b strings.Builder }

func (r *rec) Write(p []byte) (int, error) { r.b.Write(p); return len(p), nil }

func TestDbgDemo(t *testing.T) {
	v := &vt{width: 120}
	r := &rec{}
	w := struct{ *rec }{r}
	_ = w
	pr := NewPrinter(PrinterOptions{Stdout: r, Stderr: r, IsTTY: true, StderrIsTTY: true, Width: 120, Height: 30})
	doc := "# Plan\n\nFirst, **read** the `config` file and check every key. " +
		"This paragraph is long enough to wrap on a narrow terminal, which tests the erase logic.\n\n" +
		"- one\n- two\n\n```go\nfunc main() {\n\n\tfmt.Println(1)\n}\n```\n\nDone."
	for _, word := range strings.SplitAfter(doc, " ") {
		pr.Write(ports.ChannelContent, word)
	}
	pr.EndBlock(ports.ChannelContent)
	_, _ = v.Write([]byte(r.b.String()))
	_ = os.WriteFile("/tmp/stream.bin", []byte(r.b.String()), 0o644)
	fmt.Println(v.String())
}
