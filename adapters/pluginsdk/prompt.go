package pluginsdk

import (
	"context"

	"github.com/jpcli/jp/domain/plugin"
)

// PromptResult is jp's answer to a prompt: the outcome, and the value
// when the user answered.
type PromptResult struct {
	Outcome plugin.PromptOutcome
	// Value is a bool for confirm, the string otherwise.
	Value any
	// Reason says why the prompt was unavailable.
	Reason string
}

// Answered reports whether the user answered.
func (r PromptResult) Answered() bool { return r.Outcome == plugin.PromptOutcomeAnswered }

// Bool is a confirm's answer (false unless answered yes).
func (r PromptResult) Bool() bool {
	b, _ := r.Value.(bool)
	return b
}

// Text is a select's, text's or secret's answer ("" unless answered).
func (r PromptResult) Text() string {
	s, _ := r.Value.(string)
	return s
}

// Prompt asks the user a question through jp (docs/plugins.md) and returns the
// outcome: answered with a value, cancelled (ESC), or unavailable (no
// terminal; the plugin should name its non-interactive alternative). It
// returns ErrShutdown when jp asked the plugin to shut down instead (the
// user pressed Ctrl-C in the prompt).
func (c *Client) Prompt(ctx context.Context, p plugin.Prompt) (PromptResult, error) {
	id := c.newID()
	p.ID = id
	var resp plugin.PromptResponse
	if err := c.roundTrip(ctx, id, p, plugin.TypePromptResponse, &resp, true); err != nil {
		return PromptResult{}, err
	}
	return PromptResult{Outcome: resp.Outcome, Value: resp.Value, Reason: resp.Reason}, nil
}

// Confirm asks a yes/no question with a default.
func (c *Client) Confirm(ctx context.Context, message string, def bool) (PromptResult, error) {
	return c.Prompt(ctx, plugin.Prompt{Kind: plugin.PromptKindConfirm, Message: message, Default: def})
}

// Select asks for one of options.
func (c *Client) Select(ctx context.Context, message string, options ...string) (PromptResult, error) {
	return c.Prompt(ctx, plugin.Prompt{Kind: plugin.PromptKindSelect, Message: message, Options: options})
}

// Text asks for a line of text.
func (c *Client) Text(ctx context.Context, message string) (PromptResult, error) {
	return c.Prompt(ctx, plugin.Prompt{Kind: plugin.PromptKindText, Message: message})
}

// Secret asks for a line of text without echo; jp never logs the answer.
func (c *Client) Secret(ctx context.Context, message string) (PromptResult, error) {
	return c.Prompt(ctx, plugin.Prompt{Kind: plugin.PromptKindSecret, Message: message})
}
