package workspace

import "testing"

func TestOwnerTrusted(t *testing.T) {
	for _, tt := range []struct {
		owner, self uint32
		want        bool
	}{
		{1000, 1000, true}, {0, 1000, true}, {0, 0, true},
		{65534, 1000, false}, {65534, 0, false}, {1000, 0, false},
	} {
		if got := OwnerTrusted(tt.owner, tt.self); got != tt.want {
			t.Errorf("OwnerTrusted(%d, %d) = %v, want %v", tt.owner, tt.self, got, tt.want)
		}
	}
}

func TestSearchMayUse(t *testing.T) {
	for _, tt := range []struct {
		owner, self   uint32
		worldWritable bool
		want          bool
	}{
		{0, 1000, false, true},     // /home: root's, not writable by others
		{0, 1000, true, false},     // /tmp as a user: root's and world-writable
		{0, 0, true, true},         // /tmp as root: the user's own
		{1000, 1000, true, true},   // the user's own world-writable directory
		{65534, 0, true, false},    // another user's world-writable directory, even for root
		{65534, 1000, false, true}, // owner is checked on the .jp/ itself, not here
	} {
		if got := SearchMayUse(tt.owner, tt.self, tt.worldWritable); got != tt.want {
			t.Errorf("SearchMayUse(%d, %d, %v) = %v, want %v", tt.owner, tt.self, tt.worldWritable, got, tt.want)
		}
	}
}

func TestSearchStopsAfter(t *testing.T) {
	for _, tt := range []struct {
		dir, home, start string
		want             bool
	}{
		{"/home/me", "/home/me", "/home/me/src/p", true},
		{"/home/me", "/home/me", "/home/me", true},
		{"/home/me/src", "/home/me", "/home/me/src/p", false},
		{"/home/me", "/home/me", "/srv/p", false}, // started outside home
		{"/home", "/home/me", "/home/mea/p", false},
		{"/home/me", "", "/home/me/p", false}, // no home known
	} {
		if got := SearchStopsAfter(tt.dir, tt.home, tt.start); got != tt.want {
			t.Errorf("SearchStopsAfter(%q, %q, %q) = %v, want %v", tt.dir, tt.home, tt.start, got, tt.want)
		}
	}
}

func TestSafeDirectoryAllowed(t *testing.T) {
	for _, tt := range []struct {
		list []string
		dir  string
		want bool
	}{
		{nil, "/tmp/x", false},
		{[]string{"*"}, "/tmp/x", true},
		{[]string{"/tmp/x"}, "/tmp/x", true},
		{[]string{"/tmp/x/"}, "/tmp/x", true},
		{[]string{"/tmp/x"}, "/tmp/x/y", false},
		{[]string{"/tmp/x"}, "/tmp/xy", false},
		{[]string{"/srv/*"}, "/srv/a/b", true},
		{[]string{"/srv/*"}, "/srv", true},
		{[]string{"/srv/*"}, "/srvx/a", false},
		{[]string{"tmp/x"}, "/tmp/x", false}, // relative entries match nothing
		{[]string{""}, "/tmp/x", false},
	} {
		if got := SafeDirectoryAllowed(tt.list, tt.dir); got != tt.want {
			t.Errorf("SafeDirectoryAllowed(%q, %q) = %v, want %v", tt.list, tt.dir, got, tt.want)
		}
	}
}
