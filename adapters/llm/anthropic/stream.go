package anthropic

import (
	"cmp"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/jpcli/jp/adapters/llm/internal/apierr"
	"github.com/jpcli/jp/domain/llm"
)

// toolBlock is a tool_use content block whose input is still arriving.
type toolBlock struct {
	id    string
	name  string
	start string // the input given in content_block_start, if any
	input strings.Builder
}

// streamState turns Messages API stream events into llm events. Text and
// thinking deltas are emitted as they arrive, a tool call when its block
// stops, usage and EventDone at message_stop.
type streamState struct {
	provider string
	emit     func(llm.Event) error

	tools   map[int64]*toolBlock
	usage   llm.Usage
	stop    llm.StopReason
	stopped bool
}

// usageOf reads the SDK's counts: input includes the cache reads and
// writes, reasoning is the thinking part of the output.
func usageOf(in, cacheWrite, cacheRead, out, thinking int64) llm.Usage {
	return llm.Usage{
		InputTokens: int(in + cacheWrite + cacheRead), OutputTokens: int(out), ReasoningTokens: int(thinking),
		CacheReadTokens: int(cacheRead), CacheWriteTokens: int(cacheWrite),
	}
}

// stopReason maps the API's stop_reason.
func stopReason(r sdk.StopReason) llm.StopReason {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonPauseTurn:
		return llm.StopEnd
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return llm.StopLength
	case sdk.StopReasonToolUse:
		return llm.StopToolUse
	case sdk.StopReasonStopSequence:
		return llm.StopSequence
	case sdk.StopReasonRefusal:
		return llm.StopRefusal
	}
	return llm.StopReason(r)
}

func (s *streamState) event(ev sdk.MessageStreamEventUnion) error {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		s.usage = usageOf(u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.OutputTokens, u.OutputTokensDetails.ThinkingTokens)
	case "content_block_start":
		return s.blockStart(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		return s.blockDelta(ev.Index, ev.Delta)
	case "content_block_stop":
		return s.blockStop(ev.Index)
	case "message_delta":
		// Its counts are cumulative; a zero means "not sent again".
		u := ev.Usage
		d := usageOf(u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.OutputTokens, u.OutputTokensDetails.ThinkingTokens)
		if d.InputTokens > 0 {
			s.usage.InputTokens, s.usage.CacheReadTokens, s.usage.CacheWriteTokens = d.InputTokens, d.CacheReadTokens, d.CacheWriteTokens
		}
		if d.OutputTokens > 0 {
			s.usage.OutputTokens = d.OutputTokens
		}
		if d.ReasoningTokens > 0 {
			s.usage.ReasoningTokens = d.ReasoningTokens
		}
		if ev.Delta.StopReason != "" {
			s.stop = stopReason(ev.Delta.StopReason)
		}
	case "message_stop":
		s.stopped = true
	}
	return nil
}

func (s *streamState) blockStart(index int64, b sdk.ContentBlockStartEventContentBlockUnion) error {
	switch b.Type {
	case "text":
		return s.text(llm.EventTextDelta, b.Text)
	case "thinking":
		return s.text(llm.EventReasoningDelta, b.Thinking)
	case "tool_use":
		tb := &toolBlock{id: b.ID, name: b.Name}
		if raw := b.JSON.Input.Raw(); raw != "" && raw != "null" && raw != "{}" {
			tb.start = raw
		}
		if s.tools == nil {
			s.tools = map[int64]*toolBlock{}
		}
		s.tools[index] = tb
	}
	return nil
}

func (s *streamState) blockDelta(index int64, d sdk.MessageStreamEventUnionDelta) error {
	switch d.Type {
	case "text_delta":
		return s.text(llm.EventTextDelta, d.Text)
	case "thinking_delta":
		return s.text(llm.EventReasoningDelta, d.Thinking)
	case "signature_delta":
		if d.Signature != "" {
			return s.emit(llm.Event{Kind: llm.EventReasoningSignature, Text: d.Signature})
		}
	case "input_json_delta":
		if tb := s.tools[index]; tb != nil {
			tb.input.WriteString(d.PartialJSON)
		}
	}
	return nil
}

// blockStop emits a finished tool_use block as one complete call.
func (s *streamState) blockStop(index int64) error {
	tb := s.tools[index]
	if tb == nil {
		return nil
	}
	delete(s.tools, index)
	args, err := apierr.ToolArguments(s.provider, tb.name, "input", cmp.Or(strings.TrimSpace(tb.input.String()), tb.start))
	if err != nil {
		return err
	}
	return s.emit(llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{ID: tb.id, Name: tb.name, Arguments: args}})
}

func (s *streamState) text(kind llm.EventKind, text string) error {
	if text == "" {
		return nil
	}
	return s.emit(llm.Event{Kind: kind, Text: text})
}

// finish ends a stream that reached message_stop.
func (s *streamState) finish() error {
	if s.usage != (llm.Usage{}) {
		if err := s.emit(llm.Event{Kind: llm.EventUsage, Usage: s.usage}); err != nil {
			return err
		}
	}
	return s.emit(llm.Event{Kind: llm.EventDone, Stop: cmp.Or(s.stop, llm.StopEnd)})
}
