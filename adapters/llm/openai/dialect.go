package openai

import (
	"encoding/json"
	"strings"

	oai "github.com/openai/openai-go/v3"

	"github.com/jpcli/jp/domain/llm"
)

// Dialect names an OpenAI-compatible service whose reasoning switch and
// reasoning fields differ from OpenAI's (docs/providers.md).
type Dialect string

// Dialects.
const (
	// DialectGeneric: OpenAI, or a compatible server (vLLM, LM Studio,
	// ...): reasoning_effort, and chat_template_kwargs.enable_thinking =
	// false for off.
	DialectGeneric Dialect = ""
	// DialectOpenRouter: reasoning {effort | max_tokens | enabled};
	// streams reasoning and reasoning_details, which go back in history.
	DialectOpenRouter Dialect = "openrouter"
	// DialectLlamaCpp: chat_template_kwargs (enable_thinking,
	// reasoning_effort); streams reasoning_content.
	DialectLlamaCpp Dialect = "llamacpp"
	// DialectCerebras: reasoning_effort, disable_reasoning for off;
	// streams reasoning.
	DialectCerebras Dialect = "cerebras"
	// DialectDeepSeek: thinking {type}, reasoning_effort; streams
	// reasoning_content, which goes back with tool calls.
	DialectDeepSeek Dialect = "deepseek"
)

// signaturePrefix marks the reasoning_details OpenRouter streamed, stored
// as the signature of the reasoning block (other providers' signatures
// have no colon, so no adapter mistakes them for its own).
const signaturePrefix = "openrouter:"

// applyDialect replaces the generic reasoning switch with the service's
// own (the history in the service's form is built by buildParamsFor).
func applyDialect(d Dialect, req llm.Request, params *oai.ChatCompletionNewParams, extra map[string]any) map[string]any {
	if d == DialectGeneric {
		return extra
	}
	if extra == nil {
		extra = map[string]any{}
	}
	r := req.Params.Reasoning
	effort := reasoningEffort(r)
	params.ReasoningEffort = ""
	delete(extra, "chat_template_kwargs")
	switch d {
	case DialectOpenRouter:
		switch {
		case !r.IsSet():
		case r.Level == llm.ReasoningAuto:
			extra["reasoning"] = map[string]any{"enabled": true}
		case r.Budget > 0:
			extra["reasoning"] = map[string]any{"max_tokens": r.Budget}
		case r.Level == llm.ReasoningMax:
			extra["reasoning"] = map[string]any{"effort": "xhigh"}
		default:
			extra["reasoning"] = map[string]any{"effort": string(effort)}
		}
	case DialectLlamaCpp:
		switch {
		case !r.IsSet() || r.Level == llm.ReasoningAuto:
		case !r.Enabled():
			extra["chat_template_kwargs"] = map[string]any{"enable_thinking": false}
		default:
			extra["chat_template_kwargs"] = map[string]any{"enable_thinking": true, "reasoning_effort": string(effort)}
		}
	case DialectCerebras:
		switch {
		case !r.IsSet() || r.Level == llm.ReasoningAuto:
		case !r.Enabled():
			extra["disable_reasoning"] = true
		default:
			params.ReasoningEffort = effort
		}
	case DialectDeepSeek:
		switch {
		case !r.IsSet() || r.Level == llm.ReasoningAuto:
		case !r.Enabled():
			extra["thinking"] = map[string]any{"type": "disabled"}
		default:
			extra["thinking"] = map[string]any{"type": "enabled"}
			if r.Level == llm.ReasoningMax {
				extra["reasoning_effort"] = "max"
			} else {
				params.ReasoningEffort = effort
			}
		}
	}
	if len(extra) == 0 {
		return nil
	}
	return extra
}

// historyExtra is what an assistant message carries back for the
// service: DeepSeek needs the reasoning of a turn that called tools
// (reasoning_content); OpenRouter takes the reasoning_details it streamed.
func historyExtra(d Dialect, m llm.Message) map[string]any {
	switch d {
	case DialectDeepSeek:
		if len(m.ToolCalls) > 0 && m.Reasoning != "" {
			return map[string]any{"reasoning_content": m.Reasoning}
		}
	case DialectOpenRouter:
		var details []json.RawMessage
		for _, t := range m.Thinking {
			data, ok := strings.CutPrefix(t.Signature, signaturePrefix)
			if !ok {
				continue
			}
			var items []json.RawMessage
			if json.Unmarshal([]byte(data), &items) == nil {
				details = append(details, items...)
			}
		}
		if len(details) > 0 {
			return map[string]any{"reasoning_details": details}
		}
	}
	return nil
}

// detail is one reasoning_details item as OpenRouter streams it, pieces
// of one item sharing an index.
type detail struct {
	fields map[string]any
	text   strings.Builder
	sum    strings.Builder
}

// details assembles the reasoning_details of a stream.
type details struct {
	items []*detail
	byKey map[string]*detail
}

// add merges one delta's reasoning_details array.
func (ds *details) add(raw string) {
	var items []map[string]any
	if json.Unmarshal([]byte(raw), &items) != nil {
		return
	}
	for _, it := range items {
		key, _ := json.Marshal([]any{it["type"], it["index"], it["id"]})
		d := ds.byKey[string(key)]
		if d == nil {
			d = &detail{fields: map[string]any{}}
			if ds.byKey == nil {
				ds.byKey = map[string]*detail{}
			}
			ds.byKey[string(key)] = d
			ds.items = append(ds.items, d)
		}
		for k, v := range it {
			switch s, _ := v.(string); k {
			case "text":
				d.text.WriteString(s)
			case "summary":
				d.sum.WriteString(s)
			default:
				if v != nil {
					d.fields[k] = v
				}
			}
		}
	}
}

// signature is the assembled list as a stored signature; "" when there
// is none. It empties the list.
func (ds *details) signature() string {
	if len(ds.items) == 0 {
		return ""
	}
	out := make([]map[string]any, 0, len(ds.items))
	for _, d := range ds.items {
		m := d.fields
		if d.text.Len() > 0 {
			m["text"] = d.text.String()
		}
		if d.sum.Len() > 0 {
			m["summary"] = d.sum.String()
		}
		out = append(out, m)
	}
	ds.items, ds.byKey = nil, nil
	b, _ := json.Marshal(out)
	return signaturePrefix + string(b)
}
