package config

import (
	"cmp"
	"slices"
	"strings"
)

// Instructions is one [[assistant.instructions]] table: a titled list of
// instructions for the model, composed into the system prompt.
type Instructions struct {
	Title       string   `toml:"title" doc:"The heading of the section."`
	Description string   `toml:"description" doc:"A paragraph under the heading, before the items."`
	Items       []string `toml:"items" doc:"The instructions, one per item."`
	Examples    []string `toml:"examples" doc:"Examples that go with the instructions: a string, or a table { good, bad, reason }."`
	Position    int      `toml:"position" min:"-2147483648" doc:"Where the section goes among the instructions: lower first; default 0."`
}

// ProjectFile is an instruction file found in the checkout (AGENTS.md,
// .jp/instructions.md): the configuration loader reads them into
// Config.ProjectFiles.
type ProjectFile struct {
	// Name is the file's path relative to the checkout root.
	Name string
	// Text is its content.
	Text string
}

// ProjectInstructionFiles are the files, relative to the checkout root,
// whose text is appended to the system prompt, in this order.
var ProjectInstructionFiles = []string{"AGENTS.md", ".jp/instructions.md"}

// SystemPrompt composes the system prompt sent on every request, in this
// order, parts separated by a blank line and empty parts left out:
//
//  1. assistant.system_prompt and assistant.system_prompt_sections
//     (Assistant.SystemPromptParts);
//  2. each [[assistant.instructions]] section, in configuration order;
//  3. the checkout's instruction files (ProjectInstructionFiles), each
//     under a line naming it.
//
// This function is the one place the composition happens: jp config show
// assistant.system_prompt --resolved prints its result.
func (c Config) SystemPrompt() string {
	var parts []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	for _, p := range c.Assistant.SystemPromptParts() {
		add(p)
	}
	ins := slices.Clone(c.Assistant.Instructions)
	slices.SortStableFunc(ins, func(a, b Instructions) int { return cmp.Compare(a.Position, b.Position) })
	for _, in := range ins {
		add(in.render())
	}
	for _, f := range c.ProjectFiles {
		if strings.TrimSpace(f.Text) != "" {
			add("Project instructions from " + f.Name + ":\n\n" + strings.TrimSpace(f.Text))
		}
	}
	return strings.Join(parts, "\n\n")
}

// render writes one instructions section as markdown.
func (in Instructions) render() string {
	var b strings.Builder
	para := func(s string) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
	}
	if t := strings.TrimSpace(in.Title); t != "" {
		para("## " + t)
	}
	if d := strings.TrimSpace(in.Description); d != "" {
		para(d)
	}
	list := func(items []string) string {
		var l []string
		for _, it := range items {
			if it = strings.TrimSpace(it); it != "" {
				l = append(l, "- "+strings.ReplaceAll(it, "\n", "\n  "))
			}
		}
		return strings.Join(l, "\n")
	}
	if l := list(in.Items); l != "" {
		para(l)
	}
	if l := list(in.Examples); l != "" {
		para("Examples:\n" + l)
	}
	return b.String()
}
