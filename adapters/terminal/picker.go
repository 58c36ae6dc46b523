package terminal

import (
	"context"
	"errors"
	"strings"

	"github.com/charmbracelet/huh"
)

// PickItem is one conversation the picker offers.
type PickItem struct {
	ID    string
	Title string
}

// pickerLabel is what the picker shows and filters on for it: the ID and
// the title on one line (oneLine makes it safe for the terminal).
func pickerLabel(it PickItem) string {
	title := oneLine(it.Title)
	if title == "" {
		title = "(untitled)"
	}
	return it.ID + "  " + title
}

// pickerMatches reports whether the picker keeps it while the user has
// typed filter: huh's Select filter, a case-insensitive substring of the
// label (the ID or the title).
func pickerMatches(it PickItem, filter string) bool {
	return strings.Contains(strings.ToLower(pickerLabel(it)), strings.ToLower(filter))
}

// Pick shows items in a filtering list (type to narrow by title or ID)
// and returns the ID chosen. It needs the terminal the prompter was given.
func (p *Prompter) Pick(ctx context.Context, title string, items []PickItem) (string, error) {
	if !p.opts.Interactive {
		return "", errors.New("the conversation picker needs a terminal")
	}
	opts := make([]huh.Option[string], len(items))
	for i, it := range items {
		opts[i] = huh.NewOption(pickerLabel(it), it.ID)
	}
	var v string
	f := huh.NewSelect[string]().Title(title).Options(opts...).Filtering(true).Value(&v)
	if p.opts.Height > 6 {
		f.Height(p.opts.Height - 4)
	}
	if _, err := p.runForm(ctx, f, false); err != nil {
		return "", err
	}
	return v, nil
}
