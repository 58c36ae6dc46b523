package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/jpcli/jp/adapters/llm/internal/apierr"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// responsesPrefix marks a reasoning item of the Responses API stored as
// the signature of its reasoning block: "openai-responses:" and the item
// as JSON ({"id", "encrypted_content"}).
const responsesPrefix = "openai-responses:"

// Responses streams OpenAI's Responses API (POST /v1/responses) with the
// SDK's responses package: text, reasoning summaries, parallel function
// calls, encrypted reasoning carried across turns with store = false,
// usage with cached and reasoning tokens. It is safe for concurrent use.
type Responses struct {
	name   string
	key    apierr.Key
	client oai.Client
	now    func() time.Time
}

var _ ports.Provider = (*Responses)(nil)

// NewResponses returns a Responses provider; Options.Dialect is ignored.
func NewResponses(opts Options) (*Responses, error) {
	p, err := New(opts)
	if err != nil {
		return nil, err
	}
	return &Responses{name: p.name, key: p.key, client: p.client, now: p.now}, nil
}

// reasoningModel guesses whether model reasons (o-series, gpt-5): only
// those take reasoning parameters and return encrypted reasoning.
func reasoningModel(model string) bool {
	return strings.HasPrefix(model, "gpt-5") || (len(model) > 1 && model[0] == 'o' && model[1] >= '0' && model[1] <= '9')
}

// buildResponsesParams maps a provider-neutral request.
func buildResponsesParams(req llm.Request) (responses.ResponseNewParams, error) {
	params := responses.ResponseNewParams{
		Model: shared.ResponsesModel(req.Model),
		Store: param.NewOpt(false),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responsesInput(req.Messages)},
	}
	if req.System != "" {
		params.Instructions = param.NewOpt(req.System)
	}
	for _, t := range req.Tools {
		schema, err := schemaObject(t.Parameters)
		if err != nil {
			return params, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
		}
		tool := responses.ToolParamOfFunction(t.Name, schema, false)
		if t.Description != "" {
			tool.OfFunction.Description = param.NewOpt(t.Description)
		}
		params.Tools = append(params.Tools, tool)
	}
	if len(req.Schema) > 0 {
		schema, err := schemaObject(req.Schema)
		if err != nil {
			return params, fmt.Errorf("response schema: %w", err)
		}
		params.Text.Format = responses.ResponseFormatTextConfigParamOfJSONSchema("response", schema)
	}
	p := req.Params
	if p.MaxTokens > 0 {
		params.MaxOutputTokens = param.NewOpt(int64(p.MaxTokens))
	}
	if p.Temperature != nil {
		params.Temperature = param.NewOpt(*p.Temperature)
	}
	if p.TopP != nil {
		params.TopP = param.NewOpt(*p.TopP)
	}
	switch p.ToolChoice.Mode {
	case llm.ToolChoiceAuto, llm.ToolChoiceNone, llm.ToolChoiceRequired:
		params.ToolChoice.OfToolChoiceMode = param.NewOpt(responses.ToolChoiceOptions(p.ToolChoice.Mode))
	case llm.ToolChoiceTool:
		params.ToolChoice.OfFunctionTool = &responses.ToolChoiceFunctionParam{Name: p.ToolChoice.Name}
	}
	if p.Reasoning.Enabled() || (reasoningModel(req.Model) && p.Reasoning.Level != llm.ReasoningOff) {
		params.Reasoning.Summary = shared.ReasoningSummaryAuto
		params.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	}
	if effort := reasoningEffort(p.Reasoning); effort != "" {
		params.Reasoning.Effort = effort
	}
	return params, nil
}

// responsesInput maps the history to input items. An assistant message's
// reasoning items (stored as signatures) go back before its text and
// calls, as store = false requires for reasoning models to keep their
// reasoning across tool calls.
func responsesInput(msgs []llm.Message) responses.ResponseInputParam {
	var out responses.ResponseInputParam
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			if len(m.Attachments) == 0 {
				out = append(out, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleUser))
				continue
			}
			var parts responses.ResponseInputMessageContentListParam
			for _, a := range m.Attachments {
				if a.IsImage() {
					img := responses.ResponseInputContentParamOfInputImage(responses.ResponseInputImageDetailAuto)
					img.OfInputImage.ImageURL = param.NewOpt("data:" + a.MediaType + ";base64," + base64.StdEncoding.EncodeToString(a.Data))
					parts = append(parts, img)
					continue
				}
				parts = append(parts, responses.ResponseInputContentParamOfInputText(llm.AttachmentText(a)))
			}
			if m.Text != "" {
				parts = append(parts, responses.ResponseInputContentParamOfInputText(m.Text))
			}
			out = append(out, responses.ResponseInputItemParamOfMessage(parts, responses.EasyInputMessageRoleUser))
		case llm.RoleAssistant:
			for _, t := range m.Thinking {
				data, ok := strings.CutPrefix(t.Signature, responsesPrefix)
				if !ok {
					continue
				}
				var item struct {
					ID        string `json:"id"`
					Encrypted string `json:"encrypted_content"`
				}
				if json.Unmarshal([]byte(data), &item) != nil || item.ID == "" {
					continue
				}
				summary := []responses.ResponseReasoningItemSummaryParam{}
				if t.Text != "" {
					summary = append(summary, responses.ResponseReasoningItemSummaryParam{Text: t.Text})
				}
				r := responses.ResponseInputItemParamOfReasoning(item.ID, summary)
				if item.Encrypted != "" {
					r.OfReasoning.EncryptedContent = param.NewOpt(item.Encrypted)
				}
				out = append(out, r)
			}
			if m.Text != "" {
				out = append(out, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range m.ToolCalls {
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				out = append(out, responses.ResponseInputItemParamOfFunctionCall(args, c.ID, c.Name))
			}
		case llm.RoleTool:
			text := m.Text
			if m.IsError {
				text = "Error: " + text
			}
			o := responses.ResponseInputItemParamOfFunctionCallOutput(text)
			o.OfFunctionCallOutput.CallID = param.NewOpt(m.ToolCallID)
			out = append(out, o)
		}
	}
	return out
}

// Stream sends req and emits the streamed response. See ports.Provider.
func (p *Responses) Stream(ctx context.Context, req llm.Request, emit func(llm.Event) error) error {
	params, err := buildResponsesParams(req)
	if err != nil {
		return apierr.Fatal(p.name, "%v", err)
	}
	var res, seen *http.Response
	err = p.client.Post(ctx, "responses", params, &res, option.WithJSONSet("stream", true), option.WithResponseInto(&seen))
	if err != nil {
		if seen != nil && seen.Body != nil {
			defer func() { _ = seen.Body.Close() }()
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if seen != nil && seen.StatusCode >= 400 {
			return apierr.FromResponse(p.name, seen, p.key, p.now())
		}
		return apierr.Transport(ctx, p.name, err)
	}
	if res == nil || res.Body == nil {
		return apierr.Dropped(p.name, errors.New("empty response"))
	}
	dec := ssestream.NewDecoder(res)
	defer func() { _ = dec.Close() }()
	s := &responsesState{provider: p.name, key: p.key, emit: emit, args: map[string]*strings.Builder{}}
	for dec.Next() {
		data := trimData(dec.Event().Data)
		if len(data) == 0 {
			continue
		}
		done, err := s.event(data)
		if err != nil || done {
			return err
		}
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return apierr.Dropped(p.name, dec.Err())
}

// responsesEvent is the part of a stream event jp reads. The SDK's own
// union type decodes every event through reflection at a fraction of the
// speed; the fields here are the documented ones
// (https://platform.openai.com/docs/api-reference/responses-streaming).
type responsesEvent struct {
	Type         string `json:"type"`
	Delta        string `json:"delta"`
	ItemID       string `json:"item_id"`
	SummaryIndex int    `json:"summary_index"`
	Code         string `json:"code"`
	Message      string `json:"message"`
	Item         struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		Encrypted string `json:"encrypted_content"`
	} `json:"item"`
	Response struct {
		Model             string `json:"model"`
		IncompleteDetails struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Usage *struct {
			InputTokens        int `json:"input_tokens"`
			InputTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"input_tokens_details"`
			OutputTokens        int `json:"output_tokens"`
			OutputTokensDetails struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			} `json:"output_tokens_details"`
		} `json:"usage"`
	} `json:"response"`
}

// responsesState turns Responses stream events into llm events.
type responsesState struct {
	provider    string
	key         apierr.Key
	emit        func(llm.Event) error
	args        map[string]*strings.Builder // function call arguments by item ID
	calls       int
	summaryPart int
	reasoned    bool // a summary delta of the current reasoning item was emitted
}

// event handles one event; done is set when the response ended.
func (s *responsesState) event(data []byte) (done bool, err error) {
	var ev responsesEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return false, apierr.Fatal(s.provider, "malformed stream event: %v", err)
	}
	switch ev.Type {
	case "response.reasoning_summary_text.delta":
		text := ev.Delta
		if s.reasoned && ev.SummaryIndex != s.summaryPart {
			text = "\n\n" + text
		}
		s.summaryPart = ev.SummaryIndex
		if text != "" {
			s.reasoned = true
			return false, s.emit(llm.Event{Kind: llm.EventReasoningDelta, Text: text})
		}
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta != "" {
			return false, s.emit(llm.Event{Kind: llm.EventTextDelta, Text: ev.Delta})
		}
	case "response.function_call_arguments.delta":
		b := s.args[ev.ItemID]
		if b == nil {
			b = &strings.Builder{}
			s.args[ev.ItemID] = b
		}
		b.WriteString(ev.Delta)
	case "response.output_item.done":
		return false, s.itemDone(ev)
	case "response.completed", "response.incomplete":
		return true, s.finish(ev)
	case "response.failed":
		code, msg := "", ""
		if e := ev.Response.Error; e != nil {
			code, msg = e.Code, e.Message
		}
		return false, s.streamError(code, msg)
	case "error":
		return false, s.streamError(ev.Code, ev.Message)
	}
	return false, nil
}

// itemDone emits a finished function call, or a reasoning item's
// encrypted content as the signature of the reasoning just streamed.
func (s *responsesState) itemDone(ev responsesEvent) error {
	it := ev.Item
	switch it.Type {
	case "reasoning":
		reasoned := s.reasoned
		s.reasoned, s.summaryPart = false, 0
		if !reasoned || it.ID == "" {
			return nil
		}
		b, _ := json.Marshal(map[string]string{"id": it.ID, "encrypted_content": it.Encrypted})
		return s.emit(llm.Event{Kind: llm.EventReasoningSignature, Text: responsesPrefix + string(b)})
	case "function_call":
		args := it.Arguments
		if args == "" && s.args[it.ID] != nil {
			args = s.args[it.ID].String()
		}
		if it.Name == "" {
			return apierr.Fatal(s.provider, "the model sent a tool call without a name")
		}
		raw, err := apierr.ToolArguments(s.provider, it.Name, "arguments", args)
		if err != nil {
			return err
		}
		s.calls++
		return s.emit(llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: raw}})
	}
	return nil
}

func (s *responsesState) finish(ev responsesEvent) error {
	if u := ev.Response.Usage; u != nil {
		usage := llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			ReasoningTokens: u.OutputTokensDetails.ReasoningTokens, CacheReadTokens: u.InputTokensDetails.CachedTokens}
		if err := s.emit(llm.Event{Kind: llm.EventUsage, Usage: usage}); err != nil {
			return err
		}
	}
	stop := llm.StopEnd
	switch {
	case ev.Type == "response.incomplete" && ev.Response.IncompleteDetails.Reason == "max_output_tokens":
		stop = llm.StopLength
	case ev.Type == "response.incomplete" && ev.Response.IncompleteDetails.Reason == "content_filter":
		stop = llm.StopRefusal
	case ev.Type == "response.incomplete":
		stop = llm.StopReason(ev.Response.IncompleteDetails.Reason)
	case s.calls > 0:
		stop = llm.StopToolUse
	}
	return s.emit(llm.Event{Kind: llm.EventDone, Stop: stop, Model: ev.Response.Model})
}

// streamError classifies an error event by its code.
func (s *responsesState) streamError(code, msg string) error {
	e := &llm.Error{Provider: s.provider, Kind: llm.ErrorTransient, Message: apierr.OneLine(msg)}
	switch {
	case code == "invalid_api_key" || strings.Contains(code, "auth"):
		auth := apierr.FromStatus(s.provider, http.StatusUnauthorized, nil, msg, s.key, time.Time{})
		auth.Status = 0 // the error came inside a 200 stream
		return auth
	case strings.HasPrefix(code, "invalid_") || code == "context_length_exceeded" || code == "model_not_found":
		e.Kind = llm.ErrorFatal
		e.Overflow = apierr.Overflow(code + " " + msg)
	}
	if e.Message == "" {
		e.Message = "error in the response stream: " + code
	}
	return e
}
