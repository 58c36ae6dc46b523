package app

// App gathers the use cases one front end needs. wire/ builds it.
type App struct {
	Workspaces    *Workspaces
	Conversations *Conversations
	Config        *Config
	Query         *Query
	Plugins       *PluginHost
	MCP           *MCP
}
