package config

import (
	"slices"
	"strconv"
	"strings"
)

// PromptSection is one entry of assistant.system_prompt_sections: a block
// of the system prompt, optionally wrapped in <tag>...</tag>, placed by
// position (lower first; equal positions keep their configured order).
type PromptSection struct {
	Content  string `toml:"content" doc:"The text of the section."`
	Tag      string `toml:"tag" doc:"When set, the section is wrapped in <tag> and </tag> lines."`
	Title    string `toml:"title" doc:"A title: with a tag it is the tag's title attribute, without one a markdown heading over the content."`
	Position int    `toml:"position" min:"-2147483648" doc:"Where the section goes: lower first; default 0."`
}

// SetFromString implements StringSetter: a section written as a plain
// string is its content.
func (s *PromptSection) SetFromString(v string) { s.Content = v }

// StringSetter is implemented by pointers to the element type of an array
// of tables that also accepts plain strings (system_prompt_sections).
type StringSetter interface {
	SetFromString(s string)
}

// Render is the section as it appears in the system prompt.
func (s PromptSection) Render() string {
	content := strings.TrimSpace(s.Content)
	title := strings.TrimSpace(s.Title)
	if content == "" {
		return content
	}
	if s.Tag == "" {
		if title != "" {
			return "# " + title + "\n\n" + content
		}
		return content
	}
	open := "<" + s.Tag + ">"
	if title != "" {
		open = "<" + s.Tag + " title=" + strconv.Quote(title) + ">"
	}
	return open + "\n" + content + "\n</" + s.Tag + ">"
}

// SystemPromptParts returns the blocks of the system prompt in order: the
// assistant.system_prompt, then the system_prompt_sections by position.
// Empty blocks are left out. Config.SystemPrompt, the one place the
// system prompt is composed, starts with these blocks.
func (a Assistant) SystemPromptParts() []string {
	var parts []string
	if p := strings.TrimSpace(a.SystemPrompt); p != "" {
		parts = append(parts, p)
	}
	sections := slices.Clone(a.SystemPromptSections)
	slices.SortStableFunc(sections, func(x, y PromptSection) int { return x.Position - y.Position })
	for _, s := range sections {
		if r := s.Render(); r != "" {
			parts = append(parts, r)
		}
	}
	return parts
}
