package app

import (
	"fmt"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
)

// contextMeter is the projected size of the turn's next request (the
// history as the next call would carry it, the system prompt, the tools
// offered) against the model's context window.
func contextMeter(rs *runState, ts *turnState) llm.ContextMeter {
	rs.offered = ts.offered
	return meterOf(rs.cfg, rs.model, streamRequest(rs, ts))
}

// meterOf estimates req against model's window (the built-in table or
// assistant.model.context_windows; 0 when not known).
func meterOf(cfg config.Config, model llm.ModelID, req llm.Request) llm.ContextMeter {
	m := llm.ContextMeter{Tokens: llm.EstimateTokens(req)}
	if w, ok := llm.ContextWindow(model, cfg.Assistant.Model.ContextWindows); ok {
		m.Window = w
	}
	return m
}

// ContextMeterOf is the meter of a stored conversation (jp conversation
// show): historyTokens (the estimate of its history as the next request
// would carry it: turn.Sizer) and the system prompt, against the window
// of model ("<provider>/<model>"; the window is left out when it does not
// parse). Tools are not counted: which are offered is decided when a
// query runs.
func ContextMeterOf(cfg config.Config, model string, historyTokens int) llm.ContextMeter {
	m := llm.ContextMeter{Tokens: historyTokens + llm.EstimateTokens(llm.Request{System: cfg.SystemPrompt()})}
	if id, err := llm.ParseModelID(model); err == nil {
		m.Window = meterOf(cfg, id, llm.Request{}).Window
	}
	return m
}

// overflowError is the one line for a request the provider refused for
// exceeding the model's context window: what happened and what to do.
func overflowError(model llm.ModelID, err error) *UserError {
	return &UserError{Msg: fmt.Sprintf("The conversation exceeds the context window of %s (%v): shrink it with jp c compact, or start a new one with jp q --new.", model, err), Err: err}
}
