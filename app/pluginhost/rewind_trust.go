package pluginhost

import (
	"context"
	"errors"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/plugin"
)

// Rewind and the trust question for a frontend (jp serve web): the same
// use cases as jp conversation rewind and jp workspace trust, for
// multi-scope plugins only (router.go), each addressed to one checkout.

// errNoUseCase answers a request whose use case this host was built
// without.
var errNoUseCase = errors.New("this jp cannot serve that request here")

// rewind is jp conversation rewind, addressed to one checkout.
func (s *session) rewind(ctx context.Context, c *checkout, req plugin.Rewind) (plugin.Message, error) {
	if s.h.rewind == nil {
		return nil, errNoUseCase
	}
	in := app.RewindInput{Loc: c.loc, Conversation: conversation.ID(req.Conversation), Turn: req.Turn, Force: req.Force, DryRun: req.DryRun}
	if req.Truncate {
		in.Mode = app.RewindTruncate
	}
	res, err := s.h.rewind.Run(ctx, in)
	if err != nil {
		return nil, err
	}
	out := plugin.Rewound{ID: req.ID, Conversation: req.Conversation, DryRun: req.DryRun, Turns: res.Turns,
		Undone: append([]int{}, res.Undone...), Files: rewoundFiles(res.Files), Conflicts: rewoundFiles(res.Conflicts),
		Fork: res.Fork.String(), Truncated: res.Overlay != nil}
	for _, u := range res.Unrecorded {
		out.Unrecorded = append(out.Unrecorded, plugin.UnrecordedCall{Turn: u.Turn, Name: u.Name})
	}
	return out, nil
}

// rewoundFiles is the protocol's form of a rewind's files ([] when none).
func rewoundFiles(fs []app.RewindFile) []plugin.RewoundFile {
	out := make([]plugin.RewoundFile, 0, len(fs))
	for _, f := range fs {
		out = append(out, plugin.RewoundFile{Path: f.Path, Action: f.Action(), Turns: f.TurnNumbers})
	}
	return out
}

// trust is jp workspace trust for the addressed checkout (with DryRun: its
// review, nothing written). After a trust, the checkout's configuration
// is resolved again on its next use, so that a turn started after it
// applies the keys now trusted.
func (s *session) trust(ctx context.Context, c *checkout, req plugin.TrustCheckout) (plugin.Message, error) {
	if s.h.trustUC == nil {
		return nil, errNoUseCase
	}
	in := app.ConfigInput{LaunchDir: c.loc.Root, UserConfigDir: s.in.UserConfigDir, Environ: s.in.Environ, Overrides: s.in.Overrides}
	var review config.TrustReview
	var err error
	if req.DryRun {
		review, err = s.h.trustUC.Review(ctx, in)
	} else {
		review, err = s.h.trustUC.TrustShown(ctx, in, req.Hash) // "": what it holds now
		s.checkouts.reopen(c.loc)
	}
	if err != nil {
		return nil, err
	}
	held := make([]plugin.HeldKey, 0, len(review.Held))
	for _, h := range review.Held {
		held = append(held, plugin.HeldKey{Key: h.Key, Does: h.Does})
	}
	return plugin.Trusted{ID: req.ID, Root: review.Root, DryRun: req.DryRun, Trusted: review.Trusted || len(review.Held) == 0, Held: held, Hash: review.Hash}, nil
}
