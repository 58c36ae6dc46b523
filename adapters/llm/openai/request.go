package openai

import (
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
func buildParams(req llm.Request) (oai.ChatCompletionNewParams, error) {
	params := oai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		Messages:      buildMessages(req.Messages),
		StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)},
	}
	if req.System != "" {
		params.Messages = append([]oai.ChatCompletionMessageParamUnion{oai.SystemMessage(req.System)}, params.Messages...)
	}
	for _, t := range req.Tools {
		schema, err := schemaObject(t.Parameters)
		if err != nil {
			return params, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
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
			return params, fmt.Errorf("response schema: %w", err)
		}
		params.ResponseFormat = oai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "response", Schema: schema},
			},
		}
	}
	return params, nil
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

// buildMessages maps the history. Reasoning is not sent back: Chat
// Completions has no field for it (and DeepSeek rejects reasoning_content
// in requests). A tool result with IsError gets an "Error: " prefix, since
// the API has no error flag for tool messages.
func buildMessages(msgs []llm.Message) []oai.ChatCompletionMessageParamUnion {
	out := make([]oai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			out = append(out, oai.UserMessage(m.Text))
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
