package headless

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jpcli/jp/ports"
)

// Router is the real interrupt router that scripted presses go into, so a
// scripted Ctrl-C takes exactly the path a real one does (escalation
// included). The terminal adapter's Interrupts is one.
type Router interface {
	ports.Interrupts
	// Press handles one Ctrl-C press.
	Press()
}

// Interrupts returns the ports.Interrupts of this script: r, plus the
// script's triggers ("after N deltas of turn T", "during tools of turn T",
// "at countdown"), each of which presses Ctrl-C once when the run reaches
// it and the trigger is the next step. Real signals still reach r.
func (s *Script) Interrupts(r Router) ports.Interrupts { return &interrupts{Router: r, s: s} }

type interrupts struct {
	Router
	s *Script
}

// Progress fires the next step when it is a trigger the run has reached.
func (i *interrupts) Progress(p ports.Progress) {
	s := i.s
	s.mu.Lock()
	fire := s.next < len(s.steps) && s.steps[s.next].kind == stepTrigger && s.steps[s.next].reached(p)
	if fire {
		s.next++
	}
	s.mu.Unlock()
	if fire {
		i.Router.Press()
	}
}

// Countdown is true while an "at countdown" step is still to come: only
// then does a headless run show the countdown (there is no terminal).
func (i *interrupts) Countdown() bool {
	s := i.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.steps[s.next:] {
		if st.kind == stepTrigger && st.phase == "countdown" {
			return true
		}
	}
	return false
}

// reached reports whether the run at p has reached the trigger.
func (s step) reached(p ports.Progress) bool {
	if s.phase != p.Phase || (s.turn != 0 && s.turn != p.Turn) {
		return false
	}
	return s.phase != "streaming" || p.Deltas >= s.deltas
}

// parseTrigger reads "after N deltas [of turn T]", "during tools [of turn
// T]" and "at countdown [of turn T]".
func parseTrigger(s *step, word, rest string) error {
	s.kind, s.target = stepTrigger, targetTrigger
	f := strings.Fields(rest)
	usage := fmt.Errorf("%s: expected \"after N deltas [of turn T]\", \"during tools [of turn T]\" or \"at countdown [of turn T]\"", word)
	switch {
	case word == "after" && len(f) >= 2 && (f[1] == "deltas" || f[1] == "delta"):
		n, err := strconv.Atoi(f[0])
		if err != nil || n < 1 {
			return fmt.Errorf("after %s deltas: the count must be a whole number from 1", f[0])
		}
		s.phase, s.deltas, f = "streaming", n, f[2:]
	case word == "during" && len(f) >= 1 && f[0] == "tools":
		s.phase, f = "tool_call", f[1:]
	case word == "at" && len(f) >= 1 && f[0] == "countdown":
		s.phase, f = "countdown", f[1:]
	default:
		return usage
	}
	switch {
	case len(f) == 0:
		return nil
	case len(f) == 3 && f[0] == "of" && f[1] == "turn":
		t, err := strconv.Atoi(f[2])
		if err != nil || t < 1 {
			return fmt.Errorf("of turn %s: the turn must be a whole number from 1", f[2])
		}
		s.turn = t
		return nil
	}
	return usage
}

func (s step) triggerString() string {
	var b strings.Builder
	switch s.phase {
	case "streaming":
		fmt.Fprintf(&b, "after %d deltas", s.deltas)
	case "tool_call":
		b.WriteString("during tools")
	default:
		b.WriteString("at countdown")
	}
	if s.turn > 0 {
		fmt.Fprintf(&b, " of turn %d", s.turn)
	}
	return b.String()
}
