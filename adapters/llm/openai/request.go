package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/jpcli/jp/domain/llm"
)

// emptySchema is the parameters schema of a tool that declares none.
func emptySchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

// buildParams maps a provider-neutral request to Chat Completions params.
// official is set for OpenAI's own API, whose reasoning models take
// max_completion_tokens; other servers get max_tokens, which they read.
// extra are fields the SDK has no parameter for.
func buildParams(req llm.Request, official bool) (oai.ChatCompletionNewParams, map[string]any, error) {
	return buildParamsFor(DialectGeneric, req, official)
}

// buildParamsFor is buildParams with the history in dialect d's form (what
// the service needs back on assistant messages), built once.
func buildParamsFor(d Dialect, req llm.Request, official bool) (oai.ChatCompletionNewParams, map[string]any, error) {
	params := oai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		Messages:      buildMessagesDialect(req.Messages, d),
		StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)},
	}
	if req.System != "" {
		params.Messages = append([]oai.ChatCompletionMessageParamUnion{oai.SystemMessage(req.System)}, params.Messages...)
	}
	for _, t := range req.Tools {
		schema, err := schemaObject(t.Parameters)
		if err != nil {
			return params, nil, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
		}
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			def.Description = oai.String(t.Description)
		}
		params.Tools = append(params.Tools, oai.ChatCompletionFunctionTool(def))
	}
	if len(req.Schema) > 0 {
		schema, err := schemaObject(req.Schema)
		if err != nil {
			return params, nil, fmt.Errorf("response schema: %w", err)
		}
		params.ResponseFormat = oai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "response", Schema: schema},
			},
		}
	}
	extra := applyParams(&params, req.Params, official)
	return params, extra, nil
}

// applyParams maps the model parameters. Reasoning becomes
// reasoning_effort (a budget picks the nearest level), which OpenAI's
// reasoning models, vLLM, llama.cpp and Ollama read; "off" is also sent to
// OpenAI-compatible servers as chat_template_kwargs.enable_thinking =
// false, the switch of Qwen-style templates.
func applyParams(params *oai.ChatCompletionNewParams, p llm.Params, official bool) map[string]any {
	var extra map[string]any
	if p.MaxTokens > 0 {
		if official {
			params.MaxCompletionTokens = oai.Int(int64(p.MaxTokens))
		} else {
			extra = map[string]any{"max_tokens": p.MaxTokens}
		}
	}
	if p.Temperature != nil {
		params.Temperature = oai.Float(*p.Temperature)
	}
	if p.TopP != nil {
		params.TopP = oai.Float(*p.TopP)
	}
	if len(p.Stop) > 0 {
		params.Stop = oai.ChatCompletionNewParamsStopUnion{OfStringArray: p.Stop}
	}
	switch p.ToolChoice.Mode {
	case llm.ToolChoiceAuto, llm.ToolChoiceNone, llm.ToolChoiceRequired:
		params.ToolChoice = oai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: oai.String(string(p.ToolChoice.Mode))}
	case llm.ToolChoiceTool:
		params.ToolChoice = oai.ToolChoiceOptionFunctionToolChoice(oai.ChatCompletionNamedToolChoiceFunctionParam{Name: p.ToolChoice.Name})
	}
	if effort := reasoningEffort(p.Reasoning); effort != "" {
		params.ReasoningEffort = effort
	}
	if p.Reasoning.IsSet() && !p.Reasoning.Enabled() && !official {
		if extra == nil {
			extra = map[string]any{}
		}
		extra["chat_template_kwargs"] = map[string]any{"enable_thinking": false}
	}
	return extra
}

// reasoningEffort maps a reasoning level or budget; "" sends none (auto,
// or unset: the model's default).
func reasoningEffort(r llm.Reasoning) shared.ReasoningEffort {
	switch r.Effort() {
	case llm.ReasoningOff:
		return shared.ReasoningEffortNone
	case llm.ReasoningLow:
		return shared.ReasoningEffortLow
	case llm.ReasoningMedium:
		return shared.ReasoningEffortMedium
	case llm.ReasoningHigh:
		return shared.ReasoningEffortHigh
	}
	return ""
}

// schemaObject decodes a JSON Schema object; nil or empty means "no
// parameters".
func schemaObject(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return emptySchema(), nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if m == nil {
		return emptySchema(), nil
	}
	return m, nil
}

// userMessage is the message's text, after its attachments as content
// parts (text, and images as data URLs) when it has any.
func userMessage(m llm.Message) oai.ChatCompletionMessageParamUnion {
	if len(m.Attachments) == 0 {
		return oai.UserMessage(m.Text)
	}
	parts := make([]oai.ChatCompletionContentPartUnionParam, 0, len(m.Attachments)+1)
	for _, a := range m.Attachments {
		if a.IsImage() {
			url := "data:" + a.MediaType + ";base64," + base64.StdEncoding.EncodeToString(a.Data)
			parts = append(parts, oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: url}))
			continue
		}
		parts = append(parts, oai.TextContentPart(llm.AttachmentText(a)))
	}
	if m.Text != "" {
		parts = append(parts, oai.TextContentPart(m.Text))
	}
	return oai.UserMessage(parts)
}

// buildMessagesDialect maps the history. Reasoning is not sent back by
// default: Chat Completions has no field for it (and DeepSeek rejects
// reasoning_content in requests). A tool result with IsError gets an
// "Error: " prefix, since the API has no error flag for tool messages.
// It maps the history with what the service d needs
// back on assistant messages (historyExtra).
func buildMessagesDialect(msgs []llm.Message, d Dialect) []oai.ChatCompletionMessageParamUnion {
	out := make([]oai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			out = append(out, userMessage(m))
		case llm.RoleAssistant:
			if m.Text == "" && len(m.ToolCalls) == 0 {
				continue // reasoning only: nothing the API accepts
			}
			a := oai.ChatCompletionAssistantMessageParam{}
			if m.Text != "" {
				a.Content.OfString = oai.String(m.Text)
			}
			for _, tc := range m.ToolCalls {
				args := string(tc.Arguments)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args},
					},
				})
			}
			if x := historyExtra(d, m); x != nil {
				a.SetExtraFields(x)
			}
			out = append(out, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case llm.RoleTool:
			text := m.Text
			if m.IsError {
				text = "Error: " + text
			}
			out = append(out, oai.ToolMessage(text, m.ToolCallID))
		}
	}
	return out
}
