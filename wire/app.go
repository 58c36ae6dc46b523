package wire

import (
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/app/pluginhost"
)

// App gathers the use cases one front end needs.
type App struct {
	Workspaces    *app.Workspaces
	Conversations *app.Conversations
	Config        *app.Config
	Trust         *app.Trust
	Query         *app.Query
	Plugins       *pluginhost.Host
	MCP           *app.MCP
	Rewind        *app.Rewind
	Models        *app.Models
}
