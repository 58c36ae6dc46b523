package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jpcli/jp/ports"
)

// Elicitation actions (MCP elicitation/create results).
const (
	actionAccept  = "accept"
	actionDecline = "decline"
	actionCancel  = "cancel"
)

// maxAttempts is how often a field is asked again after an answer that
// does not fit its schema.
const maxAttempts = 3

// elicitor renders server elicitations as questions on the prompter with
// Topic "mcp:<server>", one dialog at a time (calls of a batch run
// concurrently, and their questions must not interleave).
//
// The mapping, documented for users in docs/mcp.md:
//
//   - First a confirm: "MCP server <name> asks: <message>. Answer it?".
//     No declines; ESC or Ctrl-C cancels.
//   - Then one question per property of the requested schema, in the
//     order the server wrote them: boolean -> confirm; a string with enum
//     or oneOf -> select (an optional one offers "(no answer)"); an array
//     of enum values -> text, comma-separated; number, integer and
//     string -> text, checked against the property's schema and asked
//     again (at most 3 times) when it does not fit. An optional text left
//     empty is omitted.
//   - A URL elicitation is a single confirm showing the URL.
//   - ESC or Ctrl-C on any question cancels; a question nobody can answer
//     (no terminal, or a headless script without a step for it) declines,
//     with a log line saying so. Nothing is ever accepted on the user's
//     behalf.
type elicitor struct {
	prompter ports.Prompter
	log      *slog.Logger
	mu       sync.Mutex
}

// elicit answers one elicitation/create request from server.
func (e *elicitor) elicit(ctx context.Context, server string, p *sdk.ElicitParams, orders *orderRecorder) (*sdk.ElicitResult, error) {
	if p == nil {
		return &sdk.ElicitResult{Action: actionDecline}, nil
	}
	if e.prompter == nil || !e.prompter.Interactive() {
		e.log.Warn("an MCP server asked for input, but there is no interactive terminal to ask on; declined",
			"server", server, "message", p.Message)
		return &sdk.ElicitResult{Action: actionDecline}, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	d := &dialog{e: e, ctx: ctx, server: server}
	if p.Mode == "url" {
		ok, err := d.confirm(fmt.Sprintf("MCP server %s asks you to open %s\n%s\nAccept? (jp does not open it for you)", server, p.URL, p.Message), false)
		return d.result(ok, nil, err)
	}
	fields, err := formFields(p.RequestedSchema, p.Message, orders)
	if err != nil {
		e.log.Warn("an MCP server asked for input jp cannot render; declined", "server", server, "error", err)
		return &sdk.ElicitResult{Action: actionDecline}, nil
	}
	intro := fmt.Sprintf("MCP server %s asks: %s\nAnswer it?", server, p.Message)
	if len(fields) == 0 {
		intro = fmt.Sprintf("MCP server %s asks: %s\nAccept?", server, p.Message)
	}
	ok, err := d.confirm(intro, true)
	if err != nil || !ok {
		return d.result(ok, nil, err)
	}
	content := map[string]any{}
	for _, f := range fields {
		v, set, err := d.field(f)
		if err != nil {
			return d.result(false, nil, err)
		}
		if set {
			content[f.name] = v
		}
	}
	return d.result(true, content, nil)
}

// dialog is one elicitation being asked.
type dialog struct {
	e      *elicitor
	ctx    context.Context
	server string
}

func (d *dialog) ask(q ports.Question) (ports.Answer, error) {
	q.Topic = "mcp:" + d.server
	return d.e.prompter.Ask(d.ctx, q)
}

func (d *dialog) confirm(msg string, def bool) (bool, error) {
	a, err := d.ask(ports.Question{Kind: ports.QuestionConfirm, Message: msg, Default: def})
	return a.Bool, err
}

// field asks one property, again while the answer does not fit.
func (d *dialog) field(f field) (v any, set bool, err error) {
	problem := ""
	for range maxAttempts {
		q := f.question()
		if problem != "" {
			q.Message = problem + "\n" + q.Message
		}
		a, err := d.ask(q)
		if err != nil {
			return nil, false, err
		}
		v, set, err := f.parse(a)
		if err == nil {
			return v, set, nil
		}
		problem = err.Error()
	}
	return nil, false, fmt.Errorf("%s: %s, %d times: %w", f.label(), problem, maxAttempts, errGaveUp)
}

var errGaveUp = errors.New("no answer fit")

// result maps the dialog's outcome to an elicitation result.
func (d *dialog) result(accepted bool, content map[string]any, err error) (*sdk.ElicitResult, error) {
	switch {
	case err == nil && accepted:
		return &sdk.ElicitResult{Action: actionAccept, Content: content}, nil
	case err == nil:
		return &sdk.ElicitResult{Action: actionDecline}, nil
	case errors.Is(err, ports.ErrUnavailable):
		d.e.log.Warn("nobody could answer an MCP server's question (no interactive terminal, or no headless step for it); declined",
			"server", d.server, "error", err)
		return &sdk.ElicitResult{Action: actionDecline}, nil
	case errors.Is(err, ports.ErrCancelled), errors.Is(err, ports.ErrInterrupted), d.ctx.Err() != nil:
		return &sdk.ElicitResult{Action: actionCancel}, nil
	}
	d.e.log.Warn("an MCP server's question failed; cancelled", "server", d.server, "error", err)
	return &sdk.ElicitResult{Action: actionCancel}, nil
}
