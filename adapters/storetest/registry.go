package storetest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

func testRegistry(t *testing.T, e *env) {
	r := e.Registry
	if !workspace.LooksLikeID(string(e.ws.ID)) {
		t.Fatalf("Init gave ID %q, want a workspace ID", e.ws.ID)
	}
	if c, err := r.Canonical(e.root); err != nil || c != e.root || e.ws.Root != e.root {
		t.Fatalf("Canonical(%s) = %q, %v; Init root %q; want the directory itself", e.root, c, err, e.ws.Root)
	}
	_, err := r.Init(e.ctx, e.root)
	if !errors.Is(err, ports.ErrExists) || !strings.Contains(err.Error(), string(e.ws.ID)) {
		t.Fatalf("second Init = %v, want ErrExists naming ID %s", err, e.ws.ID)
	}
	if want := e.root + " is already a jp workspace (ID " + string(e.ws.ID) + ")"; err.Error() != want {
		t.Errorf("second Init says %q, want %q", err, want)
	}
	sub := filepath.Join(e.root, "src", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{e.root, sub} {
		f, err := r.Find(e.ctx, dir)
		if err != nil || f != e.ws {
			t.Fatalf("Find(%s) = %+v, %v; want %+v", dir, f, err, e.ws)
		}
	}
	plain := e.NewCheckout(t, "")
	if _, err := r.Find(e.ctx, plain); !errors.Is(err, ports.ErrNoWorkspace) {
		t.Fatalf("Find outside any workspace = %v, want ErrNoWorkspace", err)
	}
	if id, err := r.ReadID(e.ctx, e.root); err != nil || id != e.ws.ID {
		t.Fatalf("ReadID = %q, %v; want %s", id, err, e.ws.ID)
	}
	if _, err := r.ReadID(e.ctx, plain); !errors.Is(err, ports.ErrNoWorkspace) {
		t.Fatalf("ReadID of a plain directory = %v, want ErrNoWorkspace", err)
	}
	// A nested directory can become a workspace of its own.
	nested, err := r.Init(e.ctx, sub)
	if err != nil || nested.ID == e.ws.ID || nested.Root != sub {
		t.Fatalf("Init(nested) = %+v, %v; want a new workspace at %s", nested, err, sub)
	}
	if f, err := r.Find(e.ctx, sub); err != nil || f != nested {
		t.Fatalf("Find(nested) = %+v, %v; want the nearest workspace %+v", f, err, nested)
	}

	var nf *ports.NotFoundError
	if _, err := r.Lookup(e.ctx, "zzzzzzz"); !errors.As(err, &nf) || nf.Hint != "list known workspaces with jp workspace ls" {
		t.Fatalf("Lookup(unknown) = %v, want *ports.NotFoundError with the ls hint", err)
	}
	if _, err := r.Lookup(e.ctx, "NOT AN ID"); !errors.Is(err, workspace.ErrInvalidID) {
		t.Fatalf("Lookup(invalid) = %v, want workspace.ErrInvalidID", err)
	}
}

func testRegistryCheckouts(t *testing.T, e *env) {
	r := e.Registry
	first := e.Clock.Now()
	k, err := r.Lookup(e.ctx, e.ws.ID)
	if err != nil {
		t.Fatalf("Lookup after Register: %v", err)
	}
	if len(k.Checkouts) != 1 || k.Checkouts[0].Path != e.root || !k.Checkouts[0].Live || !k.Checkouts[0].LastUsed.Equal(first) {
		t.Fatalf("checkouts = %+v, want %s live, last used %v", k.Checkouts, e.root, first)
	}
	if k.Slug != workspace.Slug(filepath.Base(e.root)) {
		t.Errorf("slug = %q, want %q from the checkout's base name", k.Slug, workspace.Slug(filepath.Base(e.root)))
	}
	b := e.NewCheckout(t, e.ws.ID)
	fb, err := r.Find(e.ctx, b)
	if err != nil || fb.ID != e.ws.ID || fb.Root != b {
		t.Fatalf("Find(second checkout) = %+v, %v", fb, err)
	}
	later := e.Clock.Advance(time.Hour)
	if err := r.Register(e.ctx, fb); err != nil {
		t.Fatalf("Register(second checkout): %v", err)
	}
	latest := e.Clock.Advance(time.Hour)
	if err := r.Register(e.ctx, e.ws); err != nil {
		t.Fatalf("Register again: %v", err)
	}
	known, err := r.Known(e.ctx)
	if err != nil {
		t.Fatalf("Known: %v", err)
	}
	var mine []workspace.Known
	for _, k := range known {
		if k.ID == e.ws.ID {
			mine = append(mine, k)
		}
	}
	if len(mine) != 1 {
		t.Fatalf("Known = %+v, want workspace %s once", known, e.ws.ID)
	}
	cs := mine[0].Checkouts
	if len(cs) != 2 || cs[0].Path != e.root || !cs[0].LastUsed.Equal(latest) || cs[1].Path != b || !cs[1].LastUsed.Equal(later) || !cs[0].Live || !cs[1].Live {
		t.Fatalf("checkouts = %+v, want %s (last used %v) then %s (%v), both live", cs, e.root, latest, b, later)
	}
	k, err = r.Lookup(e.ctx, e.ws.ID)
	if err != nil || k.Silo != mine[0].Silo || len(k.Checkouts) != 2 {
		t.Fatalf("Lookup = %+v, %v; want what Known said: %+v", k, err, mine[0])
	}
	// A checkout of another workspace registers into its own silo.
	other, err := r.Init(e.ctx, e.NewCheckout(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Register(e.ctx, other); err != nil {
		t.Fatal(err)
	}
	if known, err := r.Known(e.ctx); err != nil || len(known) != 2 {
		t.Fatalf("Known with two workspaces = %+v, %v", known, err)
	}
}
