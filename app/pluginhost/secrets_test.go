package pluginhost_test

import (
	"strings"
	"testing"
)

// TestPluginInitRedactsSecrets: the configuration in init, and what
// read_config answers, carry header values, env values and
// client_secret as "<redacted>", unless plugins.command.<name>.secrets
// is true.
func TestPluginInitRedactsSecrets(t *testing.T) {
	secrets := []string{"hdr-s3cret-value", "env-s3cret-value", "oauth-s3cret-value"}
	overrides := []string{
		`plugins.command.t.run="unattended"`,
		`mcp.servers.gh.url="https://mcp.example.test"`,
		`mcp.servers.gh.headers={Authorization="Bearer hdr-s3cret-value"}`,
		`mcp.servers.gh.env={GH_TOKEN="env-s3cret-value"}`,
		`mcp.servers.gh.oauth.client_secret="oauth-s3cret-value"`,
	}
	steps := []step{ready, send(`{"type":"read_config","path":"mcp.servers.gh"}`), read(1), exit0}
	t.Run("redacted", func(t *testing.T) {
		h := newHost(t)
		if err := h.host.Run(t.Context(), h.askInput(overrides, steps...)); err != nil {
			t.Fatal(err)
		}
		got := h.transcript()
		if len(got) != 2 {
			t.Fatalf("the plugin got %v", got)
		}
		for _, line := range got {
			for _, s := range secrets {
				if strings.Contains(line, s) {
					t.Errorf("the plugin got the secret %q: %s", s, line)
				}
			}
			if !strings.Contains(line, `"Authorization":"\u003credacted\u003e"`) && !strings.Contains(line, `"Authorization":"<redacted>"`) {
				t.Errorf("the header is not shown redacted: %s", line)
			}
			if !strings.Contains(line, `"url":"https://mcp.example.test"`) {
				t.Errorf("a value that is no secret is missing: %s", line)
			}
		}
	})
	t.Run("approved for secrets", func(t *testing.T) {
		h := newHost(t)
		if err := h.host.Run(t.Context(), h.askInput(append(overrides, `plugins.command.t.secrets=true`), steps...)); err != nil {
			t.Fatal(err)
		}
		for _, line := range h.transcript() {
			for _, s := range secrets {
				if !strings.Contains(line, s) {
					t.Errorf("a plugin approved for secrets lacks %q: %s", s, line)
				}
			}
		}
	})
}
