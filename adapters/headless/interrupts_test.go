package headless

import (
	"strings"
	"testing"

	"github.com/jpcli/jp/ports"
)

type fakeRouter struct {
	ports.Interrupts
	presses int
}

func (f *fakeRouter) Press() { f.presses++ }

func TestTriggersPressInOrder(t *testing.T) {
	s, err := Parse("t.jph", "after 3 deltas of turn 2\nselect @interrupt:streaming q\nduring tools\nat countdown\n")
	if err != nil {
		t.Fatal(err)
	}
	r := &fakeRouter{}
	in := s.Interrupts(r)
	if !in.Countdown() {
		t.Fatal("a script with 'at countdown' shows the countdown")
	}
	in.Progress(ports.Progress{Turn: 1, Phase: "streaming", Deltas: 10})
	in.Progress(ports.Progress{Turn: 2, Phase: "streaming", Deltas: 2})
	if r.presses != 0 {
		t.Fatal("fired before its turn and count")
	}
	in.Progress(ports.Progress{Turn: 2, Phase: "streaming", Deltas: 3})
	if r.presses != 1 {
		t.Fatalf("presses = %d", r.presses)
	}
	// The next step is a select: tool progress does not fire "during tools" yet.
	in.Progress(ports.Progress{Turn: 2, Phase: "tool_call"})
	if r.presses != 1 {
		t.Fatal("a trigger fired out of order")
	}
	if _, err := s.Prompter().Ask(t.Context(), ports.Question{Kind: ports.QuestionSelect, Topic: "interrupt:streaming",
		Options: []ports.Option{{Key: "c", Value: "c"}, {Key: "q", Value: "q"}}}); err != nil {
		t.Fatal(err)
	}
	in.Progress(ports.Progress{Turn: 2, Phase: "tool_call"})
	in.Progress(ports.Progress{Turn: 2, Phase: "countdown"})
	if r.presses != 3 || s.Done() != nil {
		t.Fatalf("presses = %d, done = %v", r.presses, s.Done())
	}
	if in.Countdown() {
		t.Fatal("no countdown once the trigger is used")
	}
}

func TestTriggerIsNotAnAnswer(t *testing.T) {
	s, err := Parse("t.jph", "after 1 deltas\n")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Prompter().Ask(t.Context(), ports.Question{Kind: ports.QuestionConfirm, Message: "sure?"})
	if err == nil || !strings.Contains(err.Error(), "expected after 1 deltas") {
		t.Fatalf("err = %v", err)
	}
}
