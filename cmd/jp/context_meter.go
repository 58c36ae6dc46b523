package main

import (
	"bufio"
	"fmt"

	"github.com/jpcli/jp/app"
	jpwire "github.com/jpcli/jp/wire"
)

// writeMeter ends jp conversation show with the context meter: the
// estimated size of the conversation's next request against the window of
// the model it would go to (the one it last used, else
// assistant.model.id). A configuration that does not load leaves the line
// out: show still shows the conversation.
func (rt *Runtime) writeMeter(w *bufio.Writer, a *jpwire.App, model string, historyTokens int) {
	res, err := a.Config.Load(rt.Ctx, rt.configInput())
	if err != nil {
		return
	}
	if model == "" && res.Config.Assistant.Model.ID != "" {
		model, _ = res.Config.ResolveModel(res.Config.Assistant.Model.ID)
	}
	m := app.ContextMeterOf(res.Config, model, historyTokens)
	fmt.Fprintf(w, "Next request: %s (estimated, tools not counted)\n", m)
}
