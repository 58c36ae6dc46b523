package turn

import "github.com/jpcli/jp/domain/llm"

// EstimateTokens estimates the tokens of a request's messages without a
// tokenizer: a quarter of their characters (bytes of text, reasoning,
// tool names, arguments and results, attachment text), rounded up, plus
// four for each message's framing. Images count a flat 1,000. It is an
// estimate, close enough to say how full a context window is and how much
// a compaction saves; the provider's own count is in each turn's usage.
func EstimateTokens(msgs []llm.Message) int {
	chars, n := 0, 0
	for _, m := range msgs {
		n += 4
		chars += len(m.Text) + len(m.Reasoning) + len(m.ToolCallID)
		for _, c := range m.ToolCalls {
			chars += len(c.ID) + len(c.Name) + len(c.Arguments)
		}
		for _, a := range m.Attachments {
			chars += len(a.Name) + len(a.Text)
			if len(a.Data) > 0 {
				n += 1000
			}
		}
	}
	return n + (chars+3)/4
}
