package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/internal/fuzzy"
	"github.com/jpcli/jp/ports"
)

// Models lists the models of the configured providers: jp model ls, the
// model completions of the shell, and the "did you mean" of an unknown
// model.
type Models struct {
	ws     *Workspaces
	loader ports.ConfigLoader
	lister ports.ModelLister
}

// NewModels builds the use case.
func NewModels(ws *Workspaces, loader ports.ConfigLoader, lister ports.ModelLister) *Models {
	return &Models{ws: ws, loader: loader, lister: lister}
}

// ModelsInput is what jp model ls was asked.
type ModelsInput struct {
	Config ConfigInput
	// Provider, when set, lists only this provider's models; a
	// PROVIDER/MODEL (or an alias of one) checks that the model exists.
	Provider string
}

// ListedModel is one model of a listing.
type ListedModel struct {
	ID       string
	Provider string
	Aliases  []string // the aliases naming it, in configuration order
}

// ProviderFailure is a provider whose listing failed, with the one-line
// error.
type ProviderFailure struct {
	Provider string
	Error    string
}

// ProviderHint is a provider not listed, with what enables it.
type ProviderHint struct {
	Provider string
	Enable   string
}

// ModelList is a listing.
type ModelList struct {
	Models []ListedModel
	// Aliases maps each alias to the model it names; AliasOrder is the
	// configuration's order of them.
	Aliases    map[string]string
	AliasOrder []string
	// Errors are the providers whose listing failed (only when no
	// provider was named: a named one's failure is the error).
	Errors []ProviderFailure
	// Others are the providers not listed (only when none was named).
	Others []ProviderHint
}

// List lists the models of the listable providers, or of the one named.
func (m *Models) List(ctx context.Context, in ModelsInput) (ModelList, error) {
	res, _, err := resolveConfig(ctx, m.ws, m.loader, in.Config)
	if err != nil {
		return ModelList{}, err
	}
	cfg := res.Config
	list, want := m.lister.Listable(cfg), ""
	if in.Provider != "" {
		name, err := cfg.ResolveModel(in.Provider)
		if err != nil {
			return ModelList{}, &UserError{Msg: err.Error()}
		}
		p, model, _ := strings.Cut(name, "/")
		list, want = []string{p}, model
	}
	out, byTarget, err := modelAliases(cfg)
	if err != nil {
		return ModelList{}, err
	}
	for _, p := range list {
		names, err := m.providerModels(ctx, cfg, p, want)
		if err != nil {
			if in.Provider != "" {
				return ModelList{}, err
			}
			out.Errors = append(out.Errors, ProviderFailure{Provider: p, Error: err.Error()})
			continue
		}
		for _, n := range names {
			id := llm.ModelID{Provider: p, Model: n}.String()
			out.Models = append(out.Models, ListedModel{ID: id, Provider: p, Aliases: byTarget[id]})
		}
	}
	if in.Provider == "" {
		for _, p := range m.lister.Providers(cfg) {
			if !slices.Contains(list, p) {
				out.Others = append(out.Others, ProviderHint{Provider: p, Enable: m.lister.HowToEnable(cfg, p)})
			}
		}
	}
	return out, nil
}

// modelAliases resolves every alias of cfg: the listing's alias map and
// order, and the aliases naming each model.
func modelAliases(cfg config.Config) (ModelList, map[string][]string, error) {
	out := ModelList{Models: []ListedModel{}, Aliases: map[string]string{}, AliasOrder: cfg.ModelAliases()}
	byTarget := map[string][]string{}
	for _, n := range out.AliasOrder {
		t, err := cfg.ResolveModel(n)
		if err != nil {
			return ModelList{}, nil, &UserError{Msg: err.Error()}
		}
		out.Aliases[n] = t
		byTarget[t] = append(byTarget[t], n)
	}
	return out, byTarget, nil
}

// providerModels lists provider's models; with want set, just want, or a
// UserError with the nearest name ("did you mean").
func (m *Models) providerModels(ctx context.Context, cfg config.Config, p, want string) ([]string, error) {
	names, err := m.lister.ListModels(ctx, cfg, p)
	if err != nil {
		return nil, &UserError{Msg: strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", " ")}
	}
	if want == "" {
		return names, nil
	}
	if slices.Contains(names, want) {
		return []string{want}, nil
	}
	msg := fmt.Sprintf("unknown model %s/%s", p, want)
	if near := nearest(want, names); near != "" {
		msg += fmt.Sprintf(": did you mean %s/%s?", p, near)
	} else {
		msg += fmt.Sprintf(": jp model ls %s lists its models", p)
	}
	return nil, &UserError{Msg: msg}
}

// nearest returns the name in names closest to want, or "" when none is
// close (an edit distance above a third of want's length).
func nearest(want string, names []string) string {
	best, bestD := "", len(want)/3+1
	for _, n := range names {
		if d := fuzzy.Distance(want, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// Completions are the values the shell offers for --model: demo/echo, the
// configured model, the aliases, and each listable provider as
// "PROVIDER/" (jp model ls lists the rest). It asks no provider; when the
// configuration does not load, demo/echo alone.
func (m *Models) Completions(ctx context.Context, in ConfigInput) []string {
	out := []string{"demo/echo"}
	res, _, err := resolveConfig(ctx, m.ws, m.loader, in)
	if err != nil {
		return out
	}
	cfg := res.Config
	if id := cfg.Assistant.Model.ID; id != "" {
		out = append(out, id)
	}
	out = append(out, cfg.ModelAliases()...)
	for _, p := range m.lister.Listable(cfg) {
		out = append(out, p+"/")
	}
	slices.Sort(out)
	return slices.Compact(out)
}
