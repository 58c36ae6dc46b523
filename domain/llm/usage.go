package llm

import (
	"fmt"
	"strings"
)

// Text renders the counts: "1,234 in (1,000 cached) · 56 out (20
// reasoning)".
func (u Usage) Text() string {
	var b strings.Builder
	b.WriteString(thousands(u.InputTokens) + " in")
	var in []string
	if u.CacheReadTokens > 0 {
		in = append(in, thousands(u.CacheReadTokens)+" cached")
	}
	if u.CacheWriteTokens > 0 {
		in = append(in, thousands(u.CacheWriteTokens)+" cache write")
	}
	if len(in) > 0 {
		b.WriteString(" (" + strings.Join(in, ", ") + ")")
	}
	b.WriteString(" · " + thousands(u.OutputTokens) + " out")
	if u.ReasoningTokens > 0 {
		b.WriteString(" (" + thousands(u.ReasoningTokens) + " reasoning)")
	}
	return b.String()
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
