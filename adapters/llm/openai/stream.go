package openai

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	oai "github.com/openai/openai-go/v3"

	"github.com/jpcli/jp/adapters/llm/internal/apierr"
	"github.com/jpcli/jp/domain/llm"
)

// reasoningKeys are the non-standard delta fields that carry reasoning:
// reasoning_content (DeepSeek, vLLM, llama.cpp) and reasoning (Ollama,
// OpenRouter).
var reasoningKeys = []string{"reasoning_content", "reasoning"}

// pendingCall is a tool call whose pieces are still arriving.
type pendingCall struct {
	index int64
	id    string
	name  string
	args  strings.Builder
}

// streamState turns Chat Completions chunks into llm events. Text and
// reasoning are emitted as they arrive; tool calls when the choice
// finishes (or at [DONE]); usage and EventDone at the end.
type streamState struct {
	provider string
	newID    func() string
	emit     func(llm.Event) error
	dialect  Dialect

	// inReasoning is set while reasoning streams; details are OpenRouter's
	// reasoning_details, stored as the block's signature when it ends.
	inReasoning bool
	details     details

	calls        []*pendingCall
	callsEmitted bool
	finishReason string
	usage        *llm.Usage
	sawDone      bool
}

// finished reports whether the choice reported a finish reason: after
// that only the usage chunk and [DONE] remain, so a connection lost then
// loses nothing the conversation needs.
func (s *streamState) finished() bool { return s.finishReason != "" }

// chunk handles one data payload.
func (s *streamState) chunk(data []byte) error {
	if err := s.streamError(data); err != nil {
		return err
	}
	var c oai.ChatCompletionChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return apierr.Fatal(s.provider, "malformed stream chunk: %v", err)
	}
	if c.JSON.Usage.Valid() && (c.Usage.PromptTokens != 0 || c.Usage.CompletionTokens != 0) {
		s.usage = &llm.Usage{
			InputTokens: int(c.Usage.PromptTokens), OutputTokens: int(c.Usage.CompletionTokens),
			ReasoningTokens: int(c.Usage.CompletionTokensDetails.ReasoningTokens),
			CacheReadTokens: int(c.Usage.PromptTokensDetails.CachedTokens),
		}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // we ask for one choice
		}
		if err := s.delta(ch.Delta); err != nil {
			return err
		}
		if ch.FinishReason != "" {
			if err := s.endReasoning(); err != nil {
				return err
			}
			s.finishReason = ch.FinishReason
			if err := s.emitCalls(); err != nil {
				return err
			}
		}
	}
	return nil
}

// streamError recognises an error object sent inside the stream.
func (s *streamState) streamError(data []byte) error {
	if !bytes.Contains(data, []byte(`"error"`)) {
		return nil
	}
	var v struct {
		Error *struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &v) != nil || v.Error == nil {
		return nil
	}
	e := &llm.Error{Provider: s.provider, Kind: llm.ErrorTransient, Message: apierr.OneLine(v.Error.Message)}
	switch {
	case strings.Contains(v.Error.Type, "invalid_request"):
		e.Kind = llm.ErrorFatal
		e.Overflow = apierr.Overflow(string(data))
	case strings.Contains(v.Error.Type, "authentication"), strings.Contains(v.Error.Type, "permission"):
		e.Kind = llm.ErrorAuth
	}
	if e.Message == "" {
		e.Message = "error in the response stream: " + v.Error.Type
	}
	return e
}

func (s *streamState) delta(d oai.ChatCompletionChunkChoiceDelta) error {
	for _, key := range reasoningKeys {
		f, ok := d.JSON.ExtraFields[key]
		if !ok {
			continue
		}
		var text string
		if json.Unmarshal([]byte(f.Raw()), &text) == nil && text != "" {
			s.inReasoning = true
			if err := s.emit(llm.Event{Kind: llm.EventReasoningDelta, Text: text}); err != nil {
				return err
			}
			break // some servers send the same text under both names
		}
	}
	if f, ok := d.JSON.ExtraFields["reasoning_details"]; ok && s.dialect == DialectOpenRouter {
		s.details.add(f.Raw())
	}
	if d.Content != "" || d.Refusal != "" || len(d.ToolCalls) > 0 {
		if err := s.endReasoning(); err != nil {
			return err
		}
	}
	if d.Content != "" {
		if err := s.emit(llm.Event{Kind: llm.EventTextDelta, Text: d.Content}); err != nil {
			return err
		}
	}
	if d.Refusal != "" {
		if err := s.emit(llm.Event{Kind: llm.EventTextDelta, Text: d.Refusal}); err != nil {
			return err
		}
	}
	for _, tc := range d.ToolCalls {
		pc := s.call(tc.Index)
		if pc.id == "" {
			pc.id = tc.ID
		}
		if pc.name == "" {
			pc.name = tc.Function.Name
		}
		pc.args.WriteString(tc.Function.Arguments)
	}
	return nil
}

// endReasoning closes a reasoning block: the reasoning_details it
// carried go out as its signature while the block is still the current
// one.
func (s *streamState) endReasoning() error {
	if !s.inReasoning {
		return nil
	}
	s.inReasoning = false
	if sig := s.details.signature(); sig != "" {
		return s.emit(llm.Event{Kind: llm.EventReasoningSignature, Text: sig})
	}
	return nil
}

// call finds or starts the pending call with the given index.
func (s *streamState) call(index int64) *pendingCall {
	for _, pc := range s.calls {
		if pc.index == index {
			return pc
		}
	}
	pc := &pendingCall{index: index}
	s.calls = append(s.calls, pc)
	return pc
}

// emitCalls emits the assembled tool calls once, in index order.
func (s *streamState) emitCalls() error {
	if s.callsEmitted {
		return nil
	}
	s.callsEmitted = true
	slices.SortFunc(s.calls, func(a, b *pendingCall) int { return int(a.index - b.index) })
	for _, pc := range s.calls {
		call, err := s.complete(pc)
		if err != nil {
			return err
		}
		if err := s.emit(llm.Event{Kind: llm.EventToolCall, ToolCall: call}); err != nil {
			return err
		}
	}
	return nil
}

// complete checks an assembled call: it needs a name, and arguments that
// are a JSON object ("" counts as {}). A missing ID is generated.
func (s *streamState) complete(pc *pendingCall) (llm.ToolCall, error) {
	if pc.name == "" {
		return llm.ToolCall{}, apierr.Fatal(s.provider, "the model sent a tool call without a name")
	}
	args, err := apierr.ToolArguments(s.provider, pc.name, "arguments", pc.args.String())
	if err != nil {
		return llm.ToolCall{}, err
	}
	id := pc.id
	if id == "" {
		id = s.newID()
	}
	return llm.ToolCall{ID: id, Name: pc.name, Arguments: args}, nil
}

// finish ends a complete stream: any calls not yet emitted, usage, done.
func (s *streamState) finish() error {
	if err := s.endReasoning(); err != nil {
		return err
	}
	if err := s.emitCalls(); err != nil {
		return err
	}
	if s.usage != nil {
		if err := s.emit(llm.Event{Kind: llm.EventUsage, Usage: *s.usage}); err != nil {
			return err
		}
	}
	return s.emit(llm.Event{Kind: llm.EventDone, Stop: finishReason(s.finishReason)})
}

// finishReason maps a choice's finish_reason.
func finishReason(r string) llm.StopReason {
	switch r {
	case "stop", "":
		return llm.StopEnd
	case "length":
		return llm.StopLength
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "content_filter":
		return llm.StopRefusal
	}
	return llm.StopReason(r)
}
