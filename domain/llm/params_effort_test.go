package llm

import "testing"

func TestReasoningEffort(t *testing.T) {
	for _, c := range []struct {
		r    Reasoning
		want ReasoningLevel
	}{
		{Reasoning{Budget: 1024}, ReasoningLow}, {Reasoning{Budget: 8192}, ReasoningMedium},
		{Reasoning{Budget: 24576}, ReasoningHigh}, {Reasoning{Level: ReasoningMax}, ReasoningHigh},
		{Reasoning{Level: ReasoningLow}, ReasoningLow}, {Reasoning{Level: ReasoningOff}, ReasoningOff},
		{Reasoning{Level: ReasoningAuto}, ReasoningAuto}, {Reasoning{}, ReasoningDefault},
	} {
		if got := c.r.Effort(); got != c.want {
			t.Errorf("%+v.Effort() = %q, want %q", c.r, got, c.want)
		}
	}
}
