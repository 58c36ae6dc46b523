package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/safetext"
)

// jp q -a, as in the Rust jp, adds to the conversation's configuration:
// each attachment it names is recorded in conversation.attachments (in
// the run's config_delta, the Rust jp's delta of a list: the new items,
// appended to the list below them) and so is read again, fresh, for every
// later turn of the conversation, as jp attachment add does. A path is
// recorded as the Rust jp records it, file:PATH relative to the checkout
// (a glob as the plain relative path); the jp-cID shorthand as its jp://
// URL; anything else as given. Two -a of this jp the Rust jp does not
// have stay with the one message: stdin (-a -), which cannot be read
// again, and a path outside the checkout (the Rust jp refuses it; a
// conversation's attachments stay inside the checkout), with one line
// saying so. This turn reads each -a as before (relative to the launch
// directory); one the configuration already holds is read once, as a
// configured attachment.

// stickyAttach splits in.Attach: the specs to record (normalized, not
// already in configured), and the -a specs this turn reads itself (those
// already configured left out). note gets a line for each path kept to
// this message alone.
func stickyAttach(loc workspace.Location, in QueryInput, configured []string, note func(string)) (record, read []string) {
	have := make(map[string]bool, len(configured))
	for _, c := range configured {
		have[c], have[stickyForm(loc.Root, loc.Root, c)] = true, true
	}
	for _, spec := range in.Attach {
		if spec == "-" {
			read = append(read, spec)
			continue
		}
		norm := stickyForm(loc.Root, in.LaunchDir, spec)
		switch {
		case norm == "":
			note(safetext.String(fmt.Sprintf("-a %s: outside the checkout, attached to this message only (a conversation's attachments stay inside the checkout)", spec)))
			read = append(read, spec)
		case have[norm]:
			// read as a configured attachment
		default:
			have[norm] = true
			record = append(record, norm)
			read = append(read, spec)
		}
	}
	return record, read
}

// stickyForm is spec as the conversation's configuration records it
// (see above), "" for a path outside root.
func stickyForm(root, dir, spec string) string {
	if conversation.AttachKindOf(spec) != conversation.AttachPath {
		return shorthandURL(spec)
	}
	if root == "" {
		return "" // no checkout for the path to be relative to
	}
	f := rustFileForm(root, dir, spec)
	if f != "" && strings.ContainsAny(f, "*?[") {
		return strings.TrimPrefix(f, "file:") // a glob, as configured paths take it
	}
	return f
}

// withAttachments adds specs to the conversation.attachments of changes
// (a copy; changes is not modified).
func withAttachments(changes map[string]any, specs []string) map[string]any {
	if len(specs) == 0 {
		return changes
	}
	out := config.Clone(changes)
	if out == nil {
		out = map[string]any{}
	}
	conv, _ := out["conversation"].(map[string]any)
	if conv == nil {
		conv = map[string]any{}
		out["conversation"] = conv
	}
	var list []any
	switch l := conv["attachments"].(type) {
	case nil:
	case []any:
		list = slices.Clone(l)
	default:
		return changes // --cfg gave the list with a merge strategy: it wins
	}
	for _, s := range specs {
		list = append(list, s)
	}
	conv["attachments"] = list
	return out
}
