package app

import (
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/ports"
)

// modelParams reads assistant.model.parameters into the provider-neutral
// parameters of a request.
func modelParams(cfg config.Config) (llm.Params, error) {
	p := cfg.Assistant.Model.Parameters
	out := llm.Params{
		MaxTokens:   p.MaxTokens,
		Temperature: p.Temperature.Ptr(),
		TopP:        p.TopP.Ptr(),
		Stop:        []string(p.Stop),
	}
	if s := p.Reasoning.String(); s != "" {
		r, err := llm.ParseReasoning(s)
		if err != nil {
			return out, &UserError{Msg: "assistant.model.parameters." + err.Error(), Err: err}
		}
		out.Reasoning = r
	}
	tc, err := llm.ParseToolChoice(p.ToolChoice)
	if err != nil {
		return out, &UserError{Msg: "assistant.model.parameters." + err.Error(), Err: err}
	}
	out.ToolChoice = tc
	return out, nil
}

// lengthNote says, in one line, that a response hit the token limit:
// whether it is continued, and which setting to change.
func (q *Query) lengthNote(rs *runState, acts []turn.Action) {
	limit := "the model's default"
	if n := rs.params.MaxTokens; n > 0 {
		limit = fmt.Sprint(n)
	}
	for _, a := range acts {
		if a.Kind == turn.ActionRequest {
			q.chromeNote(fmt.Sprintf("The response hit the token limit (assistant.model.parameters.max_tokens: %s); continuing it (query.continue_on_length).", limit))
			return
		}
	}
	q.chromeNote(fmt.Sprintf("The response was cut at the token limit (assistant.model.parameters.max_tokens: %s): raise it with -p max_tokens=N, or set query.continue_on_length to continue such responses.", limit))
}

// usageLine prints the turn's tokens (and cost, when the price is known)
// and the context meter on the chrome channel once the turn ends.
func (q *Query) usageLine(rs *runState, ts *turnState) {
	u, model := ts.m.Usage()
	r := ports.UsageReport{Model: model, Usage: u, Context: contextMeter(rs, ts)}
	r.Cost, r.Priced = Cost(rs.cfg, model, u)
	q.printer.Usage(r)
}

// price is dollars per million tokens.
type price struct{ input, output, cacheRead, cacheWrite float64 }

// builtinPrices are list prices (US dollars per million tokens) of models
// people commonly use; providers.<p>.pricing overrides and extends them.
// A model name matches an entry equal to it or starting with it followed
// by "-" (dated snapshots).
var builtinPrices = map[string]map[string]price{
	"anthropic": {
		"claude-opus-4-1":   {15, 75, 1.5, 18.75},
		"claude-opus-4":     {15, 75, 1.5, 18.75},
		"claude-sonnet-4-5": {3, 15, 0.3, 3.75},
		"claude-sonnet-4":   {3, 15, 0.3, 3.75},
		"claude-haiku-4-5":  {1, 5, 0.1, 1.25},
		"claude-3-5-haiku":  {0.8, 4, 0.08, 1},
	},
	"openai": {
		"gpt-4o":       {2.5, 10, 1.25, 2.5},
		"gpt-4o-mini":  {0.15, 0.6, 0.075, 0.15},
		"gpt-4.1":      {2, 8, 0.5, 2},
		"gpt-4.1-mini": {0.4, 1.6, 0.1, 0.4},
		"gpt-5":        {1.25, 10, 0.125, 1.25},
		"gpt-5-mini":   {0.25, 2, 0.025, 0.25},
		"o3":           {2, 8, 0.5, 2},
		"o4-mini":      {1.1, 4.4, 0.275, 1.1},
	},
}

// Cost is what u cost on model ("<provider>/<model>"), when its price is
// known from providers.<p>.pricing or the built-in table.
func Cost(cfg config.Config, model string, u llm.Usage) (float64, bool) {
	id, err := llm.ParseModelID(model)
	if err != nil {
		return 0, false
	}
	p, ok := lookupPrice(cfg, id)
	if !ok {
		return 0, false
	}
	plain := u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens
	total := float64(plain)*p.input + float64(u.CacheReadTokens)*p.cacheRead +
		float64(u.CacheWriteTokens)*p.cacheWrite + float64(u.OutputTokens)*p.output
	return total / 1e6, true
}

func lookupPrice(cfg config.Config, id llm.ModelID) (price, bool) {
	var custom map[string]config.Pricing
	switch id.Provider {
	case "openai":
		custom = cfg.Providers.OpenAI.Pricing
	case "anthropic":
		custom = cfg.Providers.Anthropic.Pricing
	}
	if c, ok := custom[id.Model]; ok && c.Input.Set && c.Output.Set {
		p := price{input: c.Input.Value, output: c.Output.Value, cacheRead: c.Input.Value, cacheWrite: c.Input.Value}
		if c.CacheRead.Set {
			p.cacheRead = c.CacheRead.Value
		}
		if c.CacheWrite.Set {
			p.cacheWrite = c.CacheWrite.Value
		}
		return p, true
	}
	table := builtinPrices[id.Provider]
	if p, ok := table[id.Model]; ok {
		return p, true
	}
	best, found := "", false
	for name := range table {
		if strings.HasPrefix(id.Model, name+"-") && len(name) > len(best) {
			best, found = name, true
		}
	}
	return table[best], found
}
