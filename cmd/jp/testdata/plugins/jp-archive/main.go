// Command jp-archive is the Go plugin docs/plugins.md shows: it asks
// before archiving every conversation of the checkout. Its main function
// is the documentation's example, kept byte for byte (a test checks).
package main

import (
	"context"
	"fmt"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/domain/plugin"
)

var manifest = plugin.Manifest{
	Name:            "archive",
	Version:         "1.0.0",
	Description:     "Archive every conversation of the checkout, after asking",
	Command:         []string{"archive"},
	ProtocolVersion: 2,
}

func main() {
	pluginsdk.Main(manifest, func(ctx context.Context, c *pluginsdk.Client) error {
		convs, err := c.ListConversations(ctx)
		if err != nil {
			return err
		}
		r, err := c.Confirm(ctx, fmt.Sprintf("Archive %d conversations?", len(convs)), false)
		switch {
		case err != nil:
			return err // pluginsdk.ErrShutdown when the user pressed Ctrl-C
		case r.Outcome == plugin.PromptOutcomeUnavailable:
			return pluginsdk.Exit(1, "no terminal to ask: pass --yes")
		case !r.Bool():
			return nil // cancelled or declined: change nothing
		}
		for _, cv := range convs {
			if err := c.Archive(ctx, cv.ID); err != nil {
				return err
			}
		}
		return c.Print("done\n")
	})
}
