package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jpcli/jp/domain/workspace"
)

// ManifestSuffix is appended to a plugin binary's file name to name its
// manifest: jp-titles.manifest.json beside jp-titles.
const ManifestSuffix = ".manifest.json"

// ShippedList is the file that make build and make install write beside
// jp's executable: the SHA-256 of each plugin they installed with it, in
// sha256sum's format ("<hex>  jp-titles" a line). jp runs a binary listed
// there, in that directory, with that checksum, without asking: it is
// jp's own.
const ShippedList = "jp-plugins.sha256"

// BinaryPrefix marks an executable as a command plugin.
const BinaryPrefix = "jp-"

// maxManifest bounds a manifest file.
const maxManifest = 64 << 10

// ErrBadManifest is wrapped by every manifest validation error.
var ErrBadManifest = errors.New("invalid plugin manifest")

// Manifest is what the host knows about a plugin without running it: the
// JSON file <binary>.manifest.json, and the fields of the plugin's
// describe answer.
type Manifest struct {
	// Name keys the plugin's configuration (plugins.command.<name>) and its
	// approval: lower-case letters, digits and '-'.
	Name string `json:"name"`
	// Version is the plugin's own version.
	Version string `json:"version"`
	// Description is one line for jp -h and jp plugin ls.
	Description string `json:"description"`
	// Command is the command path it handles: ["serve", "web"] answers
	// jp serve web. Empty: the binary name minus "jp-", split on '-'.
	Command []string `json:"command,omitempty"`
	// WorkspaceScope is "single" (the default) or "multi" (docs/plugins.md).
	WorkspaceScope string `json:"workspace_scope,omitempty"`
	// ProtocolVersion is the lowest protocol version the plugin needs.
	// Absent, it is 1 (the base protocol); "protocol", the Rust jp's
	// name for it, is read too.
	ProtocolVersion int `json:"protocol_version"`
	// Help is shown by jp <command> -h.
	Help       string `json:"help,omitempty"`
	Author     string `json:"author,omitempty"`
	Repository string `json:"repository,omitempty"`
}

// UnmarshalJSON reads a manifest or describe answer: protocol_version,
// else protocol (the Rust jp's key), else 1, the base protocol a plugin
// that says nothing speaks. Both keys with different values are an error.
func (m *Manifest) UnmarshalJSON(b []byte) error {
	type plain Manifest
	var aux struct {
		plain
		ProtocolVersion *int `json:"protocol_version"`
		Protocol        *int `json:"protocol"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*m = Manifest(aux.plain)
	switch pv, p := aux.ProtocolVersion, aux.Protocol; {
	case pv != nil && p != nil && *pv != *p:
		return fmt.Errorf("protocol_version %d and protocol %d disagree: keep one", *pv, *p)
	case pv != nil:
		m.ProtocolVersion = *pv
	case p != nil:
		m.ProtocolVersion = *p
	default:
		m.ProtocolVersion = 1
	}
	return nil
}

// ParseManifest reads and validates a manifest file's content. Keys it
// does not know are ignored, so newer manifests stay readable.
func ParseManifest(b []byte) (Manifest, error) {
	if len(b) > maxManifest {
		return Manifest{}, fmt.Errorf("%w: larger than %d KiB", ErrBadManifest, maxManifest>>10)
	}
	if !utf8.Valid(b) {
		return Manifest{}, fmt.Errorf("%w: not UTF-8", ErrBadManifest)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("%w: %v", ErrBadManifest, FieldError(err))
	}
	return m, m.Validate()
}

// Validate checks the manifest's fields.
func (m Manifest) Validate() error {
	if !validName(m.Name) {
		return fmt.Errorf("%w: name %q must be lower-case letters, digits and '-'", ErrBadManifest, m.Name)
	}
	if strings.TrimSpace(m.Version) == "" {
		return fmt.Errorf("%w: version is required", ErrBadManifest)
	}
	if m.ProtocolVersion < 1 {
		return fmt.Errorf("%w: protocol_version must be 1 or more (the lowest protocol version the plugin needs; this jp speaks %d), not %d", ErrBadManifest, ProtocolVersion, m.ProtocolVersion)
	}
	if _, err := workspace.ParseScope(m.WorkspaceScope); err != nil {
		return fmt.Errorf("%w: %v", ErrBadManifest, err)
	}
	for i, w := range m.Command {
		if w == "" || strings.HasPrefix(w, "-") || strings.IndexFunc(w, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
			return fmt.Errorf("%w: command[%d] %q must be one word, not starting with '-'", ErrBadManifest, i, w)
		}
	}
	for field, s := range map[string]string{"version": m.Version, "description": m.Description, "author": m.Author, "repository": m.Repository} {
		if strings.IndexFunc(s, unicode.IsControl) >= 0 {
			return fmt.Errorf("%w: %s holds a control character", ErrBadManifest, field)
		}
	}
	if strings.IndexFunc(m.Help, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) >= 0 {
		return fmt.Errorf("%w: help holds a control character", ErrBadManifest)
	}
	return nil
}

// Scope returns the declared workspace scope (single when unset).
func (m Manifest) Scope() workspace.Scope {
	s, err := workspace.ParseScope(m.WorkspaceScope)
	if err != nil {
		return workspace.ScopeUnknown
	}
	return s
}

func validName(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// Source says where a plugin binary was found.
type Source int

// Binary sources, in the order they are searched.
const (
	SourceUnknown Source = iota
	// SourceInstalled: <data>/plugins/command/.
	SourceInstalled
	// SourcePath: a directory of $PATH.
	SourcePath
)

// String names the source for listings.
func (s Source) String() string {
	switch s {
	case SourceInstalled:
		return "installed"
	case SourcePath:
		return "path"
	}
	return "unknown"
}

// Binary is a discovered plugin executable.
type Binary struct {
	// Path is the executable's absolute path.
	Path string `json:"path"`
	// RealPath is Path with its symbolic links resolved: what an approval
	// binds to ("" when unknown: Path is used).
	RealPath string `json:"-"`
	// Source is where it was found.
	Source Source `json:"-"`
	// Manifest is the manifest file's content, or the fields recorded in
	// the binary's approval; nil when there is neither.
	Manifest *Manifest `json:"manifest,omitempty"`
	// ManifestFrom is "file", "approval" or "".
	ManifestFrom string `json:"manifest_from,omitempty"`
	// ManifestError says why a manifest file beside the binary could not
	// be used; such a plugin is listed but refused when run.
	ManifestError string `json:"manifest_error,omitempty"`
	// Shadowed is set on a binary whose name an earlier one (install
	// directory first, then $PATH order) already has; it is never run.
	Shadowed bool `json:"shadowed,omitempty"`
}

// FileName is the executable's base name.
func (b Binary) FileName() string { return path.Base(b.Path) }

// Name is the manifest's name, else the file name minus "jp-".
func (b Binary) Name() string {
	if b.Manifest != nil {
		return b.Manifest.Name
	}
	return strings.TrimPrefix(b.FileName(), BinaryPrefix)
}

// Command is the command path the binary answers: the manifest's command,
// else the file name minus "jp-" split on '-'.
func (b Binary) Command() []string {
	if b.Manifest != nil && len(b.Manifest.Command) > 0 {
		return b.Manifest.Command
	}
	return strings.Split(strings.TrimPrefix(b.FileName(), BinaryPrefix), "-")
}

// Description is the manifest's description, "" without one.
func (b Binary) Description() string {
	if b.Manifest == nil {
		return ""
	}
	return b.Manifest.Description
}

// MarkShadowed sets Shadowed on every binary whose name an earlier one
// already has, and returns bins.
func MarkShadowed(bins []Binary) []Binary {
	seen := map[string]bool{}
	for i := range bins {
		n := bins[i].Name()
		bins[i].Shadowed = seen[n]
		seen[n] = true
	}
	return bins
}

// Route picks the plugin for the words after jp: the longest command path
// that words start with, among binaries that are not shadowed; the first
// in order wins a tie. rest are the words after the path.
func Route(bins []Binary, words []string) (Binary, []string, bool) {
	best, bestLen := -1, 0
	for i, b := range bins {
		if b.Shadowed {
			continue
		}
		cmd := b.Command()
		if len(cmd) > len(words) || len(cmd) <= bestLen {
			continue
		}
		match := true
		for j, w := range cmd {
			if words[j] != w {
				match = false
				break
			}
		}
		if match {
			best, bestLen = i, len(cmd)
		}
	}
	if best < 0 {
		return Binary{}, nil, false
	}
	return bins[best], words[bestLen:], true
}

// Approval records that the user approved a binary ("yes, remember"), or
// which binary run = "unattended" was first granted to:
// <data>/plugins/approvals/<sha256>.json. It binds the plugin's name to
// that binary: its SHA-256 at its real path.
type Approval struct {
	SHA256 string `json:"sha256"`
	Path   string `json:"path"`
	// RealPath is Path with its symbolic links resolved ("" in records of
	// older versions: Path's resolution is used).
	RealPath   string    `json:"real_path,omitempty"`
	Name       string    `json:"name"`
	ApprovedAt time.Time `json:"approved_at"`
	// Via is ViaUnattended when the record only binds run = "unattended"
	// to this binary (the user was not asked); "" for an approval the user
	// gave, which also lets the binary run under run = "ask".
	Via string `json:"via,omitempty"`
	// Manifest holds the manifest fields at approval: the manifest file's,
	// or the plugin's describe answer when it has no manifest file.
	Manifest *Manifest `json:"manifest,omitempty"`
}

// ViaUnattended marks an Approval recorded when run = "unattended" first
// ran the binary.
const ViaUnattended = "unattended"

// Real is the real path the approval binds to.
func (a Approval) Real() string {
	if a.RealPath != "" {
		return a.RealPath
	}
	return a.Path
}

// Real is the binary's real path: RealPath, else Path.
func (b Binary) Real() string {
	if b.RealPath != "" {
		return b.RealPath
	}
	return b.Path
}
