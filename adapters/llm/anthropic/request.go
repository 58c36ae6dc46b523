package anthropic

import (
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/jpcli/jp/domain/llm"
)

// buildParams maps a provider-neutral request to Messages API params.
func buildParams(req llm.Request, maxTokens int64) (sdk.MessageNewParams, error) {
	params := sdk.MessageNewParams{
		Model:     sdk.Model(req.Model),
		MaxTokens: maxTokens,
		Messages:  buildMessages(req.Messages),
	}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	for _, t := range req.Tools {
		schema, err := inputSchema(t.Parameters)
		if err != nil {
			return params, fmt.Errorf("tool %s: parameters: %w", t.Name, err)
		}
		tool := sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tool.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	if len(req.Schema) > 0 {
		var schema map[string]any
		if err := json.Unmarshal(req.Schema, &schema); err != nil || schema == nil {
			return params, fmt.Errorf("response schema is not a JSON object")
		}
		params.OutputConfig.Format = sdk.JSONOutputFormatParam{Schema: schema}
	}
	return params, nil
}

// inputSchema splits a JSON Schema object into the SDK's fields:
// properties, required, and the rest as extra fields. nil means a tool
// without parameters.
func inputSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	s := sdk.ToolInputSchemaParam{Properties: map[string]any{}}
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return s, fmt.Errorf("not a JSON object: %w", err)
	}
	for k, v := range m {
		switch k {
		case "type":
			// always "object"; the SDK writes it
		case "properties":
			var props any
			if err := json.Unmarshal(v, &props); err != nil {
				return s, err
			}
			s.Properties = props
		case "required":
			if err := json.Unmarshal(v, &s.Required); err != nil {
				return s, fmt.Errorf("required: %w", err)
			}
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	return s, nil
}

// buildMessages maps the history. Consecutive messages that end up with the
// same role are merged into one message: several tool results become one
// user message of tool_result blocks (followed by the user's text, if the
// user spoke next). Reasoning is not sent back: thinking blocks need the
// provider's signature, which the domain does not keep.
func buildMessages(msgs []llm.Message) []sdk.MessageParam {
	var out []sdk.MessageParam
	add := func(role sdk.MessageParamRole, blocks ...sdk.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, sdk.MessageParam{Role: role, Content: blocks})
	}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			add(sdk.MessageParamRoleUser, sdk.NewTextBlock(m.Text))
		case llm.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			if m.Text != "" {
				blocks = append(blocks, sdk.NewTextBlock(m.Text))
			}
			for _, tc := range m.ToolCalls {
				input := tc.Arguments
				if len(input) == 0 {
					input = json.RawMessage("{}")
				}
				blocks = append(blocks, sdk.NewToolUseBlock(tc.ID, input, tc.Name))
			}
			add(sdk.MessageParamRoleAssistant, blocks...)
		case llm.RoleTool:
			add(sdk.MessageParamRoleUser, toolResult(m))
		}
	}
	return out
}

// toolResult builds a tool_result block; an empty result has no content
// (the API rejects empty text blocks).
func toolResult(m llm.Message) sdk.ContentBlockParamUnion {
	if m.Text != "" {
		return sdk.NewToolResultBlock(m.ToolCallID, m.Text, m.IsError)
	}
	b := sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID}
	if m.IsError {
		b.IsError = sdk.Bool(true)
	}
	return sdk.ContentBlockParamUnion{OfToolResult: &b}
}
