package sandbox

import "github.com/jpcli/jp/domain/config"

// LevelOf is the sandbox level of a tool's configuration (defaults
// merged in, config.Config.Tool).
func LevelOf(t config.Tool) Level {
	switch t.Sandbox {
	case config.SandboxLevelOff:
		return Off
	case config.SandboxLevelReadOnly:
		return ReadOnly
	}
	return WorkspaceWrite
}

// SpecOf is the sandbox spec of tool name in cfg, for a command run in
// checkout with environment env.
func SpecOf(cfg config.Config, name, checkout string, env []string) Spec {
	t := cfg.Tool(name)
	s := Spec{
		Level: LevelOf(t), Checkout: checkout, Env: env,
		DenyRead: cfg.Conversation.Tools.Defaults.DenyRead,
		Network:  t.Access.Network(),
	}
	for _, r := range t.Access.FS {
		switch {
		case r.Writes():
			s.Write = append(s.Write, r.Path)
		case r.Reads():
			s.Read = append(s.Read, r.Path)
		}
	}
	return s
}
