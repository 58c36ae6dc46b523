package app_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// typeAheadPrinter is the recording printer with type-ahead: the user
// "types" lines (submit) when the first content arrives, and leaves
// unsent text on the status line when the Run stops it.
type typeAheadPrinter struct {
	*recordingPrinter
	mu      sync.Mutex
	lines   []string // submitted on the first content write
	unsent  string
	submit  func(string)
	taken   int
	stopped bool
}

func (p *typeAheadPrinter) StartTypeAhead(submit func(string)) (ports.TypeAheadHandle, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.submit = submit
	return p, true
}

func (p *typeAheadPrinter) Taken() { p.mu.Lock(); p.taken++; p.mu.Unlock() }

func (p *typeAheadPrinter) Stop() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	return p.unsent
}

func (p *typeAheadPrinter) Write(ch ports.Channel, text string) {
	p.recordingPrinter.Write(ch, text)
	p.mu.Lock()
	lines, submit := p.lines, p.submit
	if ch == ports.ChannelContent {
		p.lines = nil
	}
	p.mu.Unlock()
	if ch == ports.ChannelContent {
		for _, l := range lines {
			submit(l) // as the key reader does, on its own goroutine's terms
		}
	}
}

func typeAheadFixture(t *testing.T, lines []string, unsent string, resps ...resp) (*fixture, *typeAheadPrinter) {
	t.Helper()
	tp := &typeAheadPrinter{recordingPrinter: newPrinter(), lines: lines, unsent: unsent}
	f := newFixtureWith(t, func(d *app.QueryDeps) { d.Printer = tp }, resps...)
	return f, tp
}

// Lines typed and submitted while the first turn streams become the
// queued reply, sent (after the countdown) as the next turn, in order.
func TestTypeAheadQueuesTheNextTurn(t *testing.T) {
	f, tp := typeAheadFixture(t, []string{"then summarise", "and list the files"}, "",
		resp{events: []llm.Event{text("a long answer")}}, resp{events: []llm.Event{text("summary")}})
	_, evs, err := f.run(t, app.QueryInput{Message: "write it", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		if e.Type == conversation.EventTypeChatRequest {
			got = append(got, e.Author+":"+e.Content)
		}
	}
	want := []string{"user:write it", "queued:then summarise\n\nand list the files"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("chat requests = %q, want %q", got, want)
	}
	if !tp.stopped || tp.taken != 1 {
		t.Errorf("stopped = %v, taken = %d", tp.stopped, tp.taken)
	}
}

// Text left on the status line when the Run ends is not lost: it is the
// conversation's draft, and nothing is sent with it.
func TestTypeAheadUnsentTextIsTheDraft(t *testing.T) {
	f, _ := typeAheadFixture(t, nil, "half a thought",
		resp{events: []llm.Event{text("answer")}})
	res, evs, err := f.run(t, app.QueryInput{Message: "go", HasMessage: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Type == conversation.EventTypeChatRequest {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d chat requests, want 1", n)
	}
	found, _ := f.store.Find(context.Background(), "/proj")
	d, derr := f.store.ReadDraft(context.Background(), workspace.Location{ID: found.ID, Root: found.Root}, res.Conversation)
	if derr != nil || draft.Parse(d.Text).Query() != "half a thought" {
		t.Fatalf("draft = %q, %v; want the unsent text", d.Text, derr)
	}
}

// A submitted line is in the draft at once, before the turn ends: a run
// killed in between (SIGKILL) does not lose it. The printer checks the
// draft right after it submits, while the first turn is still streaming.
func TestTypeAheadLineIsTheDraftAtOnce(t *testing.T) {
	tp := &draftCheckingPrinter{}
	tp.typeAheadPrinter = &typeAheadPrinter{recordingPrinter: newPrinter(), lines: []string{"first", "second"}}
	f := newFixtureWith(t, func(d *app.QueryDeps) { d.Printer = tp },
		resp{events: []llm.Event{text("a long answer")}}, resp{events: []llm.Event{text("ok")}})
	tp.read = func() string {
		found, _ := f.store.Find(context.Background(), "/proj")
		convs, _ := f.store.List(context.Background(), workspace.Location{ID: found.ID, Root: found.Root})
		for _, c := range convs {
			d, err := f.store.ReadDraft(context.Background(), workspace.Location{ID: found.ID, Root: found.Root}, c.ID)
			if err == nil {
				return draft.Parse(d.Text).Query()
			}
		}
		return ""
	}
	if _, _, err := f.run(t, app.QueryInput{Message: "write it", HasMessage: true}); err != nil {
		t.Fatal(err)
	}
	if tp.seen != "first\n\nsecond" {
		t.Fatalf("draft during the turn = %q, want both submitted lines", tp.seen)
	}
}

// draftCheckingPrinter records the draft's query text right after the
// type-ahead lines are submitted (on the first content write).
type draftCheckingPrinter struct {
	*typeAheadPrinter
	read func() string
	seen string
	once sync.Once
}

func (p *draftCheckingPrinter) Write(ch ports.Channel, text string) {
	p.typeAheadPrinter.Write(ch, text)
	if ch == ports.ChannelContent {
		p.once.Do(func() { p.seen = p.read() })
	}
}
