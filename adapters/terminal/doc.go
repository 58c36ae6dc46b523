// Package terminal is jp's terminal front end: the ports.Printer and the
// ports.Prompter of an interactive CLI.
//
// # Printer
//
// Where each channel goes (docs/architecture.md):
//
//	mode            content          reasoning, tool_call, tool_result   chrome, error
//	text, piped     stdout, as is    stdout, as is                       stderr (chrome: not with --quiet)
//	text, TTY       stdout, markdown stdout, dimmed / coloured           stderr, dimmed / red
//	json            stdout: one JSON object per Write and per EndBlock, every channel
//
// In text mode, Write never adds anything to the text, except a newline
// when the channel changes in the middle of a line; EndBlock ends an
// unterminated line. Piped stdout goes through a 64 KiB buffer: Write
// costs one buffered copy and no allocation, and the buffer is flushed by
// EndBlock, Flush, and before every chrome or error line so that stdout
// and stderr stay in order.
//
// On a TTY, content is echoed as it streams and each completed markdown
// block is then redrawn rendered: goldmark parses it (CommonMark with
// GitHub's tables and strikethrough) and jp's own renderer lays it out
// (see markdown.go for the streaming choice, mdrender.go and mdwrap.go
// for the renderer). Colours follow PrinterOptions.Style and NO_COLOR.
// Control characters in model, tool and plugin text are shown in caret
// notation (ESC as ^[) instead of reaching the terminal. Wait shows a
// spinner on stderr when stderr is a terminal.
//
// JSON mode (--format json) prints, to stdout, for every Write:
//
//	{"channel":"content","text":"Hello"}
//
// and for every EndBlock:
//
//	{"channel":"content","end":true}
//
// with channel one of content, chrome, tool_call, tool_result, reasoning,
// error; chrome records are left out with --quiet.
//
// # Prompter
//
// Confirm, select, text and secret questions are huh forms; a select whose
// options all carry a Key (the tool permission prompt) is an inline menu
// where one key press chooses, case-sensitively. ESC is
// ports.ErrCancelled, Ctrl-C ports.ErrInterrupted, and a prompter that is
// not interactive answers ports.ErrUnavailable. Compose is an inline
// multi-line editor (Enter sends, Alt+Enter or Ctrl+J inserts a newline,
// Ctrl+X continues in $VISUAL/$EDITOR) or the external editor directly.
package terminal
