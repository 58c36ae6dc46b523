package pluginhost

import (
	"context"
	"errors"
	"fmt"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/ports"
)

// Answers of the admission prompt.
const (
	admitOnce     = "once"
	admitRemember = "remember"
	admitNo       = "no"
)

// admitLayer is one configuration admission reads, and where it is from.
type admitLayer struct {
	where string
	cfg   config.Config
}

// admitAll admits the binary under the configuration the bootstrap
// resolved: every one of b.admitUnder when set (the strictest wins: a
// deny or checksum mismatch in any refuses, naming it; an ask in any
// asks), else b.res.Config.
func (h *Host) admitAll(ctx context.Context, in RunInput, b boot) error {
	layers := b.admitUnder
	if len(layers) == 0 {
		layers = []admitLayer{{cfg: b.res.Config}}
	}
	return h.admit(ctx, in, layers, b.dir)
}

// admit applies admission to the routed binary under each layer: run =
// "deny" refuses, a pinned checksum must match, "unattended" and approved
// binaries run, and any other binary is asked about: yes once, yes and
// remember (an approval record), or no. dir is where a describe for the
// approval record runs.
func (h *Host) admit(ctx context.Context, in RunInput, layers []admitLayer, dir string) error {
	b := in.Binary
	name := b.Name()
	digest, err := h.catalog.Digest(ctx, b.Path)
	if err != nil {
		return &app.UserError{Msg: fmt.Sprintf("plugin %s: cannot read %s: %v", name, b.Path, err), Err: err}
	}
	approved := false
	if _, err := h.catalog.Approval(ctx, digest); err == nil {
		approved = true
	} else if !errors.Is(err, ports.ErrNotFound) {
		in.Log.Warn("plugin approval unreadable; asking again", "plugin", name, "error", err)
	}
	verdict := plugin.VerdictRun
	for _, l := range layers {
		v, err := plugin.Admit(b, l.cfg.Plugin(name), digest, approved)
		if err != nil {
			var de *plugin.DeniedError
			var ce *plugin.ChecksumError
			switch {
			case errors.As(err, &de):
				de.Where = l.where
			case errors.As(err, &ce):
				ce.Where = l.where
			}
			return &app.UserError{Msg: err.Error(), Err: err}
		}
		verdict = max(verdict, v)
	}
	if verdict == plugin.VerdictRun {
		return nil
	}
	resume := h.printer.Suspend()
	ans, err := h.prompter.Ask(ctx, ports.Question{
		Kind:    ports.QuestionSelect,
		Message: fmt.Sprintf("Run plugin %s (%s)? It has not been approved on this machine.", name, b.Path),
		Options: []ports.Option{
			{Key: "y", Label: "yes, once", Value: admitOnce},
			{Key: "Y", Label: "yes, remember", Value: admitRemember},
			{Key: "n", Label: "no", Value: admitNo},
		},
		Topic: "plugin_run:" + name,
	})
	resume()
	switch {
	case errors.Is(err, ports.ErrInterrupted):
		return err
	case errors.Is(err, ports.ErrUnavailable):
		return &app.UserError{Err: err, Msg: fmt.Sprintf(
			"plugin %s (%s) has not been approved, and there is no terminal to ask: run it once in a terminal and answer \"yes, remember\", or set %s.run = \"unattended\"",
			name, b.Path, plugin.ConfigKey(name))}
	case errors.Is(err, ports.ErrCancelled):
		return &app.UserError{Msg: fmt.Sprintf("plugin %s was not run", name), Err: err}
	case err != nil:
		return err
	}
	switch ans.Text {
	case admitOnce:
		return nil
	case admitRemember:
		return h.remember(ctx, in, digest, dir)
	}
	return &app.UserError{Msg: fmt.Sprintf("plugin %s was not run", name)}
}

// remember records the approval of a binary, with its manifest fields: the
// manifest file's, or a describe answer when there is no manifest file
// (the user has just allowed the binary to run).
func (h *Host) remember(ctx context.Context, in RunInput, digest, dir string) error {
	b := in.Binary
	m := b.Manifest
	if b.ManifestFrom != "file" {
		d, err := h.describe(ctx, in, dir)
		if err != nil {
			in.Log.Warn("plugin approval recorded without its manifest fields", "plugin", b.Name(), "error", err)
		} else {
			m = &d
		}
	}
	a := plugin.Approval{SHA256: digest, Path: b.Path, Name: b.Name(), ApprovedAt: h.clock.Now().UTC(), Manifest: m}
	if err := h.catalog.SaveApproval(ctx, a); err != nil {
		return fmt.Errorf("record approval of plugin %s: %w", b.Name(), err)
	}
	return nil
}
