package terminal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// ordered records writes to stdout and stderr in one log, to check order.
type ordered struct {
	mu  sync.Mutex
	log []string
}

type tagWriter struct {
	o   *ordered
	tag string
	buf *bytes.Buffer
}

func (w tagWriter) Write(b []byte) (int, error) {
	w.o.mu.Lock()
	defer w.o.mu.Unlock()
	w.o.log = append(w.o.log, w.tag+":"+string(b))
	w.buf.Write(b)
	return len(b), nil
}

func newPiped(opts PrinterOptions) (*Printer, *bytes.Buffer, *bytes.Buffer, *ordered) {
	o := &ordered{}
	var out, errb bytes.Buffer
	opts.Stdout = tagWriter{o, "out", &out}
	opts.Stderr = tagWriter{o, "err", &errb}
	return NewPrinter(opts), &out, &errb, o
}

func TestPipedText(t *testing.T) {
	p, out, errb, o := newPiped(PrinterOptions{})
	p.Write(ports.ChannelReasoning, "thinking")
	p.Write(ports.ChannelReasoning, " more")
	p.EndBlock(ports.ChannelReasoning)
	p.Write(ports.ChannelContent, "Hello ")
	p.Write(ports.ChannelContent, "**world**")
	p.Write(ports.ChannelChrome, "retrying")
	p.EndBlock(ports.ChannelChrome)
	p.Write(ports.ChannelContent, "\x1b[31m raw")
	p.EndBlock(ports.ChannelContent)
	p.Write(ports.ChannelToolCall, "bash {}")
	p.Write(ports.ChannelToolResult, "bash: ok\n")
	p.EndBlock(ports.ChannelToolResult)
	p.Write(ports.ChannelError, "boom")
	p.EndBlock(ports.ChannelError)
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	// Piped stdout carries the answer alone: reasoning and tool traces
	// go to stderr.
	wantOut := "Hello **world**^[[31m raw\n"
	if out.String() != wantOut {
		t.Errorf("stdout = %q, want %q", out.String(), wantOut)
	}
	if errb.String() != "thinking more\nretrying\nbash {}\nbash: ok\nboom\n" {
		t.Errorf("stderr = %q", errb.String())
	}
	// The chrome line comes after the content written before it.
	var sawContent bool
	for _, l := range o.log {
		if strings.Contains(l, "**world**") {
			sawContent = true
		}
		if strings.HasPrefix(l, "err:retrying") && !sawContent {
			t.Errorf("chrome written before earlier content: %q", o.log)
		}
	}
}

func TestPipedQuiet(t *testing.T) {
	p, out, errb, _ := newPiped(PrinterOptions{Quiet: true})
	p.Write(ports.ChannelChrome, "chrome")
	p.EndBlock(ports.ChannelChrome)
	p.Write(ports.ChannelContent, "answer")
	p.Write(ports.ChannelError, "error")
	p.EndBlock(ports.ChannelError)
	p.EndBlock(ports.ChannelContent)
	if stop := p.Wait("waiting"); stop != nil {
		stop()
		stop()
	}
	_ = p.Flush()
	if out.String() != "answer\n" || errb.String() != "error\n" {
		t.Errorf("stdout %q stderr %q", out, errb)
	}
}

func TestJSON(t *testing.T) {
	p, out, errb, _ := newPiped(PrinterOptions{Format: "json", Quiet: true})
	texts := []string{"Hello \"wörld\"\n", "\x00\x1f<>&\u2028\u2029\\", "\xff\xfe bad utf8", "tab\there\r"}
	for _, s := range texts {
		p.Write(ports.ChannelContent, s)
	}
	p.EndBlock(ports.ChannelContent)
	p.Write(ports.ChannelReasoning, "hmm")
	p.Write(ports.ChannelChrome, "hidden by --quiet")
	p.Write(ports.ChannelError, "err")
	p.EndBlock(ports.ChannelError)
	p.Write(ports.ChannelToolCall, "call")
	p.ToolCall(ports.RunToolCall{ID: "c1", Name: "read", Arguments: []byte(`{"path":"a"}`)})
	p.RunEnd(ports.RunEnd{Outcome: "completed", Text: "x", StopReason: "end_turn", Usage: &ports.RunUsage{InputTokens: 3, OutputTokens: 4}})
	_ = p.Flush()
	if errb.String() != "err\n" {
		t.Errorf("stderr = %q, want the error line alone (chrome and errors never reach stdout)", errb)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(texts)+4 {
		t.Fatalf("got %d lines: %q", len(lines), out)
	}
	type rec struct {
		Type string  `json:"type"`
		Kind string  `json:"kind"`
		Text *string `json:"text"`
	}
	for i, l := range lines[:len(texts)] {
		var r rec
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		std, _ := json.Marshal(texts[i])
		var want string
		_ = json.Unmarshal(std, &want)
		if r.Type != "delta" || r.Kind != "text" || r.Text == nil || *r.Text != want {
			t.Errorf("line %d = %+v, want text %q", i, r, want)
		}
	}
	want := []string{
		`{"type":"delta","kind":"reasoning","text":"hmm"}`,
		`{"type":"print","channel":"tool_call","text":"call"}`,
		`{"type":"tool_call","id":"c1","name":"read","arguments":{"path":"a"}}`,
		`{"type":"end","outcome":"completed","text":"x","stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":4}}`,
	}
	for i, w := range want {
		if got := lines[len(texts)+i]; got != w {
			t.Errorf("record %d = %s, want %s", i, got, w)
		}
	}
}

func FuzzJSONString(f *testing.F) {
	f.Add("hello")
	f.Add("\x00\"\\\u2028\xff\b\f")
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" {
			return
		}
		var out bytes.Buffer
		p := NewPrinter(PrinterOptions{Stdout: &out, Format: "json"})
		p.Write(ports.ChannelContent, s)
		_ = p.Flush()
		var got struct{ Text string }
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%q: %v", out.String(), err)
		}
		std, _ := json.Marshal(s)
		var want string
		_ = json.Unmarshal(std, &want)
		if got.Text != want {
			t.Fatalf("decoded %q, encoding/json gives %q", got.Text, want)
		}
		assertNoControl(t, out.String(), "\n")
	})
}

// hostile is every byte and rune a terminal acts on: C0 (ESC among them),
// DEL, lone CR, C1 both UTF-8 encoded and raw, and an OSC 52 clipboard
// write.
func hostile() string {
	var b strings.Builder
	b.WriteString("\x1b]52;c;aGVsbG8=\x07 \x1b]0;title\x1b\\ ")
	for c := 0; c < 0x20; c++ {
		b.WriteByte(byte(c))
	}
	b.WriteString("\x7f lone\rCR ")
	for r := rune(0x80); r < 0xa0; r++ {
		b.WriteRune(r)
	}
	for c := 0x80; c < 0xa0; c++ {
		b.WriteByte(byte(c))
	}
	return b.String()
}

// assertNoControl fails if out holds a byte or rune a terminal would act
// on, other than the bytes in allowed.
func assertNoControl(t *testing.T, out, allowed string) {
	t.Helper()
	for i := 0; i < len(out); {
		c := out[i]
		r, size := utf8.DecodeRuneInString(out[i:])
		switch {
		case strings.IndexByte(allowed, c) >= 0:
		case c < 0x20 || c == 0x7f:
			t.Fatalf("control byte %#x at %d in %q", c, i, out)
		case r >= 0x80 && r < 0xa0, r == utf8.RuneError && size == 1 && c >= 0x80 && c < 0xa0:
			t.Fatalf("C1 control %#x at %d in %q", c, i, out)
		}
		i += size
	}
}

// Piped text mode writes no control byte on any channel, whatever the
// model, a tool or a plugin sent.
func TestPipedSanitisesEveryChannel(t *testing.T) {
	t.Parallel()
	p, out, errb, _ := newPiped(PrinterOptions{})
	for _, ch := range []ports.Channel{ports.ChannelContent, ports.ChannelReasoning, ports.ChannelToolCall,
		ports.ChannelToolResult, ports.ChannelChrome, ports.ChannelError} {
		p.Write(ch, hostile())
		p.EndBlock(ch)
	}
	_ = p.Flush()
	assertNoControl(t, out.String(), "\n\t")
	assertNoControl(t, errb.String(), "\n\t")
	if !strings.Contains(out.String(), "^[]52;c;aGVsbG8=^G") || !strings.Contains(out.String(), "M-^[") {
		t.Fatalf("escapes not shown: %q", out.String())
	}
}

func TestPipedWriteDoesNotAllocate(t *testing.T) {
	p := NewPrinter(PrinterOptions{Stdout: io.Discard, Stderr: io.Discard})
	allocs := testing.AllocsPerRun(1000, func() { p.Write(ports.ChannelContent, "token ") })
	if allocs != 0 {
		t.Errorf("Write allocates %.1f times per call", allocs)
	}
	pj := NewPrinter(PrinterOptions{Stdout: io.Discard, Format: "json"})
	allocs = testing.AllocsPerRun(1000, func() { pj.Write(ports.ChannelContent, "tok\"en\n") })
	if allocs != 0 {
		t.Errorf("JSON Write allocates %.1f times per call", allocs)
	}
}

func TestConcurrentWrites(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(PrinterOptions{Stdout: io.Discard, Stderr: &out})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				p.Write(ports.ChannelToolResult, "xxxxxxxx")
				p.Write(ports.ChannelChrome, "c")
			}
		}()
	}
	wg.Wait()
	_ = p.Flush()
	if got := strings.Count(out.String(), "x"); got != 8*1000*8 {
		t.Errorf("lost writes: %d x", got)
	}
}

// BenchmarkPrinterPipe pushes 100,000 text deltas per iteration through a
// piped text-mode printer into io.Discard.
func BenchmarkPrinterPipe(b *testing.B) {
	benchmarkDeltas(b, PrinterOptions{Stdout: io.Discard, Stderr: io.Discard})
}

// BenchmarkPrinterJSON is BenchmarkPrinterPipe with --format json.
func BenchmarkPrinterJSON(b *testing.B) {
	benchmarkDeltas(b, PrinterOptions{Stdout: io.Discard, Stderr: io.Discard, Format: "json"})
}

func benchmarkDeltas(b *testing.B, opts PrinterOptions) {
	const deltas = 100_000
	p := NewPrinter(opts)
	words := make([]string, 64)
	for i := range words {
		words[i] = fmt.Sprintf("word%d ", i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 0; j < deltas; j++ {
			p.Write(ports.ChannelContent, words[j&63])
		}
		p.EndBlock(ports.ChannelContent)
		_ = p.Flush()
	}
	b.ReportMetric(float64(b.N)*deltas/b.Elapsed().Seconds(), "deltas/s")
}

// Usage is a chrome line piped (left out by --quiet) and a usage record
// in JSON mode (kept by --quiet: it is data), with the cost only when
// the price is known, and the context meter (its window only when known).
func TestUsage(t *testing.T) {
	r := ports.UsageReport{Model: "anthropic/claude-sonnet-4-5",
		Usage: llm.Usage{InputTokens: 1200, OutputTokens: 56, ReasoningTokens: 20, CacheReadTokens: 1000}, Cost: 0.0123, Priced: true,
		Context: llm.ContextMeter{Tokens: 41_000, Window: 200_000}}
	p, out, errb, _ := newPiped(PrinterOptions{})
	p.Usage(r)
	_ = p.Flush()
	if out.Len() != 0 || errb.String() != "tokens: 1,200 in (1,000 cached) · 56 out (20 reasoning) · $0.0123 · ctx 41k/200k\n" {
		t.Errorf("piped: stdout %q stderr %q", out, errb)
	}
	p, out, errb, _ = newPiped(PrinterOptions{Quiet: true})
	p.Usage(r)
	if out.Len() != 0 || errb.Len() != 0 {
		t.Errorf("quiet: stdout %q stderr %q", out, errb)
	}
	p, out, _, _ = newPiped(PrinterOptions{Format: "json", Quiet: true})
	p.Usage(r)
	r.Priced = false
	r.Context.Window = 0
	p.Usage(r)
	p.Usage(ports.UsageReport{Model: "demo/echo", Context: llm.ContextMeter{Tokens: 10}}) // no usage: no record
	want := `{"type":"usage","model":"anthropic/claude-sonnet-4-5","input_tokens":1200,"output_tokens":56,"reasoning_tokens":20,"cache_read_tokens":1000,"cache_write_tokens":0,"cost_usd":0.0123,"context_tokens":41000,"context_window":200000}
{"type":"usage","model":"anthropic/claude-sonnet-4-5","input_tokens":1200,"output_tokens":56,"reasoning_tokens":20,"cache_read_tokens":1000,"cache_write_tokens":0,"context_tokens":41000}
`
	if out.String() != want {
		t.Errorf("json:\n%s\nwant\n%s", out, want)
	}
	// Without reported usage the meter is shown alone.
	p, _, errb, _ = newPiped(PrinterOptions{})
	p.Usage(ports.UsageReport{Model: "demo/echo", Context: llm.ContextMeter{Tokens: 950, Window: 32_000}})
	_ = p.Flush()
	if errb.String() != "ctx 950/32k\n" {
		t.Errorf("meter alone: %q", errb)
	}
}
