package terminal

import (
	"encoding/json"

	"github.com/jpcli/jp/internal/safetext"

	"github.com/jpcli/jp/ports"
)

var _ ports.RunEvents = (*Printer)(nil)

// The records of jp query --format json (docs/scripting.md and its JSON
// Schema, docs/query-events.schema.json). Field names are a stable
// interface: add, never rename.
type (
	startRecord struct {
		Type         string `json:"type"`
		Conversation string `json:"conversation"`
		Model        string `json:"model"`
		Workspace    string `json:"workspace"`
		Checkout     string `json:"checkout"`
		Storage      string `json:"storage,omitempty"`
	}
	toolCallRecord struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	toolResultRecord struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Name    string `json:"name"`
		Content string `json:"content"`
		IsError bool   `json:"is_error"`
	}
	runUsageRecord struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	}
	endRecord struct {
		Type       string          `json:"type"`
		Outcome    string          `json:"outcome"`
		Text       string          `json:"text"`
		StopReason string          `json:"stop_reason"`
		Usage      *runUsageRecord `json:"usage,omitempty"`
		Error      string          `json:"error,omitempty"`
	}
)

// RunStart implements ports.RunEvents: a start record in JSON mode.
func (p *Printer) RunStart(s ports.RunStart) {
	p.mu.Lock()
	p.events = true
	p.mu.Unlock()
	p.record(startRecord{Type: "start", Conversation: s.Conversation, Model: s.Model, Workspace: s.Workspace, Checkout: s.Checkout, Storage: s.Storage})
}

// ToolCall implements ports.RunEvents.
func (p *Printer) ToolCall(c ports.RunToolCall) {
	args := json.RawMessage(c.Arguments)
	if !json.Valid(args) {
		b, _ := json.Marshal(string(c.Arguments)) // a string always marshals
		args = b
	}
	p.record(toolCallRecord{Type: "tool_call", ID: c.ID, Name: c.Name, Arguments: args})
}

// ToolResult implements ports.RunEvents.
func (p *Printer) ToolResult(r ports.RunToolResult) {
	p.record(toolResultRecord{Type: "tool_result", ID: r.ID, Name: r.Name, Content: r.Content, IsError: r.IsError})
}

// RunEnd implements ports.RunEvents.
func (p *Printer) RunEnd(e ports.RunEnd) {
	rec := endRecord{Type: "end", Outcome: e.Outcome, Text: e.Text, StopReason: e.StopReason, Error: e.Error}
	if e.Usage != nil {
		rec.Usage = &runUsageRecord{InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens}
	}
	p.record(rec)
}

// record writes one JSON line on stdout in JSON mode (nothing in text
// mode) and flushes it, so a script reading the stream sees it at once.
func (p *Printer) record(v any) {
	if !p.json {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return // the record types always marshal
	}
	b = safetext.JSON(b) // DEL and C1 controls as \u escapes too
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = p.out.w.Write(append(b, '\n'))
	_ = p.out.w.Flush()
}
