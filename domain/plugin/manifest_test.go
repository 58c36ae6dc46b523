package plugin

import (
	"errors"
	"strings"
	"testing"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/workspace"
)

func TestParseManifest(t *testing.T) {
	good := `{"name":"titles","version":"0.1.0","description":"List conversation titles","command":["titles"],"protocol_version":1,"unknown_key":true}`
	m, err := ParseManifest([]byte(good))
	if err != nil || m.Name != "titles" || m.Scope() != workspace.ScopeSingle || len(m.Command) != 1 {
		t.Fatalf("ParseManifest = %+v, %v", m, err)
	}
	for _, tt := range []struct{ name, json, msg string }{
		{"no name", `{"version":"1","protocol_version":1}`, "name"},
		{"bad name", `{"name":"My Plugin","version":"1","protocol_version":1}`, "lower-case"},
		{"no version", `{"name":"x","protocol_version":1}`, "version is required"},
		{"zero protocol", `{"name":"x","version":"1","protocol_version":0}`, "protocol_version must be 1 or more"},
		{"protocol keys disagree", `{"name":"x","version":"1","protocol_version":2,"protocol":1}`, "disagree"},
		{"bad scope", `{"name":"x","version":"1","protocol_version":2,"workspace_scope":"all"}`, "workspace_scope"},
		{"flag in command", `{"name":"x","version":"1","protocol_version":1,"command":["-x"]}`, "one word"},
		{"space in command", `{"name":"x","version":"1","protocol_version":1,"command":["a b"]}`, "one word"},
		{"escape in description", "{\"name\":\"x\",\"version\":\"1\",\"protocol_version\":1,\"description\":\"\\u001b[31mred\"}", "control character"},
		{"not json", `name = "x"`, "invalid"},
		{"wrong type", `{"name":"x","version":"1","protocol_version":"2"}`, "protocol_version must be a number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseManifest([]byte(tt.json))
			if !errors.Is(err, ErrBadManifest) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want one containing %q", err, tt.msg)
			}
		})
	}
	// Without protocol_version the plugin speaks protocol 1; the Rust
	// jp's key, protocol, is read the same way.
	for in, want := range map[string]int{
		`{"name":"x","version":"1"}`:                                   1,
		`{"name":"x","version":"1","protocol":2}`:                      2,
		`{"name":"x","version":"1","protocol":1,"protocol_version":1}`: 1,
	} {
		if m, err := ParseManifest([]byte(in)); err != nil || m.ProtocolVersion != want {
			t.Errorf("ParseManifest(%s) = %d, %v; want %d", in, m.ProtocolVersion, err, want)
		}
	}
	if _, err := ParseManifest([]byte(strings.Repeat(" ", maxManifest+1))); err == nil {
		t.Fatal("an oversized manifest must be refused")
	}
}

func bin(p string, m *Manifest) Binary { return Binary{Path: p, Manifest: m} }

func TestRoute(t *testing.T) {
	bins := MarkShadowed([]Binary{
		bin("/data/jp-serve", &Manifest{Name: "serve", Command: []string{"serve"}}),
		bin("/data/jp-web", &Manifest{Name: "web", Command: []string{"serve", "web"}}),
		bin("/bin/jp-conversation-export", nil),
		bin("/bin/jp-serve", nil), // same name as the installed one: shadowed
	})
	if !bins[3].Shadowed || bins[0].Shadowed {
		t.Fatalf("shadowing: %+v", bins)
	}
	for _, tt := range []struct {
		words []string
		want  string
		rest  []string
	}{
		{[]string{"serve"}, "/data/jp-serve", []string{}},
		{[]string{"serve", "web", "--port", "1"}, "/data/jp-web", []string{"--port", "1"}},
		{[]string{"serve", "api"}, "/data/jp-serve", []string{"api"}},
		{[]string{"conversation", "export", "1"}, "/bin/jp-conversation-export", []string{"1"}},
		{[]string{"nothing"}, "", nil},
		{[]string{"conversation"}, "", nil},
	} {
		b, rest, ok := Route(bins, tt.words)
		if ok != (tt.want != "") || b.Path != tt.want || strings.Join(rest, " ") != strings.Join(tt.rest, " ") {
			t.Errorf("Route(%v) = %s %v %v; want %s %v", tt.words, b.Path, rest, ok, tt.want, tt.rest)
		}
	}
	if n := bins[2].Name(); n != "conversation-export" {
		t.Errorf("name from file = %q", n)
	}
}

func TestAdmit(t *testing.T) {
	b := bin("/bin/jp-titles", &Manifest{Name: "titles", ProtocolVersion: 1})
	sum := strings.Repeat("ab", 32)
	pin := func(v string) *config.Checksum {
		return &config.Checksum{Algorithm: config.ChecksumAlgorithmSHA256, Value: v}
	}
	approved := Trust{Approved: true, Bound: true}
	claimed := Trust{ClaimedFrom: "/opt/jp/jp-titles"}
	for _, tt := range []struct {
		name  string
		pc    config.PluginCommand
		trust Trust
		want  Verdict
		err   string
		state string
		bind  bool
	}{
		{"ask, not approved", config.PluginCommand{Run: config.RunPolicyAsk}, Trust{}, VerdictAsk, "", "ask (not approved)", false},
		{"ask, approved", config.PluginCommand{Run: config.RunPolicyAsk}, approved, VerdictRun, "", "approved", false},
		{"ask, bound by unattended only", config.PluginCommand{Run: config.RunPolicyAsk}, Trust{Bound: true}, VerdictAsk, "", "ask (not approved)", false},
		{"unattended, first run binds", config.PluginCommand{Run: config.RunPolicyUnattended}, Trust{}, VerdictRun, "", "unattended", true},
		{"unattended, bound", config.PluginCommand{Run: config.RunPolicyUnattended}, Trust{Bound: true}, VerdictRun, "", "unattended", false},
		{"unattended, another binary claims the name", config.PluginCommand{Run: config.RunPolicyUnattended}, claimed, VerdictAsk, "",
			"ask (not the approved binary /opt/jp/jp-titles)", false},
		{"unattended, claimant pinned by checksum", config.PluginCommand{Run: config.RunPolicyUnattended, Checksum: pin(sum)}, claimed, VerdictRun, "", "unattended (pinned)", false},
		{"deny", config.PluginCommand{Run: config.RunPolicyDeny}, approved, VerdictUnknown, `plugins.command.titles.run = "deny"`, "denied", false},
		{"pinned match", config.PluginCommand{Run: config.RunPolicyUnattended, Checksum: pin(strings.ToUpper(sum))}, Trust{}, VerdictRun, "", "unattended (pinned)", false},
		{"pinned mismatch", config.PluginCommand{Run: config.RunPolicyUnattended, Checksum: pin("00")}, approved, VerdictUnknown,
			"expected sha256 00, got " + sum + "; if you trust this binary, set plugins.command.titles.checksum.value", "checksum mismatch", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Admit(b, tt.pc, sum, tt.trust)
			if v != tt.want || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("Admit = %v, %v; want %v, %q", v, err, tt.want, tt.err)
			}
			if s := TrustState(b, tt.pc, sum, tt.trust); s != tt.state {
				t.Fatalf("TrustState = %q, want %q", s, tt.state)
			}
			if got := NeedsBinding(tt.pc, tt.trust); got != tt.bind {
				t.Fatalf("NeedsBinding = %v, want %v", got, tt.bind)
			}
		})
	}
}

// TestBindTrust: an approval counts only for the binary it was given to,
// the same SHA-256 at the same real path; any other binary with the name
// is a claimant.
func TestBindTrust(t *testing.T) {
	sum, other := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	real := Binary{Path: "/usr/bin/jp-serve-web", RealPath: "/opt/jp/jp-serve-web", Manifest: &Manifest{Name: "serve-web"}}
	fake := Binary{Path: "/home/u/bin/jp-serve-web", Manifest: &Manifest{Name: "serve-web"}}
	rec := func(path, digest, via string) Approval {
		return Approval{SHA256: digest, Path: "/usr/bin/jp-serve-web", RealPath: path, Name: "serve-web", Via: via}
	}
	for _, tt := range []struct {
		name   string
		b      Binary
		digest string
		recs   []Approval
		want   Trust
	}{
		{"none", real, sum, nil, Trust{}},
		{"approved", real, sum, []Approval{rec("/opt/jp/jp-serve-web", sum, "")}, Trust{Approved: true, Bound: true}},
		{"bound by unattended", real, sum, []Approval{rec("/opt/jp/jp-serve-web", sum, ViaUnattended)}, Trust{Bound: true}},
		{"changed binary", real, other, []Approval{rec("/opt/jp/jp-serve-web", sum, "")}, Trust{ClaimedFrom: "/opt/jp/jp-serve-web"}},
		{"same bytes elsewhere", fake, sum, []Approval{rec("/opt/jp/jp-serve-web", sum, "")}, Trust{ClaimedFrom: "/opt/jp/jp-serve-web"}},
		{"another name's approval", fake, sum, []Approval{{SHA256: sum, RealPath: "/x/jp-titles", Name: "titles"}}, Trust{}},
		{"one of two approved", real, sum, []Approval{rec("/old/jp-serve-web", other, ""), rec("/opt/jp/jp-serve-web", sum, "")}, Trust{Approved: true, Bound: true}},
	} {
		if got := BindTrust(tt.b, tt.digest, tt.recs); got != tt.want {
			t.Errorf("%s: BindTrust = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestCheckRunnable(t *testing.T) {
	for _, tt := range []struct {
		name string
		b    Binary
		msg  string
	}{
		{"fine", bin("/p/jp-x", &Manifest{Name: "x", ProtocolVersion: 2}), ""},
		{"no manifest", bin("/p/jp-x", nil), ""},
		{"too new", bin("/p/jp-x", &Manifest{Name: "x", ProtocolVersion: 3}), "needs plugin protocol version 3, and this jp speaks version 2"},
		{"multi", bin("/p/jp-x", &Manifest{Name: "x", ProtocolVersion: 2, WorkspaceScope: "multi"}), ""},
		{"multi on protocol 1", bin("/p/jp-x", &Manifest{Name: "x", ProtocolVersion: 1, WorkspaceScope: "multi"}), `multi scope needs protocol_version 2`},
		{"broken manifest", Binary{Path: "/p/jp-x", ManifestError: "invalid plugin manifest: version is required"}, "/p/jp-x.manifest.json"},
	} {
		err := CheckRunnable(tt.b)
		if (err == nil) != (tt.msg == "") || (err != nil && !strings.Contains(err.Error(), tt.msg)) {
			t.Errorf("%s: CheckRunnable = %v, want %q", tt.name, err, tt.msg)
		}
	}
}
