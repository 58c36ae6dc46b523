package terminal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/jpcli/jp/ports"
)

// runEditor writes content to a temporary file, runs the external editor
// on it in the terminal, and returns the file as saved. The file is
// removed afterwards. An editor that exits non-zero (vim's :cq) cancels:
// ports.ErrCancelled. A missing editor is ports.ErrUnavailable. editor
// (editor.cmd) replaces the one found at start when set.
func (p *Prompter) runEditor(ctx context.Context, editor, purpose, content string) (string, error) {
	from := "$JP_EDITOR, $VISUAL, $EDITOR or $PATH"
	if strings.TrimSpace(editor) == "" {
		editor = p.opts.Editor
	} else {
		from = "editor.cmd"
	}
	args := strings.Fields(editor)
	if len(args) == 0 {
		return "", fmt.Errorf("no editor found: set editor.cmd, $JP_EDITOR, $VISUAL or $EDITOR (e.g. export EDITOR=vi), or install editor, nano or vi: %w", ports.ErrUnavailable)
	}
	f, err := os.CreateTemp(p.opts.TempDir, "jp-"+fileSafe(purpose)+"-*.md")
	if err != nil {
		return "", fmt.Errorf("create the editor's file: %w", err)
	}
	path := f.Name()
	defer func() { _ = os.Remove(path) }()
	_, werr := f.WriteString(content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return "", fmt.Errorf("write the editor's file %s: %w", path, werr)
	}

	cmd := exec.CommandContext(ctx, args[0], append(args[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.opts.In, p.opts.Out, p.opts.Out
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		switch {
		case ctx.Err() != nil:
			return "", ctx.Err()
		case errors.As(err, &exit):
			return "", fmt.Errorf("the editor %s exited with status %d, so nothing was taken from it: %w", args[0], exit.ExitCode(), ports.ErrCancelled)
		}
		return "", fmt.Errorf("run the editor %q (from %s): %v: %w", editor, from, err, ports.ErrUnavailable)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the editor's file %s: %w", path, err)
	}
	return string(b), nil
}

// fileSafe keeps letters, digits, '-' and '_' of s for a file name.
func fileSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return -1
	}, s)
	if s == "" {
		return "message"
	}
	return s
}
