package anthropic

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/jpcli/jp/domain/llm"
)

// buildParams maps a provider-neutral request to Messages API params.
// maxTokens is Options.MaxTokens (0: none); req.Params.MaxTokens wins over
// it, and without either the model's maximum output is asked for.
func buildParams(req llm.Request, maxTokens int64) (sdk.MessageNewParams, error) {
	thinking := req.Params.Reasoning.Enabled()
	params := sdk.MessageNewParams{
		Model:     sdk.Model(req.Model),
		MaxTokens: cmp.Or(int64(req.Params.MaxTokens), maxTokens, ModelMaxTokens(req.Model)),
		Messages:  buildMessages(req.Messages, thinking),
	}
	if err := applyParams(&params, req.Params, req.Model); err != nil {
		return params, err
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

// ModelMaxTokens is the most output tokens a Claude model can produce,
// by family; the default max_tokens, so that an answer is not cut short
// by a limit nobody chose.
func ModelMaxTokens(model string) int64 {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "claude-3-haiku"), strings.Contains(m, "claude-3-opus"), strings.Contains(m, "claude-3-sonnet"):
		return 4096
	case strings.Contains(m, "claude-3-5"):
		return 8192
	case strings.Contains(m, "opus-4-0"), strings.Contains(m, "opus-4-1"), m == "claude-opus-4" || strings.HasPrefix(m, "claude-opus-4-2025"):
		return 32000
	}
	return 64000
}

// adaptive reports whether the model takes adaptive thinking and the
// effort parameter (the Claude 4.6 generation and later).
func adaptive(model string) bool {
	major, minor := version(model)
	return major > 4 || (major == 4 && minor >= 6)
}

// version reads a Claude model's generation from its name:
// "claude-sonnet-4-5-20250929" is 4.5, "claude-3-5-haiku" 3.5.
func version(model string) (major, minor int) {
	var nums []int
	for _, part := range strings.Split(strings.ToLower(model), "-") {
		n, err := strconv.Atoi(part)
		if err != nil || n >= 100 { // a word, or a date
			continue
		}
		nums = append(nums, n)
	}
	if len(nums) > 0 {
		major = nums[0]
	}
	if len(nums) > 1 {
		minor = nums[1]
	}
	return major, minor
}

// Thinking budgets of the reasoning levels, for models without adaptive
// thinking; "max" is the whole response minus one token.
const (
	budgetLow    = 4096
	budgetMedium = 16384
	budgetHigh   = 32768
	budgetMin    = 1024
)

// applyParams maps the model parameters: sampling, stop sequences, tool
// choice, and reasoning to thinking (a budget, or adaptive with effort).
func applyParams(params *sdk.MessageNewParams, p llm.Params, model string) error {
	if p.Temperature != nil {
		params.Temperature = sdk.Float(*p.Temperature)
	}
	if p.TopP != nil {
		params.TopP = sdk.Float(*p.TopP)
	}
	if len(p.Stop) > 0 {
		params.StopSequences = p.Stop
	}
	switch p.ToolChoice.Mode {
	case llm.ToolChoiceAuto:
		params.ToolChoice = sdk.ToolChoiceUnionParam{OfAuto: &sdk.ToolChoiceAutoParam{}}
	case llm.ToolChoiceNone:
		params.ToolChoice = sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}
	case llm.ToolChoiceRequired:
		params.ToolChoice = sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}
	case llm.ToolChoiceTool:
		params.ToolChoice = sdk.ToolChoiceParamOfTool(p.ToolChoice.Name)
	}
	r := p.Reasoning
	if !r.IsSet() {
		return nil
	}
	if !r.Enabled() {
		params.Thinking = sdk.ThinkingConfigParamUnion{OfDisabled: &sdk.ThinkingConfigDisabledParam{}}
		return nil
	}
	if r.Budget == 0 && adaptive(model) {
		params.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{}}
		if r.Level != llm.ReasoningAuto {
			params.OutputConfig.Effort = sdk.OutputConfigEffort(r.Level)
		}
		return nil
	}
	budget := int64(r.Budget)
	switch r.Level {
	case llm.ReasoningLow:
		budget = budgetLow
	case llm.ReasoningMedium, llm.ReasoningAuto:
		budget = budgetMedium
	case llm.ReasoningHigh:
		budget = budgetHigh
	case llm.ReasoningMax:
		budget = params.MaxTokens - 1
	}
	if budget >= params.MaxTokens {
		if r.Budget > 0 {
			return fmt.Errorf("reasoning budget %d must be less than max_tokens (%d): lower it, or raise assistant.model.parameters.max_tokens", r.Budget, params.MaxTokens)
		}
		budget = params.MaxTokens - 1
	}
	if budget < budgetMin {
		return fmt.Errorf("reasoning needs a budget of at least %d tokens, less than max_tokens (%d): raise assistant.model.parameters.max_tokens", budgetMin, params.MaxTokens)
	}
	params.Thinking = sdk.ThinkingConfigParamOfEnabled(budget)
	return nil
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
// user spoke next). With thinking on, signed thinking blocks are sent back
// before the assistant's text and tool calls (the API requires them with
// tool use); unsigned reasoning (another provider's) is never sent. A
// final assistant message (continuing a cut response) loses its trailing
// whitespace, which the API refuses.
func buildMessages(msgs []llm.Message, thinking bool) []sdk.MessageParam {
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
	for i, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			add(sdk.MessageParamRoleUser, userBlocks(m)...)
		case llm.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			if thinking {
				for _, t := range m.Thinking {
					// Another provider's stored reasoning ("<kind>:<data>";
					// Anthropic's signatures are base64) means nothing here.
					if t.Signature != "" && !strings.Contains(t.Signature, ":") {
						blocks = append(blocks, sdk.NewThinkingBlock(t.Signature, t.Text))
					}
				}
			}
			text := m.Text
			if i == len(msgs)-1 {
				text = strings.TrimRightFunc(text, unicode.IsSpace)
			}
			if text != "" {
				blocks = append(blocks, sdk.NewTextBlock(text))
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

// userBlocks are a user message's attachments (text, then images as
// image blocks) followed by its text.
func userBlocks(m llm.Message) []sdk.ContentBlockParamUnion {
	blocks := make([]sdk.ContentBlockParamUnion, 0, len(m.Attachments)+1)
	for _, a := range m.Attachments {
		if a.IsImage() {
			blocks = append(blocks, sdk.NewImageBlockBase64(a.MediaType, base64.StdEncoding.EncodeToString(a.Data)))
			continue
		}
		blocks = append(blocks, sdk.NewTextBlock(llm.AttachmentText(a)))
	}
	if m.Text != "" || len(blocks) == 0 {
		blocks = append(blocks, sdk.NewTextBlock(m.Text))
	}
	return blocks
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
