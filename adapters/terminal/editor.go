package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/jpcli/jp/ports"
)

// runEditor runs the external editor on content for a compose request
// (RunEditor, in the prompt's terminal). editor (editor.cmd) replaces the
// one found at start when set.
func (p *Prompter) runEditor(ctx context.Context, editor, purpose, content string) (string, error) {
	return RunEditor(ctx, EditorRun{
		Cmd: editor, Found: p.opts.Editor, In: p.opts.In, Out: p.opts.Out,
		TempDir: p.opts.TempDir, Pattern: "jp-" + fileSafe(purpose) + "-*" + editorExt(purpose), Content: content,
	})
}

// editorExt is the extension of the editor's file for a compose purpose:
// it tells the editor the syntax. A tool call's arguments are JSON; every
// other text is markdown.
func editorExt(purpose string) string {
	if purpose == "tool_arguments" {
		return ".json"
	}
	return ".md"
}

// EditorRun is one run of the external editor.
type EditorRun struct {
	// Cmd is the editor.cmd configuration key; it wins when set.
	Cmd string
	// Found is the editor found at start: $JP_EDITOR, $VISUAL, $EDITOR,
	// then editor, nano or vi on $PATH.
	Found string
	// In and Out are the editor's terminal (Out takes its stderr too).
	In  io.Reader
	Out io.Writer
	// TempDir holds the file ("" is the system's); Pattern names it as
	// os.CreateTemp does (the extension tells the editor the syntax).
	TempDir, Pattern string
	// Content is what the file starts with.
	Content string
}

// RunEditor is jp's one editor launcher (jp q -e, Ctrl+X in a composer,
// jp conversation edit): it writes Content to a temporary file, runs the
// editor on it, and returns the file as saved. The file is removed
// afterwards. An editor that exits non-zero (vim's :cq) cancels:
// ports.ErrCancelled. No editor, or one that cannot run, is
// ports.ErrUnavailable with one line saying how to set one.
func RunEditor(ctx context.Context, r EditorRun) (string, error) {
	editor, from := strings.TrimSpace(r.Cmd), "editor.cmd"
	if editor == "" {
		editor, from = strings.TrimSpace(r.Found), "$JP_EDITOR, $VISUAL, $EDITOR or $PATH"
	}
	args := strings.Fields(editor)
	if len(args) == 0 {
		return "", fmt.Errorf("no editor found: set editor.cmd, $JP_EDITOR, $VISUAL or $EDITOR (e.g. export EDITOR=vi), or install editor, nano or vi: %w", ports.ErrUnavailable)
	}
	pattern := r.Pattern
	if pattern == "" {
		pattern = "jp-*.md"
	}
	f, err := os.CreateTemp(r.TempDir, pattern)
	if err != nil {
		return "", fmt.Errorf("create the editor's file: %w", err)
	}
	path := f.Name()
	defer func() { _ = os.Remove(path) }()
	_, werr := f.WriteString(r.Content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return "", fmt.Errorf("write the editor's file %s: %w", path, werr)
	}

	cmd := exec.CommandContext(ctx, args[0], append(args[1:], path)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r.In, r.Out, r.Out
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
