package app_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/memstore"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/mocks"
	"github.com/jpcli/jp/ports"
)

// modelLister is a ModelLister mock over fixed listings: demo and openai
// are listable, anthropic is known but has no key, broken fails.
func modelLister(listable ...string) *mocks.ModelListerMock {
	listings := map[string][]string{"demo": {"echo"}, "openai": {"gpt-4o", "gpt-5"}}
	return &mocks.ModelListerMock{
		ListModelsFunc: func(_ context.Context, _ config.Config, p string) ([]string, error) {
			if p == "broken" {
				return nil, errors.New("broken: connection failed:\nrefused")
			}
			return listings[p], nil
		},
		ListableFunc:    func(config.Config) []string { return listable },
		ProvidersFunc:   func(config.Config) []string { return []string{"anthropic", "broken", "demo", "openai"} },
		HowToEnableFunc: func(_ config.Config, p string) string { return "set " + p + "_KEY" },
	}
}

func newModels(t *testing.T, lister ports.ModelLister) (*app.Models, app.ConfigInput) {
	t.Helper()
	store := memstore.New(clockFrom(time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)))
	ws := app.NewWorkspaces(store, store)
	cfg := config.Default()
	cfg.Assistant.Model.ID = "openai/gpt-5"
	cfg.Assistant.Model.Aliases = map[string]string{"smart": "openai/gpt-5", "best": "smart"}
	loader := &mocks.ConfigLoaderMock{LoadFunc: func(context.Context, ports.ConfigSource) (config.Resolved, error) {
		return config.Resolved{Config: cfg}, nil
	}}
	return app.NewModels(ws, loader, lister), app.ConfigInput{LaunchDir: "/nowhere"}
}

func modelIDs(list app.ModelList) []string {
	var ids []string
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	return ids
}

func TestModelsListAllListable(t *testing.T) {
	lister := modelLister("demo", "openai", "broken")
	m, in := newModels(t, lister)
	list, err := m.List(context.Background(), app.ModelsInput{Config: in})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := modelIDs(list), []string{"demo/echo", "openai/gpt-4o", "openai/gpt-5"}; !slices.Equal(got, want) {
		t.Fatalf("models = %v, want %v", got, want)
	}
	if al := list.Models[2].Aliases; !slices.Equal(al, []string{"best", "smart"}) {
		t.Errorf("openai/gpt-5's aliases = %v, want both, in order", al)
	}
	if list.Aliases["best"] != "openai/gpt-5" || !slices.Equal(list.AliasOrder, []string{"best", "smart"}) {
		t.Errorf("aliases = %v in order %v", list.Aliases, list.AliasOrder)
	}
	if len(list.Errors) != 1 || list.Errors[0].Provider != "broken" || list.Errors[0].Error != "broken: connection failed: refused" {
		t.Errorf("errors = %+v, want broken's on one line", list.Errors)
	}
	if len(list.Others) != 1 || list.Others[0] != (app.ProviderHint{Provider: "anthropic", Enable: "set anthropic_KEY"}) {
		t.Errorf("others = %+v, want anthropic with its hint", list.Others)
	}
	if n := len(lister.ListModelsCalls()); n != 3 {
		t.Errorf("asked %d providers, want the 3 listable", n)
	}
}

func TestModelsListOneProviderOrModel(t *testing.T) {
	lister := modelLister("demo")
	m, in := newModels(t, lister)
	ctx := context.Background()

	list, err := m.List(ctx, app.ModelsInput{Config: in, Provider: "openai"})
	if err != nil || !slices.Equal(modelIDs(list), []string{"openai/gpt-4o", "openai/gpt-5"}) || len(list.Others) != 0 {
		t.Fatalf("openai: %+v, %v", list, err)
	}
	list, err = m.List(ctx, app.ModelsInput{Config: in, Provider: "best"})
	if err != nil || !slices.Equal(modelIDs(list), []string{"openai/gpt-5"}) {
		t.Fatalf("an alias resolves to its model: %+v, %v", list, err)
	}
	for _, c := range []struct{ provider, msg string }{
		{"openai/gpt-4p", "unknown model openai/gpt-4p: did you mean openai/gpt-4o?"},
		{"openai/llama", "unknown model openai/llama: jp model ls openai lists its models"},
		{"broken", "broken: connection failed: refused"},
	} {
		_, err := m.List(ctx, app.ModelsInput{Config: in, Provider: c.provider})
		var ue *app.UserError
		if !errors.As(err, &ue) || ue.Msg != c.msg {
			t.Errorf("%s: err = %v, want the user error %q", c.provider, err, c.msg)
		}
	}
	for _, call := range lister.ListModelsCalls() {
		if call.Provider == "demo" {
			t.Errorf("a named provider's listing asked demo too")
		}
	}
}

func TestModelsCompletionsAskNoProvider(t *testing.T) {
	lister := modelLister("demo", "openai")
	m, in := newModels(t, lister)
	got := m.Completions(context.Background(), in)
	want := []string{"best", "demo/", "demo/echo", "openai/", "openai/gpt-5", "smart"}
	if !slices.Equal(got, want) {
		t.Errorf("completions = %v, want %v", got, want)
	}
	if n := len(lister.ListModelsCalls()); n != 0 {
		t.Errorf("completion asked %d providers for their models", n)
	}
}
