package app_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// Discovery fills in a binary without a manifest file from its approval,
// looks nothing up for binaries that have one, lists a binary whose
// digest or approval cannot be read as it is, and marks later binaries
// with an earlier one's name as shadowed: by the approval's name too.
func TestPluginsDiscoverTakesManifestsFromApprovals(t *testing.T) {
	t.Parallel()
	fromFile := &plugin.Manifest{Name: "a", Description: "from its file"}
	bins := []plugin.Binary{
		{Path: "/inst/jp-a", Manifest: fromFile, ManifestFrom: "file"},
		{Path: "/bin/jp-b"},                            // approved with a manifest
		{Path: "/bin/jp-c"},                            // unreadable
		{Path: "/bin/jp-d"},                            // never approved
		{Path: "/bin/jp-e"},                            // approval store broken
		{Path: "/bin/jp-f"},                            // approved as "a"
		{Path: "/bin/jp-g", ManifestError: "bad json"}, // refused when run
	}
	digests := map[string]string{"/bin/jp-b": "db", "/bin/jp-d": "dd", "/bin/jp-e": "de", "/bin/jp-f": "df"}
	approvals := map[string]plugin.Approval{
		"db": {SHA256: "db", Manifest: &plugin.Manifest{Name: "b", Description: "from its approval"}},
		"df": {SHA256: "df", Manifest: &plugin.Manifest{Name: "a"}},
	}
	catalog := &mocks.PluginCatalogMock{
		DiscoverFunc: func(_ context.Context, searchPath []string) ([]plugin.Binary, error) {
			if !slices.Equal(searchPath, []string{"/bin"}) {
				t.Errorf("search path = %q", searchPath)
			}
			return slices.Clone(bins), nil
		},
		DigestFunc: func(_ context.Context, path string) (string, error) {
			if d, ok := digests[path]; ok {
				return d, nil
			}
			return "", fmt.Errorf("read %s: permission denied", path)
		},
		ApprovalFunc: func(_ context.Context, digest string) (plugin.Approval, error) {
			if digest == "de" {
				return plugin.Approval{}, errors.New("approvals file unreadable")
			}
			if a, ok := approvals[digest]; ok {
				return a, nil
			}
			return plugin.Approval{}, fmt.Errorf("approval %s: %w", digest, ports.ErrNotFound)
		},
	}
	got, err := app.NewPlugins(catalog).Discover(context.Background(), []string{"/bin"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(bins) {
		t.Fatalf("got %d binaries, want %d: %+v", len(got), len(bins), got)
	}
	if got[0].Manifest != fromFile || got[0].ManifestFrom != "file" || got[0].Shadowed {
		t.Errorf("jp-a = %+v", got[0])
	}
	if b := got[1]; b.Manifest == nil || b.Manifest.Description != "from its approval" || b.ManifestFrom != "approval" {
		t.Errorf("jp-b = %+v", b)
	}
	for _, i := range []int{2, 3, 4} {
		if b := got[i]; b.Manifest != nil || b.ManifestFrom != "" || b.Shadowed {
			t.Errorf("%s = %+v, want it listed as found", b.Path, b)
		}
	}
	if f := got[5]; f.Name() != "a" || f.ManifestFrom != "approval" || !f.Shadowed {
		t.Errorf("jp-f = %+v, want shadowed by jp-a under its approved name", f)
	}
	if g := got[6]; g.ManifestError != "bad json" || g.Manifest != nil {
		t.Errorf("jp-g = %+v", g)
	}
	// Only binaries without a manifest (file or error) are looked up.
	var digested []string
	for _, c := range catalog.DigestCalls() {
		digested = append(digested, c.Path)
	}
	if want := []string{"/bin/jp-b", "/bin/jp-c", "/bin/jp-d", "/bin/jp-e", "/bin/jp-f"}; !slices.Equal(digested, want) {
		t.Errorf("digested %q, want %q", digested, want)
	}
	var asked []string
	for _, c := range catalog.ApprovalCalls() {
		asked = append(asked, c.Digest)
	}
	if want := []string{"db", "dd", "de", "df"}; !slices.Equal(asked, want) {
		t.Errorf("approvals asked for %q, want %q", asked, want)
	}
	if n := len(catalog.SaveApprovalCalls()); n != 0 {
		t.Errorf("discovery saved %d approvals; it only reads", n)
	}
}

func TestPluginsDiscoverReportsACatalogFailure(t *testing.T) {
	t.Parallel()
	broken := errors.New("install directory unreadable")
	catalog := &mocks.PluginCatalogMock{DiscoverFunc: func(context.Context, []string) ([]plugin.Binary, error) { return nil, broken }}
	if _, err := app.NewPlugins(catalog).Discover(context.Background(), nil); !errors.Is(err, broken) {
		t.Fatalf("err = %v, want the catalog's", err)
	}
	if _, _, ok, err := app.NewPlugins(catalog).Route(context.Background(), []string{"x"}, nil); ok || !errors.Is(err, broken) {
		t.Fatalf("Route ok=%v err=%v, want the catalog's error", ok, err)
	}
}
