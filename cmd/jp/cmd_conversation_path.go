package main

import (
	"fmt"
	"slices"

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
	raws := slices.Clone(c.IDs)
	if len(raws) == 0 {
		raws = []string{""}
	}
	a, err := rt.App()
	if err != nil {
		return err
	}
	if err := checkIDs(raws); err != nil {
		return err
	}
	loc, err := rt.open(a)
	if err != nil {
		return err
	}
	for i, raw := range raws {
		if raws[i], err = rt.target(a, loc, raw); err != nil {
			return err
		}
	}
	paths, err := a.Conversations.PathsOf(rt.Ctx, loc, raws, files...)
	for _, p := range paths {
		fmt.Fprintln(rt.Streams.Out, safetext.String(p))
	}
	return err
}
