package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/ports"
)

// Trust is the use case behind jp workspace trust: recording that the
// user trusts a checkout's configuration keys that run programs or send
// data, so that they apply (docs/security.md).
type Trust struct {
	ws     *Workspaces
	loader ports.ConfigLoader
	record ports.WorkspaceTrust
}

// NewTrust builds the use case.
func NewTrust(ws *Workspaces, loader ports.ConfigLoader, record ports.WorkspaceTrust) *Trust {
	return &Trust{ws: ws, loader: loader, record: record}
}

// Review loads the selected checkout's configuration and returns what it
// holds that runs or sends, and whether that is trusted. It writes
// nothing.
func (t *Trust) Review(ctx context.Context, in ConfigInput) (config.TrustReview, error) {
	in.quietTrust = true
	res, root, err := resolveConfig(ctx, t.ws, t.loader, in)
	if err != nil {
		return config.TrustReview{}, err
	}
	if root == "" {
		return config.TrustReview{}, &UserError{Msg: "not in a jp workspace: run jp workspace trust in a checkout (or give -w)"}
	}
	return res.Trust, nil
}

// Trust records the selected checkout as trusted with the keys it holds
// now, and returns them.
func (t *Trust) Trust(ctx context.Context, in ConfigInput) (config.TrustReview, error) {
	return t.TrustShown(ctx, in, "")
}

// TrustShown is Trust for a review the user was shown: hash is that
// review's Hash, and the checkout is trusted only if its configuration
// still holds exactly those keys. A change since (a git pull, an edit)
// is refused in one line, and nothing is recorded. An empty hash trusts
// what the configuration holds now (Trust).
func (t *Trust) TrustShown(ctx context.Context, in ConfigInput, hash string) (config.TrustReview, error) {
	r, err := t.Review(ctx, in)
	if err != nil {
		return r, err
	}
	if hash != "" && r.Hash != hash {
		return r, &UserError{Msg: fmt.Sprintf("the configuration of %s changed since it was shown: review it again before trusting it", r.Root)}
	}
	if err := t.record.Trust(ctx, r.Root, r.Hash); err != nil {
		return r, err
	}
	r.Trusted = true
	return r, nil
}

// BeforeInit reviews the configuration a directory already holds before
// jp init makes it a workspace (a clone that ships .jp/config.toml or
// .jp.toml), so that init can say what of it the user now trusts.
func (t *Trust) BeforeInit(ctx context.Context, dir string, in ConfigInput) (config.TrustReview, error) {
	res, err := t.loader.Load(ctx, ports.ConfigSource{
		UserConfigDir: in.UserConfigDir, WorkspaceRoot: dir, LaunchDir: dir, Env: in.Environ, AskTrust: true,
	})
	return res.Trust, err
}

// TrustRoot records root, a checkout jp init just made, as trusted with
// the keys its configuration holds now: running jp init in a directory is
// trusting it.
func (t *Trust) TrustRoot(ctx context.Context, root string, in ConfigInput) error {
	res, err := t.loader.Load(ctx, ports.ConfigSource{
		UserConfigDir: in.UserConfigDir, WorkspaceRoot: root, LaunchDir: root,
		Env: in.Environ, AskTrust: true,
	})
	if err != nil {
		return err
	}
	return t.record.Trust(ctx, res.Trust.Root, res.Trust.Hash)
}

// Revoke forgets the selected checkout: its keys that run or send are
// ignored again. It reports whether the checkout was trusted.
func (t *Trust) Revoke(ctx context.Context, in ConfigInput) (config.TrustReview, bool, error) {
	r, err := t.Review(ctx, in)
	if err != nil {
		return r, false, err
	}
	found, err := t.record.Revoke(ctx, r.Root)
	r.Trusted = len(r.Held) == 0
	return r, found, err
}

// askTrust asks, once, whether to trust a checkout whose keys that run or
// send were held back, listing them; on yes it records the trust and
// reports true. A prompter that cannot ask, a "not now" or a cancel
// report false, and the caller goes on without those keys (after the
// one-line notice). An error recording the trust is returned.
func askTrust(ctx context.Context, p ports.Prompter, record ports.WorkspaceTrust, r config.TrustReview) (bool, error) {
	if p == nil || record == nil || !p.Interactive() {
		return false, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "This checkout (%s) is not trusted. Its configuration would make jp:\n", r.Root)
	for _, h := range r.Held {
		fmt.Fprintf(&b, "  - %s   [%s]\n", h.Does, h.Key)
	}
	b.WriteString("Trust this checkout and apply them? (no: run without them this time)")
	ans, err := p.Ask(ctx, ports.Question{Kind: ports.QuestionConfirm, Message: b.String(), Default: false, Topic: "trust:checkout"})
	switch {
	case errors.Is(err, ports.ErrCancelled), errors.Is(err, ports.ErrUnavailable):
		return false, nil
	case err != nil:
		return false, err
	}
	if !ans.Bool {
		return false, nil
	}
	if err := record.Trust(ctx, r.Root, r.Hash); err != nil {
		return false, err
	}
	return true, nil
}
