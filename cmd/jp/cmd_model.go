package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jpcli/jp/app"
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
	list, err := a.Models.List(rt.Ctx, app.ModelsInput{Config: rt.configInput(), Provider: c.Provider})
	if err != nil {
		return err
	}
	view := newModelsView(list)
	if c.JSON() {
		return writeJSON(rt.Streams.Out, view)
	}
	if err := c.writeText(rt, list, view); err != nil {
		return err
	}
	for _, e := range view.Errors {
		fmt.Fprintf(rt.Streams.Err, "jp: %s\n", e.Error)
	}
	return nil
}

// newModelsView is the listing in jp model ls's JSON shape.
func newModelsView(list app.ModelList) modelsView {
	view := modelsView{Models: []modelView{}, Aliases: list.Aliases}
	for _, m := range list.Models {
		view.Models = append(view.Models, modelView{ID: m.ID, Provider: m.Provider, Aliases: m.Aliases})
	}
	for _, e := range list.Errors {
		view.Errors = append(view.Errors, providerError{Provider: e.Provider, Error: e.Error})
	}
	for _, o := range list.Others {
		view.Others = append(view.Others, providerHint{Provider: o.Provider, Enable: o.Enable})
	}
	return view
}

// writeText prints the listing as a table, then the aliases and the
// other providers.
func (c *ModelLsCmd) writeText(rt *Runtime, list app.ModelList, view modelsView) error {
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
	if len(list.Aliases) > 0 && c.Provider == "" {
		fmt.Fprintln(rt.Streams.Out, "\nAliases:")
		for _, n := range list.AliasOrder {
			fmt.Fprintf(rt.Streams.Out, "  %s = %s\n", n, list.Aliases[n])
		}
	}
	if len(view.Others) == 0 {
		return nil
	}
	fmt.Fprintln(rt.Streams.Out, "\nOther providers (jp model ls PROVIDER lists one):")
	tw = tabwriter.NewWriter(rt.Streams.Out, 0, 2, 2, ' ', 0)
	for _, o := range view.Others {
		fmt.Fprintf(tw, "  %s\t%s\n", o.Provider, o.Enable)
	}
	return tw.Flush()
}
