package llm

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// builtinWindows are the context windows (the most input tokens a request
// may carry) of models people commonly use, per provider. A model name
// matches an entry equal to it or starting with it followed by "-" (dated
// snapshots, variants); the longest entry wins. The "" entry is the
// provider's window for any other model of it. assistant.model.context_windows
// overrides and extends the table.
var builtinWindows = map[string]map[string]int{
	"anthropic": {
		// Every current Claude model accepts 200k tokens of input (the 1M
		// window of some is a beta the request must ask for).
		"": 200_000,
	},
	"openai": {
		"gpt-5":         272_000, // 400k in all, of which 128k are output
		"gpt-4.1":       1_047_576,
		"gpt-4o":        128_000,
		"gpt-4-turbo":   128_000,
		"gpt-4":         8_192,
		"gpt-3.5-turbo": 16_385,
		"o1":            200_000,
		"o3":            200_000,
		"o4-mini":       200_000,
	},
	"google": {
		"gemini-1.5-pro": 2_097_152,
		"":               1_048_576,
	},
	// Ollama runs a model with the server's context length (4096 tokens
	// unless the server is configured otherwise), whatever the model
	// could take; jp does not set num_ctx.
	"ollama": {"": 4_096},
	// The demo model's window is small enough to watch it fill.
	"demo": {"": 32_000},
}

// ContextWindow is the context window of model id in tokens: from
// overrides (assistant.model.context_windows, keyed by "<provider>/<model>"
// or by "<provider>" for all of its models), else the built-in table.
// ok is false when the window is not known.
func ContextWindow(id ModelID, overrides map[string]int) (n int, ok bool) {
	if n, ok := overrides[id.String()]; ok && n > 0 {
		return n, true
	}
	if n, ok := overrides[id.Provider]; ok && n > 0 {
		return n, true
	}
	table := builtinWindows[id.Provider]
	if n, ok := table[id.Model]; ok {
		return n, true
	}
	best, found := "", false
	for name := range table {
		if name == "" {
			continue
		}
		if strings.HasPrefix(id.Model, name+"-") && len(name) > len(best) {
			best, found = name, true
		}
	}
	if found {
		return table[best], true
	}
	n, ok = table[""]
	return n, ok
}

// charsPerToken is the estimator's ratio: about four characters of
// English text or code per token, the usual rule of thumb. It can be off
// by a factor of two either way (CJK text, base64, dense JSON).
const charsPerToken = 4

// imageTokens is what an attached image is counted as: about what the
// providers charge for a 1000x1000 pixel picture.
const imageTokens = 1_500

// perMessageChars is the framing each message adds (role, separators).
const perMessageChars = 16

// EstimateTokens estimates the input tokens of req: the characters of its
// system prompt, tools (names, descriptions and schemas), messages (text,
// reasoning, tool calls and results, text attachments) divided by four,
// plus a fixed amount per image. It is an estimate, not a tokenizer's
// count: good enough to say how full the context window is.
func EstimateTokens(req Request) int {
	chars := utf8.RuneCountInString(req.System) + len(req.Schema)
	for _, t := range req.Tools {
		chars += utf8.RuneCountInString(t.Name) + utf8.RuneCountInString(t.Description) + len(t.Parameters)
	}
	images := 0
	for _, m := range req.Messages {
		chars += perMessageChars + utf8.RuneCountInString(m.Text) + utf8.RuneCountInString(m.Reasoning) + len(m.ToolCallID)
		for _, c := range m.ToolCalls {
			chars += len(c.ID) + utf8.RuneCountInString(c.Name) + len(c.Arguments)
		}
		for _, a := range m.Attachments {
			if a.IsImage() {
				images++
				continue
			}
			chars += utf8.RuneCountInString(AttachmentText(a))
		}
	}
	return (chars+charsPerToken-1)/charsPerToken + images*imageTokens
}

// FormatTokens writes a token count short: 950, 41k, 1.2M (rounded to
// the nearest unit).
func FormatTokens(n int) string {
	switch {
	case n < 1_000:
		return strconv.Itoa(n)
	case n < 999_500:
		return strconv.Itoa(int(math.Round(float64(n)/1_000))) + "k"
	}
	m := strconv.FormatFloat(math.Round(float64(n)/100_000)/10, 'f', 1, 64)
	return strings.TrimSuffix(m, ".0") + "M"
}

// ContextMeter is the projected size of the next request against the
// model's window: "ctx 41k/200k", or "ctx 41k" when the window is not
// known.
type ContextMeter struct {
	Tokens int // the estimate of the next request's input tokens
	Window int // the model's context window; 0 when not known
}

// String is the meter as the end-of-turn line shows it.
func (c ContextMeter) String() string {
	s := "ctx " + FormatTokens(c.Tokens)
	if c.Window > 0 {
		s += "/" + FormatTokens(c.Window)
	}
	return s
}

// Exceeds reports whether the estimate is over ratio of the window (a
// known window only).
func (c ContextMeter) Exceeds(ratio float64) bool {
	return c.Window > 0 && float64(c.Tokens) > float64(c.Window)*ratio
}
