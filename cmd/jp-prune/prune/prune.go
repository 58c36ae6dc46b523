// Package prune is the body of the jp-prune example plugin: it archives
// the conversations not active for --days N. Archiving (not deleting) is
// the choice: an archived conversation is hidden from listings and comes
// back with jp conversation unarchive, so a mistaken prune costs nothing.
package prune

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/domain/plugin"
)

// Pruner archives stale conversations. Now is the clock.
type Pruner struct {
	Now func() time.Time
}

// Run is the plugin's body: parse the arguments, find the stale
// conversations, confirm (unless --yes), archive.
func (p Pruner) Run(ctx context.Context, c *pluginsdk.Client) error {
	var usage bytes.Buffer
	fs := flag.NewFlagSet("jp prune", flag.ContinueOnError)
	fs.SetOutput(&usage)
	days := fs.Int("days", 30, "how many days without activity make a conversation stale")
	yes := fs.Bool("yes", false, "archive without asking")
	if err := fs.Parse(c.Args()); err != nil {
		return pluginsdk.Exit(2, fmt.Sprintf("%v: usage: jp prune [--days N] [--yes]", err))
	}
	if *days < 0 || fs.NArg() > 0 {
		return pluginsdk.Exit(2, "usage: jp prune [--days N] [--yes] (N >= 0)")
	}
	convs, err := c.ListConversations(ctx)
	if err != nil {
		return err
	}
	stale := Stale(convs, p.Now().Add(-time.Duration(*days)*24*time.Hour))
	if len(stale) == 0 {
		return c.Print(fmt.Sprintf("No conversations inactive for %d days.\n", *days))
	}
	if !*yes {
		r, err := c.Confirm(ctx, fmt.Sprintf("Delete %d stale conversations? (they are archived, not removed)", len(stale)), false)
		if err != nil {
			return err
		}
		switch {
		case r.Outcome == plugin.PromptOutcomeUnavailable:
			return pluginsdk.Exit(1, fmt.Sprintf(
				"%d stale conversations to archive, and no terminal to confirm it (%s): run jp prune --days %d --yes to archive them without asking",
				len(stale), r.Reason, *days))
		case r.Outcome == plugin.PromptOutcomeCancelled:
			return c.PrintTo("chrome", plugin.PrintFormatPlain, "Cancelled: nothing changed.\n")
		case !r.Bool():
			return c.PrintTo("chrome", plugin.PrintFormatPlain, "Nothing changed.\n")
		}
	}
	archived := 0
	var errs []error
	for _, s := range stale {
		if err := c.Archive(ctx, s.ID); err != nil {
			errs = append(errs, fmt.Errorf("archive %s: %w", s.ID, err))
			continue
		}
		archived++
	}
	if err := c.Print(fmt.Sprintf("Archived %d conversations inactive for %d days (jp conversation ls --archived lists them).\n", archived, *days)); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// Stale returns the conversations last active before cutoff that are
// neither pinned nor archived already.
func Stale(convs []plugin.ConversationSummary, cutoff time.Time) []plugin.ConversationSummary {
	var out []plugin.ConversationSummary
	for _, c := range convs {
		if c.ArchivedAt == nil && c.PinnedAt == nil && c.LastActivatedAt.Before(cutoff) {
			out = append(out, c)
		}
	}
	return out
}
