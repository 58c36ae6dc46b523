package plugin

import (
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/workspace"
)

// Verdict is what admission decides before a plugin may run (docs/plugins.md).
type Verdict int

// Verdicts.
const (
	VerdictUnknown Verdict = iota
	// VerdictRun: run it (run = "unattended", or an approved binary).
	VerdictRun
	// VerdictAsk: ask the user: yes once, yes and remember, or no.
	VerdictAsk
)

// ConfigKey is the configuration table of the plugin named name.
func ConfigKey(name string) string { return config.JoinPath("plugins", "command", name) }

// DeniedError: the configuration says run = "deny". Where, when set,
// names the configuration that says so (one of several admission read).
type DeniedError struct{ Name, Where string }

func (e *DeniedError) Error() string {
	if e.Where != "" {
		return fmt.Sprintf("plugin %s is not allowed to run: %s.run = \"deny\" in the configuration of %s; set it to \"ask\" or \"unattended\" there to run it", e.Name, ConfigKey(e.Name), e.Where)
	}
	return fmt.Sprintf("plugin %s is not allowed to run: %s.run = \"deny\"; set it to \"ask\" or \"unattended\" to run it", e.Name, ConfigKey(e.Name))
}

// ChecksumError: the binary does not match its pinned checksum.
type ChecksumError struct {
	Name, Path       string
	Expected, Actual string
	// Where, when set, names the configuration that pins it.
	Where string
}

func (e *ChecksumError) Error() string {
	in := ""
	if e.Where != "" {
		in = " in the configuration of " + e.Where
	}
	return fmt.Sprintf("plugin %s (%s) does not match its pinned checksum%s: expected sha256 %s, got %s; if you trust this binary, set %s.checksum.value = %q",
		e.Name, e.Path, in, e.Expected, e.Actual, ConfigKey(e.Name), e.Actual)
}

// ProtocolError: the plugin needs a newer protocol, or declares something
// this host does not support.
type ProtocolError struct {
	Name string
	Msg  string
}

func (e *ProtocolError) Error() string { return fmt.Sprintf("plugin %s %s", e.Name, e.Msg) }

// CheckRunnable refuses a binary before any configuration is read: an
// unusable manifest, a protocol above ProtocolVersion, or a scope this
// host cannot serve.
func CheckRunnable(b Binary) error {
	if b.ManifestError != "" {
		return &ProtocolError{Name: b.Name(), Msg: fmt.Sprintf("cannot run: its manifest %s: %s; fix or remove the manifest", b.Path+ManifestSuffix, b.ManifestError)}
	}
	if b.Manifest == nil {
		return nil
	}
	if v := b.Manifest.ProtocolVersion; v > ProtocolVersion {
		return &ProtocolError{Name: b.Name(), Msg: fmt.Sprintf("needs plugin protocol version %d, and this jp speaks version %d: update jp to run it", v, ProtocolVersion)}
	}
	if b.Manifest.Scope() == workspace.ScopeMulti && b.Manifest.ProtocolVersion < ProtocolVersion {
		// an older host would bootstrap a workspace for it, so
		// multi scope comes with the protocol version that introduced it.
		return &ProtocolError{Name: b.Name(), Msg: fmt.Sprintf(`declares workspace_scope "multi" with protocol_version %d: multi scope needs protocol_version %d; fix its manifest`, b.Manifest.ProtocolVersion, ProtocolVersion)}
	}
	return nil
}

// Trust is what this machine knows of a binary besides the
// configuration: its approvals, bound to its SHA-256 and real path.
type Trust struct {
	// Approved: the user approved this very binary (its SHA-256 at its
	// real path), or jp installed it (its checksum was recorded at
	// install, beside jp's own executable).
	Approved bool
	// Bound: run = "unattended" was granted to this very binary before.
	Bound bool
	// ClaimedFrom, when set, is the real path of another binary (another
	// path or other content) the plugin's name is bound to: this one
	// claims the name, and is asked about as a new plugin.
	ClaimedFrom string
}

// BindTrust is the Trust of the binary b, whose SHA-256 is digest, from
// the approvals recorded for its name: only a record of the same SHA-256
// at the same real path counts for it; any other makes it a claimant.
func BindTrust(b Binary, digest string, recs []Approval) Trust {
	var t Trust
	for _, a := range recs {
		if a.Name != b.Name() {
			continue
		}
		if strings.EqualFold(a.SHA256, digest) && a.Real() == b.Real() {
			t.Bound = true
			t.Approved = t.Approved || a.Via != ViaUnattended
		} else if t.ClaimedFrom == "" {
			t.ClaimedFrom = a.Real()
		}
	}
	if t.Bound {
		t.ClaimedFrom = ""
	}
	return t
}

// Admit applies the configuration to a binary whose SHA-256 is digest, in
// the order: run = "deny" refuses; a pinned checksum must match; an
// approved binary runs; "unattended" runs the binary it is bound to (or
// pinned to by checksum, or, the first time, the one found), and asks
// about another binary claiming the name; "ask" asks.
func Admit(b Binary, pc config.PluginCommand, digest string, t Trust) (Verdict, error) {
	name := b.Name()
	if pc.Run == config.RunPolicyDeny {
		return VerdictUnknown, &DeniedError{Name: name}
	}
	if pc.Checksum != nil && !strings.EqualFold(strings.TrimSpace(pc.Checksum.Value), digest) {
		return VerdictUnknown, &ChecksumError{Name: name, Path: b.Path, Expected: pc.Checksum.Value, Actual: digest}
	}
	if t.Approved {
		return VerdictRun, nil
	}
	if pc.Run == config.RunPolicyUnattended && (pc.Checksum != nil || t.ClaimedFrom == "") {
		return VerdictRun, nil
	}
	return VerdictAsk, nil
}

// NeedsBinding reports whether a run Admit allowed should record the
// binary as the one run = "unattended" is bound to: unattended, not
// approved, not pinned by checksum, and not bound yet.
func NeedsBinding(pc config.PluginCommand, t Trust) bool {
	return pc.Run == config.RunPolicyUnattended && pc.Checksum == nil && !t.Approved && !t.Bound && t.ClaimedFrom == ""
}

// TrustState describes the admission of a binary for jp plugin ls:
// "denied", "checksum mismatch", "unattended", "approved" or
// "ask (not approved)", with " (pinned)" when a checksum pins it.
func TrustState(b Binary, pc config.PluginCommand, digest string, t Trust) string {
	if err := CheckRunnable(b); err != nil {
		return "refused"
	}
	v, err := Admit(b, pc, digest, t)
	var s string
	switch {
	case err != nil && pc.Run == config.RunPolicyDeny:
		return "denied"
	case err != nil:
		return "checksum mismatch"
	case v == VerdictAsk && t.ClaimedFrom != "":
		s = "ask (not the approved binary " + t.ClaimedFrom + ")"
	case pc.Run == config.RunPolicyUnattended:
		s = "unattended"
	case v == VerdictRun:
		s = "approved"
	default:
		s = "ask (not approved)"
	}
	if pc.Checksum != nil {
		s += " (pinned)"
	}
	return s
}
