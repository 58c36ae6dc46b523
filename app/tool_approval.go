package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/run"
	"github.com/jpcli/jp/domain/turn"
	"github.com/jpcli/jp/ports"
)

// decide applies run policies and asks for permission where needed. It
// fills results for calls that will not run, and may replace a call's
// arguments (edit). end is batchDone to run the approved calls,
// batchStop when the batch stops before anything runs (shutdown began,
// or [s] on the interrupt menu a Ctrl-C at the prompt opened: ts.shutdown
// says which), or batchRespond with the text the user composed there
// ([r]), which answers every call of the batch.
func (q *Query) decide(ctx context.Context, rs *runState, ts *turnState, calls []llm.ToolCall, results []turn.ToolResult) (approved, edited []bool, end batchEnd, text string) {
	approved = make([]bool, len(calls))
	edited = make([]bool, len(calls))
	for i := range calls {
		c := &calls[i]
		if ctx.Err() != nil || isClosed(q.interrupts.Shutdown()) {
			ts.shutdown = true
			return approved, edited, batchStop, ""
		}
		if !offeredTool(ts.offered, c.Name) {
			// Nobody is asked about a tool that is not there: the model
			// is told which ones are.
			results[i].Content = notEnabledMessage(c.Name, ts.offered)
			continue
		}
		tc := rs.cfg.Tool(c.Name)
		d := q.autoDecision(rs, ts, c.Name, tc, rs.approvals.Decide(c.Name, userToolPolicy(rs.cfg, c.Name, tc.Run)))
		if (d == run.DecisionAsk || d == run.DecisionEdit) && q.conversationApproved(ctx, rs, c.Name) {
			d = run.DecisionRun
		}
		switch d {
		case run.DecisionRun:
			approved[i] = true
		case run.DecisionDeny:
			results[i].Content = fmt.Sprintf("The tool %s is not allowed here (conversation.tools.%s.run = \"deny\").", c.Name, c.Name)
		case run.DecisionSkip:
			// "skip" (the policy, or remembered for this run): the
			// cancellation response stands.
		case run.DecisionAsk, run.DecisionEdit:
			ok, ed, interrupted, msg := q.askPermission(ctx, rs, ts, c, d == run.DecisionEdit)
			approved[i], edited[i] = ok, ed
			if msg != "" {
				results[i].Content = msg
			}
			if interrupted {
				if ts.respond != "" {
					text, ts.respond = ts.respond, ""
					return approved, edited, batchRespond, text
				}
				return approved, edited, batchStop, ""
			}
		}
	}
	return approved, edited, batchDone, ""
}

// offeredTool reports whether the turn offers the tool name.
func offeredTool(offered []llm.Tool, name string) bool {
	return slices.ContainsFunc(offered, func(t llm.Tool) bool { return t.Name == name })
}

// notEnabledMessage is the result of a call to a tool the turn does not
// offer: what the model can call instead.
func notEnabledMessage(name string, offered []llm.Tool) string {
	if len(offered) == 0 {
		return fmt.Sprintf("The tool %s is not enabled, so it did not run. No tools are enabled in this conversation.", name)
	}
	names := make([]string, len(offered))
	for i, t := range offered {
		names[i] = t.Name
	}
	slices.Sort(names)
	return fmt.Sprintf("The tool %s is not enabled, so it did not run. The enabled tools are: %s.", name, strings.Join(names, ", "))
}

// preview plans a write tool's call for the prompt (zero when the tool
// has nothing to preview).
func (q *Query) preview(ctx context.Context, ts *turnState, c llm.ToolCall) (ports.ToolPreview, bool) {
	if p, ok, hit := ts.cachedPreview(c); hit {
		return p, ok // planned for the call's line (toolline.go)
	}
	pv, ok := ts.tools.(ports.ToolPreviewer)
	if !ok {
		return ports.ToolPreview{}, false
	}
	p, ok, err := pv.Preview(ctx, c.Name, c.Arguments)
	if err != nil {
		p, ok = ports.ToolPreview{Error: err.Error()}, true
	}
	ts.cachePreview(c, p, ok)
	return p, ok
}

// askPermission shows the permission prompt for one call, with the diff
// it will apply for a write tool. [e] opens the arguments in the editor
// and asks again with the new diff; startEdit does that first (run =
// "edit").
func (q *Query) askPermission(ctx context.Context, rs *runState, ts *turnState, c *llm.ToolCall, startEdit bool) (ok, edited, interrupted bool, msg string) {
	// A delegated turn's approvals go to the plugin, which has no editor
	// here: run = "edit" asks it like "ask".
	edit := startEdit && q.approve == nil
	for {
		if edit {
			edit = false
			args, changed, stop := q.editArguments(ctx, c)
			if stop {
				ts.shutdown = true
				return false, edited, true, ""
			}
			if changed {
				c.Arguments, edited = args, true
			}
		}
		p, hasPreview := q.preview(ctx, ts, *c)
		if q.approve != nil {
			ok, why, err := q.approve(ctx, *c, p.Diff)
			if err != nil {
				ts.shutdown = true
				return false, edited, true, ""
			}
			return ok, edited, false, why
		}
		if !q.prompter.Interactive() {
			return false, edited, false, fmt.Sprintf("The tool %s needs the user's permission, but there is no terminal to ask on. "+
				"The user can allow it with conversation.tools.%s.run = \"unattended\" or answer from a --headless script.", c.Name, c.Name)
		}
		question := permissionQuestion(rs, *c, p, hasPreview)
		resume := q.printer.Suspend()
		ans, err := q.prompter.Ask(ctx, question)
		resume()
		switch {
		case errors.Is(err, ports.ErrInterrupted):
			// Ctrl-C at the prompt is the first press of the escalation:
			// the tool-call menu, as while tools run.
			if again, stop := q.permissionInterrupt(ctx, rs, ts); stop {
				return false, edited, true, ""
			} else if again {
				continue
			}
			return false, edited, false, ""
		case errors.Is(err, ports.ErrCancelled):
			// ESC: "no, and ..." - a short reason the model reads.
			reason, stop := q.refusalReason(ctx, rs, ts, c.Name)
			if stop {
				return false, edited, true, ""
			}
			return false, edited, false, reason
		case err != nil:
			q.printer.Write(ports.ChannelError, err.Error())
			q.printer.EndBlock(ports.ChannelError)
			return false, edited, false, ""
		}
		d, lvl, perr := run.ParsePermission(ans.Text)
		if perr != nil {
			return false, edited, false, ""
		}
		if d == run.DecisionEdit {
			edit = true
			continue
		}
		q.recordDecision(ctx, rs, c.Name, d, lvl)
		return d == run.DecisionRun, edited, false, ""
	}
}

// permissionQuestion is the permission prompt for call c: its arguments,
// or, for a write tool, the summary and diff of what it will do (or why it
// will fail).
func permissionQuestion(rs *runState, c llm.ToolCall, p ports.ToolPreview, hasPreview bool) ports.Question {
	question := ports.Question{
		Kind:    ports.QuestionSelect,
		Message: fmt.Sprintf("Run tool %s %s?", c.Name, CompactJSON(c.Arguments)),
		Options: permissionOptions,
		Topic:   "tool_permission:" + c.Name,
	}
	if !hasPreview {
		return question
	}
	switch {
	case p.Error != "":
		question.Message = fmt.Sprintf("Run tool %s? It will fail: %s", c.Name, p.Error)
	default:
		question.Message = fmt.Sprintf("Run tool %s: %s?", c.Name, p.Summary)
		question.Diff = p.Diff
		rs.markDiffShown(c.ID, p.Diff)
	}
	return question
}

// recordDecision remembers the answer for the run, and for the
// conversation or the workspace when it says so.
func (q *Query) recordDecision(ctx context.Context, rs *runState, tool string, d run.Decision, lvl run.PersistLevel) {
	rs.approvals.Record(tool, d, lvl)
	switch lvl {
	case run.PersistLevelConversation:
		q.rememberForConversation(ctx, rs, tool)
	case run.PersistLevelWorkspace:
		q.rememberForWorkspace(ctx, rs, tool)
	}
}

// editArguments opens the call's arguments (indented JSON) in the editor
// until they are a JSON object or the user gives up (an empty buffer or
// ESC keeps the arguments as they were).
func (q *Query) editArguments(ctx context.Context, c *llm.ToolCall) (args json.RawMessage, changed, stop bool) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, orEmpty(c.Arguments), "", "  "); err != nil {
		buf.Reset()
		buf.Write(orEmpty(c.Arguments))
	}
	text := buf.String() + "\n"
	for {
		resume := q.printer.Suspend()
		out, err := q.prompter.Compose(ctx, ports.ComposeRequest{
			Purpose: "tool_arguments", Initial: text, InEditor: true, FallbackInline: true,
		})
		resume()
		switch {
		case errors.Is(err, ports.ErrInterrupted):
			q.interrupts.Escalate()
			return nil, false, true
		case err != nil || strings.TrimSpace(out) == "":
			if err != nil && !errors.Is(err, ports.ErrCancelled) {
				q.printer.Write(ports.ChannelError, "edit the arguments: "+err.Error())
				q.printer.EndBlock(ports.ChannelError)
			}
			return nil, false, false
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			q.printer.Write(ports.ChannelError, fmt.Sprintf("the arguments of %s must be a JSON object: %v; edit them again", c.Name, err))
			q.printer.EndBlock(ports.ChannelError)
			text = out
			continue
		}
		var cb bytes.Buffer
		_ = json.Compact(&cb, []byte(out))
		return json.RawMessage(cb.Bytes()), !bytes.Equal(cb.Bytes(), []byte(CompactJSON(c.Arguments))), false
	}
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(b)) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

// conversationApproved reports whether the user answered "always for this
// conversation" for tool in an earlier run (or earlier in this one). The
// answer is kept in the user-local metadata.local.json; the approvals an
// older version kept in metadata.json count only from the user-local
// copy, never from a copy that came with the checkout.
func (q *Query) conversationApproved(ctx context.Context, rs *runState, tool string) bool {
	if rs.id == "" {
		return false
	}
	local, err := q.store.LocalMetadata(ctx, rs.loc, rs.id)
	if err != nil {
		return false
	}
	if slices.Contains(local.ApprovedTools(), tool) {
		return true
	}
	s, err := q.store.Get(ctx, rs.loc, rs.id)
	if err != nil || s.Storage == conversation.StorageWorkspaceOnly {
		return false
	}
	return slices.Contains(s.Metadata.LegacyApprovedTools(), tool)
}

func (q *Query) rememberForConversation(ctx context.Context, rs *runState, tool string) {
	err := q.store.UpdateLocalMetadata(ctx, rs.loc, rs.id, func(m *conversation.LocalMetadata) error {
		m.ApproveTool(tool)
		return nil
	})
	if err != nil {
		q.printer.Write(ports.ChannelError, fmt.Sprintf("could not remember %s for this conversation (it is remembered for this run): %v", tool, err))
		q.printer.EndBlock(ports.ChannelError)
		return
	}
	q.chromeNote(fmt.Sprintf("%s runs without asking in this conversation from now on.", tool))
}

// rememberForWorkspace writes conversation.tools.<tool>.run =
// "unattended" into the user's own configuration for this workspace
// (config.toml in its user-local silo; the user config when there is no
// workspace) and says which file. It never writes a file in the
// checkout: one person's approval is not a change for the team.
func (q *Query) rememberForWorkspace(ctx context.Context, rs *runState, tool string) {
	file := q.userWorkspaceConfigFile(ctx, rs)
	if file == "" {
		q.printer.Write(ports.ChannelError, fmt.Sprintf("there is no user-local workspace or user configuration file to remember %s in; it is remembered for this run", tool))
		q.printer.EndBlock(ports.ChannelError)
		return
	}
	if q.configFiles == nil {
		q.printer.Write(ports.ChannelError, "this front end cannot write configuration files; "+tool+" is remembered for this run")
		q.printer.EndBlock(ports.ChannelError)
		return
	}
	err := q.configFiles.SetString(ctx, file, []string{"conversation", "tools", tool}, "run", config.RunPolicyUnattended.String())
	if err != nil {
		q.printer.Write(ports.ChannelError, fmt.Sprintf("could not remember %s (it is remembered for this run): %v", tool, err))
		q.printer.EndBlock(ports.ChannelError)
		return
	}
	q.chromeNote(fmt.Sprintf("Wrote conversation.tools.%s.run = \"unattended\" to %s (your own configuration for this workspace, not in the checkout).", tool, file))
}

// userWorkspaceConfigFile is config.toml in the workspace's user-local
// silo when the run has a workspace, else <user config dir>/config.toml.
func (q *Query) userWorkspaceConfigFile(ctx context.Context, rs *runState) string {
	if rs.loc.Root != "" {
		if q.ws == nil || q.ws.reg == nil {
			return ""
		}
		k, err := q.ws.reg.Lookup(ctx, rs.loc.ID)
		if err != nil || k.Silo == "" {
			return ""
		}
		return filepath.Join(k.Silo, "config.toml")
	}
	if rs.userConfigDir != "" {
		return filepath.Join(rs.userConfigDir, "config.toml")
	}
	return ""
}

// resultOptions is the prompt of result = "ask".
var resultOptions = []ports.Option{
	{Key: "y", Label: "send it", Value: "y"},
	{Key: "e", Label: "edit it first", Value: "e"},
	{Key: "n", Label: "send the cancellation response instead", Value: "n"},
}

// reviewResults applies each tool's result policy: ask before a result
// goes back to the model, or open it in the editor. stop is true on
// Ctrl-C (an escalation).
func (q *Query) reviewResults(ctx context.Context, rs *runState, calls []llm.ToolCall, approved []bool, results []turn.ToolResult) (stop bool) {
	if q.approve != nil {
		// A delegated turn: nobody at this terminal reviews its results.
		return false
	}
	for i, c := range calls {
		if !approved[i] {
			continue
		}
		pol := rs.cfg.Tool(c.Name).Result
		if pol == config.ResultPolicyAsk {
			if !q.prompter.Interactive() {
				continue
			}
			resume := q.printer.Suspend()
			ans, err := q.prompter.Ask(ctx, ports.Question{
				Kind: ports.QuestionSelect, Options: resultOptions, Topic: "tool_result:" + c.Name,
				Message: fmt.Sprintf("Send the result of %s to the assistant?", c.Name),
			})
			resume()
			switch {
			case errors.Is(err, ports.ErrInterrupted):
				q.interrupts.Escalate()
				return true
			case err != nil:
				continue
			}
			switch ans.Text {
			case "n":
				results[i] = turn.ToolResult{CallID: c.ID, Content: rs.cfg.Tool(c.Name).CancellationResponse, IsError: true, Files: results[i].Files}
				continue
			case "e":
				pol = config.ResultPolicyEdit
			}
		}
		if pol == config.ResultPolicyEdit {
			resume := q.printer.Suspend()
			out, err := q.prompter.Compose(ctx, ports.ComposeRequest{Purpose: "tool_result", Initial: results[i].Content, InEditor: true, FallbackInline: true})
			resume()
			switch {
			case errors.Is(err, ports.ErrInterrupted):
				q.interrupts.Escalate()
				return true
			case err == nil:
				results[i].Content = out
			}
		}
	}
	return false
}
