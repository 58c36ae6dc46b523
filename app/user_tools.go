package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/ports"
)

// The tools that talk to the user rather than the machine: ask_user
// asks a question through the prompter (the channel plugins' prompts
// take), tell_user prints a message between tool calls. They have the
// Rust jp's names and argument shapes. Both are off unless the
// configuration names them ([conversation.tools.ask_user] without a
// command), like the built-in file tools; the app runs them because they
// need the run's prompter and printer.
const (
	AskUser  = "ask_user"
	TellUser = "tell_user"
)

// UserToolNames lists the user tools.
var UserToolNames = []string{AskUser, TellUser}

const askUserDescription = "Ask the user a typed question (boolean, select, or text) and receive their answer. " +
	"Use only when the conversation does not provide the information you need and the user can reasonably be expected to answer. " +
	"When in doubt, answer the user's original question directly; do not call ask_user for clarification you can derive from context " +
	"or for confirmation of obvious next steps. Do not use ask_user to collect secrets (passwords, API keys, SSH passphrases): " +
	"answers are returned to the model and persisted in the conversation stream."

const askUserSchema = `{"type":"object","properties":{` +
	`"question":{"type":"string","description":"The question, on one line."},` +
	`"context":{"type":"string","description":"Optional context shown above the question (may span lines)."},` +
	`"answer_type":{"type":"string","enum":["boolean","select","text"],"description":"The kind of answer; default text."},` +
	`"options":{"type":"array","items":{"type":"string"},"description":"The choices; required for select, not allowed otherwise."},` +
	`"default":{"type":["boolean","string"],"description":"The pre-filled answer: a boolean for boolean, one of options for select, a string for text."}` +
	`},"required":["question"],"additionalProperties":false}`

const tellUserDescription = "Show the user a message now, mid-turn, without ending your turn: a progress update, a partial result, " +
	"or anything the user must see while you keep working. The message is shown as written (markdown); you get a short acknowledgement."

const tellUserSchema = `{"type":"object","properties":{` +
	`"message":{"type":"string","description":"The message for the user (markdown)."}` +
	`},"required":["message"],"additionalProperties":false}`

// tellUserAck is tell_user's result: what the model reads.
const tellUserAck = "Message shown to user."

// userTools returns the user tools cfg enables that the turn does not
// already offer under the same name.
func userTools(cfg config.Config, offered []llm.Tool) []llm.Tool {
	var out []llm.Tool
	for _, name := range UserToolNames {
		t, ok := cfg.Conversation.Tools.Named[name]
		if !ok || t.IsLocal() || !t.Enabled() || offeredTool(offered, name) {
			continue
		}
		desc, schema := askUserDescription, askUserSchema
		if name == TellUser {
			desc, schema = tellUserDescription, tellUserSchema
		}
		if t.Description != "" {
			desc = t.Description
		}
		out = append(out, llm.Tool{Name: name, Description: desc, Parameters: json.RawMessage(schema)})
	}
	return out
}

// isUserTool reports whether name is a user tool cfg enables.
func isUserTool(cfg config.Config, name string) bool {
	if !slices.Contains(UserToolNames, name) {
		return false
	}
	t, ok := cfg.Conversation.Tools.Named[name]
	return ok && !t.IsLocal() && t.Enabled()
}

// userToolPolicy is the run policy of a call: a user tool whose table
// sets no run policy runs without a permission prompt (the question, or
// the message, is itself the exchange with the user).
func userToolPolicy(cfg config.Config, name string, policy config.RunPolicy) config.RunPolicy {
	if isUserTool(cfg, name) && cfg.Conversation.Tools.Named[name].Run == config.RunPolicyUnknown {
		return config.RunPolicyUnattended
	}
	return policy
}

// runUserTools runs the approved calls of user tools, one at a time and
// before the other calls of the batch run, and takes them out of the
// batch (approved is cleared for them; their results are filled in).
func (q *Query) runUserTools(ctx context.Context, rs *runState, calls []llm.ToolCall, approved []bool, results []turn.ToolResult) {
	for i, c := range calls {
		if !approved[i] || !isUserTool(rs.cfg, c.Name) {
			continue
		}
		approved[i] = false
		var r turn.ToolResult
		switch c.Name {
		case AskUser:
			r = q.askUser(ctx, c)
		case TellUser:
			r = q.tellUser(c)
		}
		r.CallID = c.ID
		results[i] = r
	}
}

// askUserArgs are ask_user's arguments.
type askUserArgs struct {
	Question   string          `json:"question"`
	Context    string          `json:"context"`
	AnswerType string          `json:"answer_type"`
	Options    []string        `json:"options"`
	Default    json.RawMessage `json:"default"`
}

// parseAskUser checks ask_user's arguments and builds the question. The
// error is a message the model can act on.
func parseAskUser(raw json.RawMessage) (askUserArgs, ports.Question, error) {
	var a askUserArgs
	if err := json.Unmarshal(orEmpty(raw), &a); err != nil {
		return a, ports.Question{}, fmt.Errorf("the arguments must be a JSON object with question, and optionally context, answer_type, options and default: %v", err)
	}
	a.Question = strings.TrimSpace(a.Question)
	switch {
	case a.Question == "":
		return a, ports.Question{}, errors.New("question is missing or empty")
	case strings.ContainsAny(a.Question, "\r\n"):
		return a, ports.Question{}, errors.New("question must be one line; put the rest in context")
	}
	if a.AnswerType == "" {
		a.AnswerType = "text"
	}
	q := ports.Question{Message: a.Question, Topic: "ask_user"}
	if c := strings.TrimSpace(a.Context); c != "" {
		q.Message = c + "\n\n" + a.Question
	}
	hasDefault := len(a.Default) > 0 && string(a.Default) != "null"
	switch a.AnswerType {
	case "boolean":
		q.Kind = ports.QuestionConfirm
		if hasDefault {
			var b bool
			if err := json.Unmarshal(a.Default, &b); err != nil {
				return a, ports.Question{}, errors.New("default must be true or false for answer_type boolean")
			}
			q.Default = b
		}
	case "select", "text":
		q.Kind = ports.QuestionText
		if a.AnswerType == "select" {
			q.Kind = ports.QuestionSelect
			if len(a.Options) == 0 {
				return a, ports.Question{}, errors.New("options are required for answer_type select")
			}
			for _, o := range a.Options {
				q.Options = append(q.Options, ports.Option{Label: o, Value: o})
			}
		}
		if hasDefault {
			var s string
			if err := json.Unmarshal(a.Default, &s); err != nil {
				return a, ports.Question{}, fmt.Errorf("default must be a string for answer_type %s", a.AnswerType)
			}
			if a.AnswerType == "select" && !slices.Contains(a.Options, s) {
				return a, ports.Question{}, fmt.Errorf("default %q is not one of the options", s)
			}
			q.Default = s
		}
	default:
		return a, ports.Question{}, fmt.Errorf("answer_type %q is not boolean, select or text", a.AnswerType)
	}
	if a.AnswerType != "select" && len(a.Options) > 0 {
		return a, ports.Question{}, fmt.Errorf("options are only for answer_type select, not %s", a.AnswerType)
	}
	return a, q, nil
}

// askUser asks the user the model's question. The answer goes back as
// {"answer_type": ..., "answer": ...}; no terminal (or a script that
// says unavailable), ESC and Ctrl-C are error results saying so.
func (q *Query) askUser(ctx context.Context, c llm.ToolCall) turn.ToolResult {
	a, question, err := parseAskUser(c.Arguments)
	if err != nil {
		return turn.ToolResult{Content: "ask_user: " + err.Error(), IsError: true}
	}
	if !q.prompter.Interactive() {
		return turn.ToolResult{Content: "ask_user is unavailable: there is no terminal to ask the user on. Go on without the answer, or end your turn with the question.", IsError: true}
	}
	resume := q.printer.Suspend()
	ans, err := q.prompter.Ask(ctx, question)
	resume()
	switch {
	case errors.Is(err, ports.ErrUnavailable):
		return turn.ToolResult{Content: "ask_user is unavailable: the question cannot be asked here. Go on without the answer, or end your turn with the question.", IsError: true}
	case errors.Is(err, ports.ErrCancelled), errors.Is(err, ports.ErrInterrupted):
		return turn.ToolResult{Content: "The user dismissed the question without answering.", IsError: true}
	case err != nil:
		return turn.ToolResult{Content: "ask_user failed: " + err.Error(), IsError: true}
	}
	var answer any = ans.Text
	if a.AnswerType == "boolean" {
		answer = ans.Bool
	}
	b, _ := json.Marshal(struct {
		AnswerType string `json:"answer_type"`
		Answer     any    `json:"answer"`
	}{a.AnswerType, answer})
	return turn.ToolResult{Content: string(b)}
}

// tellUser prints the model's message as content (the printer keeps
// control and invisible characters off the terminal).
func (q *Query) tellUser(c llm.ToolCall) turn.ToolResult {
	var a struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(orEmpty(c.Arguments), &a); err != nil {
		return turn.ToolResult{Content: "tell_user: the arguments must be a JSON object with a message string: " + err.Error(), IsError: true}
	}
	if strings.TrimSpace(a.Message) == "" {
		return turn.ToolResult{Content: "tell_user: message is missing or empty", IsError: true}
	}
	q.printer.Write(ports.ChannelContent, strings.TrimRight(a.Message, "\n"))
	q.printer.EndBlock(ports.ChannelContent)
	return turn.ToolResult{Content: tellUserAck}
}
