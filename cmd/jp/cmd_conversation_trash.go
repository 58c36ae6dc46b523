package main

import (
	"bufio"
	"fmt"

	"github.com/jpcli/jp/ports"
)

// ConversationRestoreCmd is jp conversation restore.
type ConversationRestoreCmd struct {
	ID   string `arg:"" optional:"" help:"ID, or a unique prefix, of a removed conversation (default: the one removed last)."`
	List bool   `help:"List the trash instead: removed conversations, most recent first."`
	FormatFlag
}

// Run restores a conversation from the trash, or lists the trash.
func (c *ConversationRestoreCmd) Run(rt *Runtime) error {
	a, loc, err := rt.openApp()
	if err != nil {
		return err
	}
	if c.List {
		list, err := a.Conversations.Trashed(rt.Ctx, loc)
		if err != nil {
			return err
		}
		if c.JSON() {
			type row struct {
				ID        string `json:"id"`
				Title     string `json:"title"`
				RemovedAt string `json:"removed_at"`
			}
			rows := make([]row, 0, len(list))
			for _, t := range list {
				rows = append(rows, row{string(t.ID), t.Title, t.RemovedAt.UTC().Format("2006-01-02T15:04:05Z")})
			}
			return writeJSON(rt.Streams.Out, rows)
		}
		if len(list) == 0 {
			fmt.Fprintf(rt.Streams.Err, "The trash is empty (removed conversations are kept %d days).\n", trashDays())
			return nil
		}
		w := bufio.NewWriter(rt.Streams.Out)
		defer w.Flush()
		fmt.Fprintf(w, "%-11s  %-16s  %s\n", "ID", "REMOVED", "TITLE")
		for _, t := range list {
			fmt.Fprintf(w, "%-11s  %-16s  %s\n", t.ID, lastUsed(t.RemovedAt), trimTitle(t.Title))
		}
		return nil
	}
	id, err := a.Conversations.Restore(rt.Ctx, loc, c.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Restored conversation %s\n", id)
	return nil
}

// trashDays is how many days the trash keeps a conversation.
func trashDays() int { return int(ports.TrashKeep.Hours() / 24) }
