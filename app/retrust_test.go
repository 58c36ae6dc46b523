package app_test

import (
	"context"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// After [w] writes run = "unattended" into a trusted checkout, jp trusts
// the checkout again with exactly that key added, and nothing else: a key
// that changed meanwhile (a .jp.toml written during the run, a git pull)
// leaves the checkout untrusted for the next run to ask.
func TestAlwaysForWorkspaceRetrustsOnlyWhatItWrote(t *testing.T) {
	begin := []config.HeldKey{{Key: "mcp.servers.x", Value: map[string]any{"command": []any{"srv"}}}}
	for _, tc := range []struct {
		name  string
		after []config.HeldKey
		trust bool
	}{
		{"only the written key", append(begin[:1:1], config.UnattendedTool("fs_read")), true},
		{"another key too", append(begin[:1:1], config.UnattendedTool("fs_read"), config.HeldKey{Key: "editor", Value: "evil"}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loads := 0
			record := &mocks.WorkspaceTrustMock{TrustFunc: func(context.Context, string, string) error { return nil }}
			var f *fixture
			f = newFixtureWith(t, func(d *app.QueryDeps) {
				d.Trust = record
				d.Config = &mocks.ConfigLoaderMock{LoadFunc: func(context.Context, ports.ConfigSource) (config.Resolved, error) {
					loads++
					held := begin
					if loads > 1 {
						held = tc.after
					}
					return config.Resolved{Config: f.cfg, Trust: config.TrustReview{Root: "/proj", Held: held, Hash: config.TrustHash(held), Trusted: true}}, nil
				}}
			}, resp{events: []llm.Event{toolCall("c1")}}, resp{events: []llm.Event{text("ok")}})
			f.answers = []string{"w"}
			if _, _, err := f.run(t, app.QueryInput{Message: "x", HasMessage: true}); err != nil {
				t.Fatal(err)
			}
			calls := record.TrustCalls()
			if tc.trust != (len(calls) == 1) {
				t.Fatalf("trust calls = %+v, want trusted: %v", calls, tc.trust)
			}
			if tc.trust && calls[0].Hash != config.TrustHash(tc.after) {
				t.Errorf("trusted hash %s, want %s", calls[0].Hash, config.TrustHash(tc.after))
			}
		})
	}
}
