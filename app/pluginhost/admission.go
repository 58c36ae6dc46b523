package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

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
	trust := h.trust(ctx, in.Log, b, digest)
	verdict, bind := plugin.VerdictRun, false
	for _, l := range layers {
		pc := l.cfg.Plugin(name)
		v, err := plugin.Admit(b, pc, digest, trust)
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
		bind = bind || plugin.NeedsBinding(pc, trust)
	}
	if verdict == plugin.VerdictRun {
		if bind {
			// run = "unattended" is granted to this binary from now on;
			// another one claiming the name will be asked about.
			a := plugin.Approval{SHA256: digest, Path: b.Path, RealPath: b.Real(), Name: name,
				ApprovedAt: h.clock.Now().UTC(), Via: plugin.ViaUnattended, Manifest: b.Manifest}
			if err := h.catalog.SaveApproval(ctx, a); err != nil {
				in.Log.Warn("plugin binding not recorded", "plugin", name, "error", err)
			}
		}
		return nil
	}
	why := "It has not been approved on this machine."
	if trust.ClaimedFrom != "" {
		why = fmt.Sprintf("It is not the binary approved under that name (%s).", trust.ClaimedFrom)
	}
	resume := h.printer.Suspend()
	ans, err := h.prompter.Ask(ctx, ports.Question{
		Kind:    ports.QuestionSelect,
		Message: fmt.Sprintf("Run plugin %s (%s)? %s", name, b.Path, why),
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
	case errors.Is(err, ports.ErrUnavailable) && trust.ClaimedFrom != "":
		return &app.UserError{Err: err, Msg: fmt.Sprintf(
			"plugin %s (%s) is not the binary approved under that name (%s), and there is no terminal to ask: run it once in a terminal and answer \"yes, remember\", or pin it with %s.checksum.value = %q",
			name, b.Path, trust.ClaimedFrom, plugin.ConfigKey(name), digest)}
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
	a := plugin.Approval{SHA256: digest, Path: b.Path, RealPath: b.Real(), Name: b.Name(), ApprovedAt: h.clock.Now().UTC(), Manifest: m}
	if err := h.catalog.SaveApproval(ctx, a); err != nil {
		return fmt.Errorf("record approval of plugin %s: %w", b.Name(), err)
	}
	return nil
}

// trust is what the machine knows of the binary b (SHA-256 digest): the
// approvals recorded for its name, and whether jp installed it. An
// unreadable record or list trusts nothing (it is logged): admission asks.
func (h *Host) trust(ctx context.Context, log *slog.Logger, b plugin.Binary, digest string) plugin.Trust {
	recs, err := h.catalog.Approvals(ctx, b.Name())
	if err != nil {
		log.Warn("plugin approvals unreadable; asking again", "plugin", b.Name(), "error", err)
	}
	t := plugin.BindTrust(b, digest, recs)
	if !t.Approved {
		shipped, err := h.catalog.Shipped(ctx, b.Path, digest)
		if err != nil {
			log.Warn("checksums of jp's own plugins unreadable", "plugin", b.Name(), "error", err)
		}
		if shipped {
			t.Approved, t.ClaimedFrom = true, ""
		}
	}
	return t
}
