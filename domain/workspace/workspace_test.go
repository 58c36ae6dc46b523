package workspace

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseID(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{"a1b2c3d", true}, {"a1b2c3d\n", true}, {"A1B2C3D", false}, {"a1b2c3", false},
		{"a1b2c3de", false}, {"a1b2-3d", false}, {"", false}, {"../../x", false},
		{"ab3cd", true}, {"ab3c", false}, {"ab3cD", false},
	} {
		if _, err := ParseID(tt.in); (err == nil) != tt.ok {
			t.Errorf("ParseID(%q) = %v, want ok=%v", tt.in, err, tt.ok)
		}
	}
	if LooksLikeID("a1b2c3d\n") {
		t.Error("LooksLikeID must not accept surrounding space")
	}
}

func TestParseIDFile(t *testing.T) {
	for _, tt := range []struct {
		in   string
		id   ID
		rust bool
		ok   bool
	}{
		{"a1b2c3d\n", "a1b2c3d", false, true},
		{RustIDHeader + "\nab3cd\n", "ab3cd", true, true},
		{RustIDHeader + "\r\na1b2c3d", "a1b2c3d", true, true},
		{RustIDHeader + "\n", "", true, false},
		{"# header\nab3cd\n", "", false, false},
	} {
		id, rust, err := ParseIDFile(tt.in)
		if (err == nil) != tt.ok || id != tt.id || rust != tt.rust {
			t.Errorf("ParseIDFile(%q) = %q %v %v, want %q %v ok=%v", tt.in, id, rust, err, tt.id, tt.rust, tt.ok)
		}
	}
	if !IsLive("ab3cd", Observation{Exists: true, Content: RustIDHeader + "\nab3cd\n"}) {
		t.Error("a checkout holding the Rust jp's .id form is not live")
	}
}

func TestNewIDUsesAlphabet(t *testing.T) {
	id, err := NewID(bytes.NewReader([]byte{0, 1, 35, 36, 200, 255, 9}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseID(string(id)); err != nil {
		t.Fatalf("NewID made %q: %v", id, err)
	}
	if _, err := NewID(bytes.NewReader([]byte{1})); err == nil {
		t.Fatal("short random source must fail")
	}
}

func TestRootKeyIsStableHexPrefix(t *testing.T) {
	a, b := RootKey("/home/u/p"), RootKey("/home/u/p2")
	if len(a) != 16 || a == b || a != RootKey("/home/u/p") {
		t.Fatalf("RootKey: %s %s", a, b)
	}
}

func TestIsLive(t *testing.T) {
	for _, tt := range []struct {
		name string
		seen Observation
		want bool
	}{
		{"holds the ID", Observation{Exists: true, Content: "a1b2c3d\n"}, true},
		{"gone", Observation{Exists: false}, false},
		{"other ID", Observation{Exists: true, Content: "zzzzzzz"}, false},
		{"garbage", Observation{Exists: true, Content: "??"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsLive("a1b2c3d", tt.seen); got != tt.want {
				t.Fatalf("IsLive = %v", got)
			}
		})
	}
}

func TestSelectCheckout(t *testing.T) {
	now := time.Now()
	co := func(p string, live bool) CheckoutStatus {
		return CheckoutStatus{Checkout: Checkout{Path: p, LastUsed: now}, Live: live}
	}
	for _, tt := range []struct {
		name    string
		cs      []CheckoutStatus
		want    string
		wantErr error
		msg     string
	}{
		{"one live", []CheckoutStatus{co("/a", true), co("/b", false)}, "/a", nil, ""},
		{"none recorded", nil, "", ErrNoLiveCheckout, "no recorded checkout"},
		{"none live", []CheckoutStatus{co("/a", false)}, "", ErrNoLiveCheckout, "workspace a1b2c3d has no live checkout: its recorded checkout /a no longer holds it;"},
		{"none of two live", []CheckoutStatus{co("/a", false), co("/b", false)}, "", ErrNoLiveCheckout, "its recorded checkouts /a, /b no longer hold it;"},
		{"two live", []CheckoutStatus{co("/b", true), co("/a", true)}, "", ErrAmbiguousCheckout, "has 2 live checkouts (/a, /b): pass one of them as -w PATH"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SelectCheckout(Known{ID: "a1b2c3d", Checkouts: tt.cs})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("err = %v, want %v containing %q", err, tt.wantErr, tt.msg)
				}
				return
			}
			if err != nil || got.Path != tt.want {
				t.Fatalf("got %v, %v", got.Path, err)
			}
		})
	}
}

func TestSlugAndSiloID(t *testing.T) {
	if s := Slug("My Project!"); s != "my-project" {
		t.Fatalf("Slug = %q", s)
	}
	if s := Slug("..."); s != "workspace" {
		t.Fatalf("Slug = %q", s)
	}
	id, slug, ok := SiloID(SiloName("my-project", "a1b2c3d"))
	if !ok || id != "a1b2c3d" || slug != "my-project" {
		t.Fatalf("SiloID = %v %v %v", id, slug, ok)
	}
	id, slug, ok = SiloID("my-rust-project-ab3cd")
	if !ok || id != "ab3cd" || slug != "my-rust-project" {
		t.Fatalf("SiloID of a Rust jp silo = %v %v %v", id, slug, ok)
	}
	for _, bad := range []string{"a1b2c3d", "x_a1b2c3d", "x-A1B2C3D", "", "-a1b2c3d", "x-a1b2c3"} {
		if _, _, ok := SiloID(bad); ok {
			t.Errorf("SiloID(%q) accepted", bad)
		}
	}
}

func TestValidateRef(t *testing.T) {
	for _, tt := range []struct {
		ref Ref
		ok  bool
	}{
		{Ref{ID: "a1b2c3d"}, true},
		{Ref{ID: "a1b2c3d", Root: "/home/u/p"}, true},
		{Ref{ID: "nope"}, false},
		{Ref{ID: "a1b2c3d", Root: "rel/p"}, false},
		{Ref{ID: "a1b2c3d", Root: "/home/u/../etc"}, false},
		{Ref{ID: "a1b2c3d", Root: "/home/u/"}, false},
	} {
		_, err := ValidateRef(tt.ref)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrBadRef)) {
			t.Errorf("ValidateRef(%+v) = %v, want ok=%v", tt.ref, err, tt.ok)
		}
	}
}

func TestParseScope(t *testing.T) {
	if s, _ := ParseScope(""); s != ScopeSingle {
		t.Fatal("default scope must be single")
	}
	if s, _ := ParseScope("multi"); s != ScopeMulti {
		t.Fatal("multi")
	}
	if _, err := ParseScope("both"); err == nil {
		t.Fatal("unknown scope accepted")
	}
}

func TestLocationCheck(t *testing.T) {
	good := []Location{{ID: "a1b2c3d"}, {ID: "a1b2c3d", Root: "/home/u/proj"}}
	bad := []Location{{ID: "../x"}, {ID: ""}, {ID: "a1b2c3d", Root: "proj"}, {ID: "a1b2c3d/../../etc", Root: "/p"}}
	for _, l := range good {
		if err := l.Check(); err != nil {
			t.Errorf("%+v: %v", l, err)
		}
	}
	for _, l := range bad {
		if err := l.Check(); err == nil {
			t.Errorf("%+v passed", l)
		}
	}
}

// The default workspace's ID never changes: its silo is found by it.
func TestDefaultIDIsStable(t *testing.T) {
	if DefaultID != "5cuo72n" || !LooksLikeID(string(DefaultID)) {
		t.Fatalf("DefaultID = %q, want 5cuo72n", DefaultID)
	}
	if !Default().IsDefault() || (Location{ID: DefaultID, Root: "/x"}).IsDefault() {
		t.Fatal("IsDefault")
	}
}
