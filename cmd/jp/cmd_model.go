package main

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/jpcli/jp/adapters/providers"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/llm"
)

// ModelCmd is jp model.
type ModelCmd struct {
	Ls ModelLsCmd `cmd:"" aliases:"list" help:"List the models of the configured providers, and the aliases."`
}

// ModelLsCmd is jp model ls [PROVIDER | PROVIDER/MODEL].
type ModelLsCmd struct {
	Provider string `arg:"" optional:"" placeholder:"PROVIDER" help:"List only this provider's models; PROVIDER/MODEL checks that the model exists."`
	FormatFlag
}

type modelView struct {
	ID       string   `json:"id"`
	Provider string   `json:"provider"`
	Aliases  []string `json:"aliases,omitempty"`
}

type modelsView struct {
	Models  []modelView       `json:"models"`
	Aliases map[string]string `json:"aliases"`
	Errors  []providerError   `json:"errors,omitempty"`
	// Others are the providers not listed (no key is set, or a local
	// server jp does not probe unasked), with what enables each.
	Others []providerHint `json:"other_providers,omitempty"`
}

type providerHint struct {
	Provider string `json:"provider"`
	Enable   string `json:"enable"`
}

type providerError struct {
	Provider string `json:"provider"`
	Error    string `json:"error"`
}

// Run lists the models.
func (c *ModelLsCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	res, err := a.Config.Load(rt.Ctx, rt.configInput())
	if err != nil {
		return err
	}
	cfg := res.Config
	f := providers.New() // reads keys with os.Getenv
	want := ""
	list := f.Listable(cfg)
	if c.Provider != "" {
		name, err := cfg.ResolveModel(c.Provider)
		if err != nil {
			return &app.UserError{Msg: err.Error()}
		}
		p, m, _ := strings.Cut(name, "/")
		list, want = []string{p}, m
	}
	aliases := map[string]string{}
	byTarget := map[string][]string{}
	for _, n := range cfg.ModelAliases() {
		t, err := cfg.ResolveModel(n)
		if err != nil {
			return &app.UserError{Msg: err.Error()}
		}
		aliases[n] = t
		byTarget[t] = append(byTarget[t], n)
	}
	view := modelsView{Models: []modelView{}, Aliases: aliases}
	for _, p := range list {
		names, err := f.ListModels(rt.Ctx, cfg, p)
		if err != nil {
			if c.Provider != "" {
				return &app.UserError{Msg: oneLine(err.Error())}
			}
			view.Errors = append(view.Errors, providerError{Provider: p, Error: oneLine(err.Error())})
			continue
		}
		if want != "" {
			if !slices.Contains(names, want) {
				msg := fmt.Sprintf("unknown model %s/%s", p, want)
				if near := providers.Nearest(want, names); near != "" {
					msg += fmt.Sprintf(": did you mean %s/%s?", p, near)
				} else {
					msg += fmt.Sprintf(": jp model ls %s lists its models", p)
				}
				return &app.UserError{Msg: msg}
			}
			names = []string{want}
		}
		for _, n := range names {
			id := llm.ModelID{Provider: p, Model: n}.String()
			view.Models = append(view.Models, modelView{ID: id, Provider: p, Aliases: byTarget[id]})
		}
	}
	if c.Provider == "" {
		for _, p := range providers.Names(cfg) {
			if !slices.Contains(list, p) {
				view.Others = append(view.Others, providerHint{Provider: p, Enable: providers.HowToEnable(cfg, p)})
			}
		}
	}
	if c.JSON() {
		return writeJSON(rt.Streams.Out, view)
	}
	tw := tabwriter.NewWriter(rt.Streams.Out, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tALIASES")
	for _, m := range view.Models {
		al := strings.Join(m.Aliases, ",")
		if al == "" {
			al = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\n", m.ID, al)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(aliases) > 0 && c.Provider == "" {
		fmt.Fprintln(rt.Streams.Out, "\nAliases:")
		for _, n := range cfg.ModelAliases() {
			fmt.Fprintf(rt.Streams.Out, "  %s = %s\n", n, aliases[n])
		}
	}
	if len(view.Others) > 0 {
		fmt.Fprintln(rt.Streams.Out, "\nOther providers (jp model ls PROVIDER lists one):")
		tw := tabwriter.NewWriter(rt.Streams.Out, 0, 2, 2, ' ', 0)
		for _, o := range view.Others {
			fmt.Fprintf(tw, "  %s\t%s\n", o.Provider, o.Enable)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, e := range view.Errors {
		fmt.Fprintf(rt.Streams.Err, "jp: %s\n", e.Error)
	}
	return nil
}
