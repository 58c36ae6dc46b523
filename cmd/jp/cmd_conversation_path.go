package main

import (
	"fmt"

	"github.com/jpcli/jp/internal/safetext"
)

// ConversationPathCmd is jp conversation path, as the Rust jp has it.
type ConversationPathCmd struct {
	IDs        []string `arg:"" optional:"" name:"id" predictor:"conversation" help:"Conversation IDs or unique prefixes (default: the active conversation)."`
	Events     bool     `help:"Print the path of events.json."`
	Metadata   bool     `help:"Print the path of metadata.json."`
	BaseConfig bool     `name:"base-config" help:"Print the path of base_config.json."`
}

// Run prints the paths, one a line.
func (c *ConversationPathCmd) Run(rt *Runtime) error {
	var files []string
	if c.Events {
		files = append(files, "events.json")
	}
	if c.Metadata {
		files = append(files, "metadata.json")
	}
	if c.BaseConfig {
		files = append(files, "base_config.json")
	}
	ids := c.IDs
	if len(ids) == 0 {
		ids = []string{""}
	}
	for _, raw := range ids {
		a, loc, id, err := rt.conversation(raw)
		if err != nil {
			return err
		}
		paths, err := a.Conversations.Paths(rt.Ctx, loc, id, files...)
		if err != nil {
			return err
		}
		for _, p := range paths {
			fmt.Fprintln(rt.Streams.Out, safetext.String(p))
		}
	}
	return nil
}
