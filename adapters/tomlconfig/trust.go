package tomlconfig

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gofrs/flock"

	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

// TrustFile is the user's record of trusted checkouts, a JSON file in the
// user's data directory (<data>/trust.json):
//
//	{"checkouts": {"/real/path": {"hash": "sha256:...", "trusted_at": "..."}}}
//
// Fields another version wrote survive every rewrite. Writers take an
// exclusive lock on trust.json.lock, so two jp processes trusting at once
// both land.
type TrustFile struct {
	// Path is the record's file.
	Path string
	// Now stamps trusted_at; nil uses time.Now.
	Now func() time.Time
}

var _ ports.WorkspaceTrust = (*TrustFile)(nil)

// trustDoc is trust.json with every field kept.
type trustDoc map[string]json.RawMessage

type trustEntry struct {
	Hash      string `json:"hash"`
	TrustedAt string `json:"trusted_at,omitempty"`
	// Hashes are the other sets of keys trusted in the checkout: what is
	// held depends on where jp runs in it (a .jp.toml on the way) and
	// which personas it loads, so each trusted set is kept, the latest in
	// Hash. Any other change asks again.
	Hashes []string `json:"hashes,omitempty"`
}

// maxTrustedSets bounds the sets of keys kept per checkout (Hashes).
const maxTrustedSets = 16

// read loads the record; a missing file is empty.
func (t *TrustFile) read() (trustDoc, map[string]json.RawMessage, error) {
	doc := trustDoc{}
	checkouts := map[string]json.RawMessage{}
	data, err := os.ReadFile(t.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, checkouts, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the trust record %s: %w", t.Path, err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("the trust record %s is not valid JSON (%v): fix or remove it, then trust your checkouts again", t.Path, err)
	}
	if raw, ok := doc["checkouts"]; ok {
		if err := json.Unmarshal(raw, &checkouts); err != nil {
			return nil, nil, fmt.Errorf("the trust record %s: checkouts is not an object (%v): fix or remove it", t.Path, err)
		}
	}
	return doc, checkouts, nil
}

// Trusted implements ports.WorkspaceTrust.
func (t *TrustFile) Trusted(root, hash string) (bool, error) {
	if t == nil || t.Path == "" {
		return false, nil
	}
	_, checkouts, err := t.read()
	if err != nil {
		return false, err
	}
	raw, ok := checkouts[root]
	if !ok {
		return false, nil
	}
	var e trustEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return false, nil
	}
	return e.Hash == hash || slices.Contains(e.Hashes, hash), nil
}

// Trust implements ports.WorkspaceTrust.
func (t *TrustFile) Trust(ctx context.Context, root, hash string) error {
	return t.update(ctx, func(checkouts map[string]json.RawMessage) (bool, error) {
		entry := map[string]json.RawMessage{}
		if raw, ok := checkouts[root]; ok {
			_ = json.Unmarshal(raw, &entry)
		}
		now := time.Now
		if t.Now != nil {
			now = t.Now
		}
		var prev trustEntry
		if raw, ok := checkouts[root]; ok {
			_ = json.Unmarshal(raw, &prev)
		}
		others := slices.DeleteFunc(append(prev.Hashes, prev.Hash), func(h string) bool { return h == "" || h == hash })
		if len(others) > maxTrustedSets-1 {
			others = others[len(others)-(maxTrustedSets-1):]
		}
		h, _ := json.Marshal(hash)
		at, _ := json.Marshal(now().UTC().Format(time.RFC3339))
		entry["hash"], entry["trusted_at"] = h, at
		delete(entry, "hashes")
		if len(others) > 0 {
			entry["hashes"], _ = json.Marshal(others)
		}
		raw, err := json.Marshal(entry)
		if err != nil {
			return false, err
		}
		checkouts[root] = raw
		return true, nil
	})
}

// Revoke implements ports.WorkspaceTrust.
func (t *TrustFile) Revoke(ctx context.Context, root string) (bool, error) {
	found := false
	err := t.update(ctx, func(checkouts map[string]json.RawMessage) (bool, error) {
		_, found = checkouts[root]
		delete(checkouts, root)
		return found, nil
	})
	return found, err
}

// update rewrites the record under its lock when change reports a change.
func (t *TrustFile) update(ctx context.Context, change func(map[string]json.RawMessage) (bool, error)) error {
	if t == nil || t.Path == "" {
		return errors.New("no trust record: jp has no data directory (set XDG_DATA_HOME or HOME)")
	}
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o700); err != nil {
		return fmt.Errorf("write the trust record %s: %w", t.Path, err)
	}
	lock := flock.New(t.Path+".lock", flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	if _, err := lock.TryLockContext(ctx, 10*time.Millisecond); err != nil {
		return fmt.Errorf("lock the trust record %s: %w", t.Path, err)
	}
	defer func() { _ = lock.Unlock() }()
	doc, checkouts, err := t.read()
	if err != nil {
		return err
	}
	changed, err := change(checkouts)
	if err != nil || !changed {
		return err
	}
	raw, err := json.Marshal(checkouts)
	if err != nil {
		return err
	}
	doc["checkouts"] = raw
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Replace(t.Path, append(data, '\n'), atomicfile.Options{Perm: 0o600}); err != nil {
		return fmt.Errorf("write the trust record %s: %w", t.Path, err)
	}
	return nil
}
