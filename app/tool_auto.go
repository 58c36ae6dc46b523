package app

import (
	"fmt"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/run"
	"github.com/jpcli/jp/ports"
)

// autoCovers reports whether auto mode m runs a tool of kind k without
// asking: read runs read-only tools, edit also file edits inside the
// checkout, all also commands in jp's sandbox. A command outside the
// sandbox, and any other tool (an MCP tool), is never run by a mode.
func autoCovers(m config.AutoMode, k ports.ToolKind) bool {
	switch k {
	case ports.ToolKindRead:
		return m >= config.AutoModeRead
	case ports.ToolKindEdit:
		return m >= config.AutoModeEdit
	case ports.ToolKindSandboxedCommand:
		return m >= config.AutoModeAll
	}
	return false
}

// toolKind is what kind of tool name is, as the turn's tool server says
// (ToolKindOther when it cannot say).
func toolKind(ts *turnState, name string) ports.ToolKind {
	if c, ok := ts.tools.(ports.ToolClassifier); ok {
		return c.ToolKind(name)
	}
	return ports.ToolKindOther
}

// autoDecision applies conversation.tools.auto (jp q --auto) to a call
// that would be asked: it runs when the mode covers the tool's kind and
// the tool's own run key is "ask" (or inherited). "ask!", "edit", "skip",
// "deny" and "unattended" are the tool's own word and stand. A command
// outside the sandbox is asked, with one line the first time saying why.
func (q *Query) autoDecision(rs *runState, ts *turnState, name string, tc config.Tool, d run.Decision) run.Decision {
	mode := rs.cfg.Conversation.Tools.Auto
	if d != run.DecisionAsk || mode <= config.AutoModeOff || tc.Run != config.RunPolicyAsk {
		return d
	}
	k := toolKind(ts, name)
	if autoCovers(mode, k) {
		return run.DecisionRun
	}
	if k == ports.ToolKindCommand && mode >= config.AutoModeAll {
		q.chromeLine(rs, fmt.Sprintf("jp: %s runs outside jp's sandbox here, so conversation.tools.auto = %q does not run it without asking (see docs/tools.md, Sandbox).", name, mode))
	}
	return d
}
