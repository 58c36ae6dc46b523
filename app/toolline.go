package app

import (
	"context"

	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/toolview"
	"github.com/jpcli/jp/ports"
)

// toolCallLine is how a streamed tool call is shown: one line
// (toolview.Line) with the lines a write will add and remove, or with its
// arguments when style.tool_call.arguments is set or jp runs with -v.
func (q *Query) toolCallLine(ctx context.Context, rs *runState, ts *turnState, call llm.ToolCall) string {
	diff := ""
	if p, ok := q.preview(ctx, ts, call); ok && p.Error == "" {
		diff = p.Diff
	}
	return toolview.Line(call.Name, call.Arguments, diff, rs.toolArgs)
}

// markDiffShown records that a permission prompt showed call id's diff,
// so that its result does not show it again.
func (rs *runState) markDiffShown(id, diff string) {
	if diff == "" {
		return
	}
	if rs.diffShown == nil {
		rs.diffShown = map[string]bool{}
	}
	rs.diffShown[id] = true
}

// cachedPreview is a call's preview, planned once for its line and its
// permission prompt; new arguments ([e]) plan it again.
type cachedPreview struct {
	args string
	p    ports.ToolPreview
	ok   bool
}

func (ts *turnState) cachedPreview(c llm.ToolCall) (ports.ToolPreview, bool, bool) {
	cp, hit := ts.previews[c.ID]
	if !hit || cp.args != string(c.Arguments) {
		return ports.ToolPreview{}, false, false
	}
	return cp.p, cp.ok, true
}

func (ts *turnState) cachePreview(c llm.ToolCall, p ports.ToolPreview, ok bool) {
	if ts.previews == nil {
		ts.previews = map[string]cachedPreview{}
	}
	ts.previews[c.ID] = cachedPreview{args: string(c.Arguments), p: p, ok: ok}
}
