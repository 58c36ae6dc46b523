package terminal

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/jpcli/jp/internal/gitignore"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// The session composer (docs/session.md): a header line naming where the
// message goes, a multi-line text area, completion of slash commands and
// @paths under it, and a hint line.
//
// Keys: Enter sends (or takes the completion shown), Alt+Enter or Ctrl+J
// inserts a newline, Tab completes, Up and Down walk the history from
// the first and last line, Ctrl-D ends the session, Ctrl-C clears the
// text and a second Ctrl-C in a row leaves.

const (
	composerMaxPaths    = 20000                  // files of the checkout "@" offers
	composerShown       = 8                      // completions shown at once
	composerAutosaveGap = 300 * time.Millisecond // least time between autosaves
)

// composerModel is the bubbletea model of the session composer.
type composerModel struct {
	req    ports.ComposeRequest
	ta     textarea.Model
	width  int
	header string

	hist    []string
	histPos int    // index into hist while walking it; len(hist) when not
	stash   string // the text typed before Up started walking

	cleared string // the text the last Ctrl-C cleared
	armed   bool   // Ctrl-C was the last key: another leaves
	note    string // a one-line note under the text

	matches []string // completions of the word at the cursor
	sel     int
	paths   []string // the checkout's files, read on the first "@"
	pathsOK bool

	lastSave time.Time
	saved    string
	pending  bool // an autosave is due when its tick comes

	submitted, ended, left bool
}

func newComposerModel(req ports.ComposeRequest) *composerModel {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	ta.Placeholder = ""
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.SetHeight(3)
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"))
	ta.FocusedStyle.CursorLine = ta.FocusedStyle.Text
	ta.SetValue(req.Initial)
	ta.Focus()
	ta.Cursor.SetMode(cursor.CursorStatic)
	m := &composerModel{req: req, ta: ta, hist: req.History, histPos: len(req.History), width: 80,
		header: safetext.String(oneLine(req.Header)), saved: req.Initial}
	m.resize()
	return m
}

// Init starts nothing: the cursor does not blink (no timers to outlive
// the composer).
func (m *composerModel) Init() tea.Cmd { return nil }

// Update handles the session keys and passes the rest to the text area.
func (m *composerModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case autosaveMsg:
		m.pending = false
		m.autosave()
		return m, nil
	case tea.WindowSizeMsg:
		if msg.Width > 0 {
			m.width = msg.Width
			m.ta.SetWidth(max(msg.Width-1, 10))
		}
		return m, nil
	case tea.KeyMsg:
		k := msg.String()
		if k != "ctrl+c" {
			m.armed = false
		}
		switch k {
		case "ctrl+c":
			return m, m.interrupt()
		case "ctrl+d":
			m.ended = true
			return m, tea.Quit
		case "enter":
			if len(m.matches) > 0 {
				return m, m.complete()
			}
			m.submitted = true
			return m, tea.Quit
		case "tab":
			if len(m.matches) > 0 {
				return m, m.complete()
			}
			return m, nil
		case "esc":
			m.matches = nil
			return m, nil
		case "up", "down":
			if cmd, ok := m.move(k == "up"); ok {
				return m, cmd
			}
		}
		m.note = ""
	}
	var cmd tea.Cmd
	before := m.ta.Value()
	m.ta, cmd = m.ta.Update(msg)
	if m.ta.Value() != before {
		return m, tea.Batch(cmd, m.changed())
	}
	return m, cmd
}

// interrupt is Ctrl-C: the first press clears the text (kept to bring
// back) and arms; the second leaves.
func (m *composerModel) interrupt() tea.Cmd {
	if m.armed {
		m.left = true
		return tea.Quit
	}
	if v := m.ta.Value(); strings.TrimSpace(v) != "" {
		m.cleared = v
	}
	cmd := m.setText("")
	m.armed, m.matches = true, nil
	m.note = "Ctrl-C again leaves (the text is kept as the draft); Ctrl-D ends the session."
	return cmd
}

// move is Up or Down: it moves the completion selection, or, on the
// first or last line, through the message history. ok is false when the
// key is the text area's (a move between lines).
func (m *composerModel) move(up bool) (cmd tea.Cmd, ok bool) {
	if n := len(m.matches); n > 0 {
		if up {
			m.sel = (m.sel + n - 1) % n
		} else {
			m.sel = (m.sel + 1) % n
		}
		return nil, true
	}
	if up && m.ta.Line() == 0 && m.histPos > 0 {
		if m.histPos == len(m.hist) {
			m.stash = m.ta.Value()
		}
		m.histPos--
		return m.setText(m.hist[m.histPos]), true
	}
	if !up && m.ta.Line() == m.ta.LineCount()-1 && m.histPos < len(m.hist) {
		m.histPos++
		if m.histPos == len(m.hist) {
			return m.setText(m.stash), true
		}
		return m.setText(m.hist[m.histPos]), true
	}
	return nil, false
}

// setText replaces the text, the cursor at its end.
func (m *composerModel) setText(s string) tea.Cmd {
	m.ta.SetValue(s)
	return m.changed()
}

// autosaveMsg is the tick of an autosave that was held back.
type autosaveMsg struct{}

// changed re-reads the completions and autosaves: at once when the last
// save is composerAutosaveGap old, else when a tick comes, so the text
// typed last is saved too.
func (m *composerModel) changed() tea.Cmd {
	m.resize()
	m.matches, m.sel = m.completions(), 0
	if m.req.Autosave == nil {
		return nil
	}
	if time.Since(m.lastSave) >= composerAutosaveGap {
		m.autosave()
		return nil
	}
	if m.pending {
		return nil
	}
	m.pending = true
	return tea.Tick(composerAutosaveGap, func(time.Time) tea.Msg { return autosaveMsg{} })
}

// autosave hands the text to req.Autosave when it changed since the last.
func (m *composerModel) autosave() {
	if v := m.ta.Value(); m.req.Autosave != nil && v != m.saved {
		m.req.Autosave(v)
		m.saved, m.lastSave = v, time.Now()
	}
}

// resize grows the text area with its text, up to 12 lines.
func (m *composerModel) resize() {
	m.ta.SetHeight(min(max(m.ta.LineCount(), 3), 12))
}

// word is the word before the cursor on its line: its start column and
// text.
func (m *composerModel) word() (row, start, end int, w string) {
	lines := strings.Split(m.ta.Value(), "\n")
	row = m.ta.Line()
	if row >= len(lines) {
		return row, 0, 0, ""
	}
	line := []rune(lines[row])
	li := m.ta.LineInfo()
	end = min(li.StartColumn+li.ColumnOffset, len(line))
	start = end
	for start > 0 && line[start-1] != ' ' && line[start-1] != '\t' {
		start--
	}
	return row, start, end, string(line[start:end])
}

// completions are the slash commands matching the first word, or the
// checkout's files matching an "@" word.
func (m *composerModel) completions() []string {
	row, start, _, w := m.word()
	switch {
	case row == 0 && start == 0 && strings.HasPrefix(w, "/") && !strings.Contains(w[1:], "/"):
		var out []string
		for _, c := range m.req.Commands {
			if name := "/" + c.Name; strings.HasPrefix(name, w) && name != w {
				out = append(out, name)
			}
		}
		return out
	case strings.HasPrefix(w, "@") && m.req.Root != "":
		if !m.pathsOK {
			m.paths, m.pathsOK = checkoutFiles(m.req.Root), true
		}
		return matchPaths(m.paths, w[1:])
	}
	return nil
}

// complete replaces the word at the cursor with the selected completion.
func (m *composerModel) complete() tea.Cmd {
	row, start, end, w := m.word()
	choice := m.matches[m.sel]
	if strings.HasPrefix(w, "@") {
		choice = "@" + choice
	}
	lines := strings.Split(m.ta.Value(), "\n")
	line := []rune(lines[row])
	lines[row] = string(line[:start]) + choice + " " + string(line[end:])
	m.ta.SetValue(strings.Join(lines, "\n"))
	// The cursor goes after the completion.
	for m.ta.Line() > row {
		m.ta.CursorUp()
	}
	m.ta.SetCursor(start + utf8.RuneCountInString(choice) + 1)
	cmd := m.changed()
	m.matches, m.sel = nil, 0
	return cmd
}

// View draws the header, the text, the completions and the hint.
func (m *composerModel) View() string {
	if m.submitted || m.ended || m.left {
		return ""
	}
	var b strings.Builder
	b.WriteString(sgrDim + truncate(m.header, m.width-1) + sgrReset + "\n")
	b.WriteString(m.ta.View() + "\n")
	for _, c := range window(m.matches, m.sel, composerShown) {
		mark := "  "
		if c == m.matches[m.sel] {
			mark = "› "
		}
		b.WriteString(truncate(mark+safetext.String(c)+m.commandHelp(c), m.width-1) + "\n")
	}
	hint := m.note
	if hint == "" {
		hint = "enter: send · alt+enter: newline · ↑: history · /help · @: files · ctrl+d: end"
	}
	b.WriteString(sgrDim + truncate(hint, m.width-1) + sgrReset)
	return b.String()
}

// commandHelp is a slash command's synopsis, shown beside its completion.
func (m *composerModel) commandHelp(c string) string {
	for _, sc := range m.req.Commands {
		if "/"+sc.Name == c {
			return "  " + sgrDim + strings.TrimSpace(sc.Args+"  "+sc.Help) + sgrReset
		}
	}
	return ""
}

// window is at most n items of list around sel.
func window(list []string, sel, n int) []string {
	if len(list) <= n {
		return list
	}
	start := min(max(sel-n/2, 0), len(list)-n)
	return list[start : start+n]
}

// truncate cuts s to w cells (runes; the header is one line).
func truncate(s string, w int) string {
	if w < 1 {
		return s
	}
	r := []rune(s)
	if len(r) <= w {
		return s
	}
	return string(r[:max(w-1, 0)]) + "…"
}

// checkoutFiles lists the checkout's files as the file tools see them
// (git's ignore rules, .git never entered, symbolic links left out), at
// most composerMaxPaths of them.
func checkoutFiles(root string) []string {
	var out []string
	opt := gitignore.Options{Exclude: gitignore.ReadExclude(root)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = gitignore.Walk(ctx, os.DirFS(root), ".", opt, func(rel string, d fs.DirEntry, err error) error {
		if err != nil || d == nil || !d.Type().IsRegular() {
			return nil
		}
		out = append(out, rel)
		if len(out) >= composerMaxPaths {
			return fs.SkipAll
		}
		return nil
	})
	return out
}

// matchPaths are the paths starting with prefix, then those whose base
// name starts with it, then those containing it.
func matchPaths(paths []string, prefix string) []string {
	var first, second, third []string
	for _, p := range paths {
		base := p[strings.LastIndexByte(p, '/')+1:]
		switch {
		case strings.HasPrefix(p, prefix):
			first = append(first, p)
		case strings.HasPrefix(base, prefix):
			second = append(second, p)
		case prefix != "" && strings.Contains(p, prefix):
			third = append(third, p)
		}
	}
	sort.Strings(second)
	out := append(append(first, second...), third...)
	if len(out) == 1 && out[0] == prefix {
		return nil
	}
	return out
}

// composeSession runs the session composer. Submitted text comes back
// with no error; Ctrl-D answers ErrCancelled and a second Ctrl-C
// ErrInterrupted, each with the text typed (or the text the first Ctrl-C
// cleared), for the caller to keep as the draft.
func (p *Prompter) composeSession(ctx context.Context, req ports.ComposeRequest) (string, error) {
	m := newComposerModel(req)
	prog := tea.NewProgram(m,
		tea.WithInput(p.opts.In),
		tea.WithOutput(p.opts.Out),
		tea.WithContext(ctx),
		tea.WithoutSignalHandler(),
	)
	_, err := prog.Run()
	text := m.ta.Value()
	if strings.TrimSpace(text) == "" && !m.submitted {
		text = m.cleared
	}
	if err != nil {
		// A shutdown (SIGTERM) ends the program: the text comes back too.
		return text, translate(ctx, err)
	}
	switch {
	case m.ended:
		return text, fmt.Errorf("composer: ended with Ctrl-D: %w", ports.ErrCancelled)
	case m.left:
		return text, fmt.Errorf("composer: left with Ctrl-C: %w", ports.ErrInterrupted)
	case !m.submitted:
		return text, fmt.Errorf("composer: %w", ports.ErrInterrupted)
	}
	return text, nil
}
