package config

// Snapshots is the [conversation.tools.snapshots] table: what jp keeps
// of the files its tools change, for jp conversation rewind.
type Snapshots struct {
	MaxMB int `toml:"max_mb" doc:"Per conversation, the most megabytes of earlier file contents kept for jp conversation rewind (the oldest turns' are dropped first, with a line saying so); 0 keeps no bound; a negative value keeps none (rewind cannot restore files)."`
}

// MaxBytes is the bound in bytes (0: none).
func (s Snapshots) MaxBytes() int64 {
	if s.MaxMB <= 0 {
		return 0
	}
	return int64(s.MaxMB) << 20
}

// Off reports whether no snapshot is kept.
func (s Snapshots) Off() bool { return s.MaxMB < 0 }

// DefaultSnapshotsMB is conversation.tools.snapshots.max_mb's default.
const DefaultSnapshotsMB = 64

// GitCommit is conversation.tools.git_commit: whether jp commits the
// files its tools changed.
type GitCommit int

// Git commit policies.
const (
	GitCommitUnknown GitCommit = iota
	GitCommitOff               // commit nothing
	GitCommitTurn              // commit at the end of each turn
)

var gitCommitNames = enumNames{"unknown", "off", "turn"}

// String returns the configuration spelling.
func (g GitCommit) String() string { return gitCommitNames.name(int(g)) }

// EnumValues implements Enum.
func (g GitCommit) EnumValues() []any { return gitCommitNames.values() }

// ConfigValue implements Enum.
func (g GitCommit) ConfigValue() any { return gitCommitNames.configValue(int(g)) }

// SetConfigValue implements EnumSetter.
func (g *GitCommit) SetConfigValue(v any) error { return setEnum(g, v, gitCommitNames) }
