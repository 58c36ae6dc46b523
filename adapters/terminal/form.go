package terminal

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"

	"github.com/jpcli/jp/ports"
)

// formModel runs a one-field huh form and tells ESC from Ctrl-C, which
// huh does not: both would end the form as "aborted".
type formModel struct {
	form        *huh.Form
	allowEditor bool

	cancelled   bool // ESC
	interrupted bool // Ctrl-C
	toEditor    bool // Ctrl+X, when allowEditor
	done        bool
}

// Init starts the form.
func (m *formModel) Init() tea.Cmd { return m.form.Init() }

// Update ends the form on ESC, Ctrl-C and (when allowed) Ctrl+X, and
// passes every other message to the form.
func (m *formModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch k.String() {
		case "esc":
			m.cancelled, m.done = true, true
			return m, tea.Quit
		case "ctrl+c":
			m.interrupted, m.done = true, true
			return m, tea.Quit
		case "ctrl+x":
			if m.allowEditor {
				m.toEditor, m.done = true, true
				return m, tea.Quit
			}
		}
	}
	f, cmd := m.form.Update(msg)
	if f, ok := f.(*huh.Form); ok {
		m.form = f
	}
	if m.form.State != huh.StateNormal {
		m.done = true
		return m, tea.Quit
	}
	return m, cmd
}

// View draws the form, and nothing once it is done.
func (m *formModel) View() string {
	if m.done {
		return ""
	}
	return m.form.View()
}

// keyMap is huh's default key map with the external-editor key moved to
// Ctrl+X (which formModel handles itself).
func keyMap() *huh.KeyMap {
	km := huh.NewDefaultKeyMap()
	km.Text.Editor = key.NewBinding(key.WithKeys("ctrl+x"), key.WithHelp("ctrl+x", "editor"))
	km.Text.NewLine = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("alt+enter / ctrl+j", "new line"))
	return km
}

// runForm shows one field on the terminal until it is submitted. It
// returns toEditor when the user pressed Ctrl+X (allowEditor only), and
// the port's sentinels for ESC and Ctrl-C.
func (p *Prompter) runForm(ctx context.Context, field huh.Field, allowEditor bool) (toEditor bool, err error) {
	form := huh.NewForm(huh.NewGroup(field)).WithKeyMap(keyMap()).WithShowHelp(true)
	form.SubmitCmd = tea.Quit
	form.CancelCmd = tea.Quit
	m := &formModel{form: form, allowEditor: allowEditor}
	prog := tea.NewProgram(m,
		tea.WithInput(p.opts.In),
		tea.WithOutput(p.opts.Out),
		tea.WithContext(ctx),
		tea.WithoutSignalHandler(),
	)
	if _, err := prog.Run(); err != nil {
		return false, translate(ctx, err)
	}
	switch {
	case m.cancelled:
		return false, fmt.Errorf("prompt: %w", ports.ErrCancelled)
	case m.interrupted:
		return false, fmt.Errorf("prompt: %w", ports.ErrInterrupted)
	case m.toEditor:
		return true, nil
	case m.form.State != huh.StateCompleted:
		return false, fmt.Errorf("prompt: %w", ports.ErrInterrupted)
	}
	return false, nil
}
