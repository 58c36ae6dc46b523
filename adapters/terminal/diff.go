package terminal

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"golang.org/x/term"

	"github.com/jpcli/jp/internal/difflines"
	"github.com/jpcli/jp/internal/safetext"
)

// SGR colours of a diff.
const (
	sgrDiffAdd  = "\x1b[32m"
	sgrDiffDel  = "\x1b[31m"
	sgrDiffHunk = "\x1b[36m"
	sgrDiffHead = "\x1b[1m"
)

// diffColours colours each kind of diff line (context: none).
var diffColours = [...]string{
	difflines.Head: sgrDiffHead,
	difflines.Add:  sgrDiffAdd,
	difflines.Del:  sgrDiffDel,
	difflines.Hunk: sgrDiffHunk,
}

// colourDiff renders a unified diff for the terminal: control characters
// of the (untrusted) file text neutralised, added lines green, removed
// lines red, hunk headers cyan, file headers bold. Lines end in "\n".
func colourDiff(diff string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		l = safetext.String(strings.TrimSuffix(l, "\r"))
		colour := diffColours[difflines.Classify(l)]
		if colour != "" {
			b.WriteString(colour + l + sgrReset + "\n")
		} else {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// showDiff prints a diff before a question; one longer than the screen
// goes through the pager (the user reads it, quits the pager, and the
// question follows).
func (p *Prompter) showDiff(ctx context.Context, diff string) {
	text := colourDiff(diff)
	lines := strings.Count(text, "\n")
	height := p.opts.Height
	if height == 0 {
		if _, h, err := term.GetSize(int(p.opts.Out.Fd())); err == nil {
			height = h
		}
	}
	if height > 0 && lines > height-4 {
		if argv := p.pager(); len(argv) > 0 {
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.Stdin = strings.NewReader(text)
			cmd.Stdout, cmd.Stderr = p.opts.Out, p.opts.Out
			if err := cmd.Run(); err == nil {
				fmt.Fprintf(p.opts.Out, "%s(the diff above has %d lines)%s\n", sgrDim, lines, sgrReset)
				return
			}
		}
	}
	fmt.Fprint(p.opts.Out, text)
}

// pager returns the pager command, or nil when none is available.
func (p *Prompter) pager() []string {
	if f := strings.Fields(p.opts.Pager); len(f) > 0 {
		return f
	}
	if _, err := exec.LookPath("less"); err == nil {
		return []string{"less", "-RFX"}
	}
	return nil
}
