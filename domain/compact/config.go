package compact

import (
	"fmt"

	"github.com/jpcli/jp/domain/config"
)

// FromConfig reads conversation.compaction.rules; none is DefaultRule.
// A bad value is an error naming the rule and the key.
func FromConfig(rules []config.CompactionRule) ([]Rule, error) {
	if len(rules) == 0 {
		return []Rule{DefaultRule()}, nil
	}
	out := make([]Rule, 0, len(rules))
	for i, cr := range rules {
		bad := func(key string, err error) error {
			return fmt.Errorf("conversation.compaction.rules[%d].%s: %w", i, key, err)
		}
		r := DefaultRule()
		r.Reasoning, r.Tools = false, nil
		var err error
		if cr.KeepFirst != "" {
			if r.KeepFirst, err = ParseKeep(string(cr.KeepFirst)); err != nil {
				return nil, bad("keep_first", err)
			}
		}
		if cr.KeepLast != "" {
			if r.KeepLast, err = ParseKeep(string(cr.KeepLast)); err != nil {
				return nil, bad("keep_last", err)
			}
		}
		switch cr.Reasoning {
		case "":
		case "strip":
			r.Reasoning = true
		default:
			return nil, bad("reasoning", fmt.Errorf("%q: the one policy is \"strip\"", cr.Reasoning))
		}
		if cr.ToolCalls != "" {
			if r.Tools, err = ToolsMode(cr.ToolCalls); err != nil {
				return nil, bad("tool_calls", err)
			}
		}
		if s := cr.Summary; s != nil {
			r.Summary = &Summary{Model: s.Model.ID, Instructions: s.Instructions, Context: s.Context}
		}
		out = append(out, r)
	}
	return out, nil
}
