package workspace

import (
	pathpkg "path"
	"strings"
)

// The ownership rules of the upward workspace search (docs/storage.md,
// "Finding the workspace"). Like git's safe.directory (CVE-2022-24765), jp
// does not obey a .jp/ or .jp.toml that another user could have planted:
// in a shared directory such a file would run that user's configuration
// with the caller's rights.

// RootUID is the user ID of root, whose files every user may use.
const RootUID = 0

// OwnerTrusted reports whether a file owned by owner may configure jp run
// by the user self: it is the user's own, or root's.
func OwnerTrusted(owner, self uint32) bool {
	return owner == self || owner == RootUID
}

// SearchMayUse reports whether the upward search may take a workspace from
// a directory, and go on above it: not when others may write into the
// directory (world-writable, like /tmp) and it is not the user's own, since
// anyone could have created its .jp/ or .jp.toml.
func SearchMayUse(dirOwner, self uint32, worldWritable bool) bool {
	return !worldWritable || dirOwner == self
}

// SearchStopsAfter reports whether the upward search, having looked at
// dir, must not look above it: dir is the user's home directory and the
// search started inside it. Both paths are clean and absolute.
func SearchStopsAfter(dir, home, start string) bool {
	if home == "" || dir != home {
		return false
	}
	return Within(start, home)
}

// Within reports whether path is dir or below it; both are clean and
// absolute.
func Within(path, dir string) bool {
	if path == dir {
		return true
	}
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return strings.HasPrefix(path, dir+"/")
}

// SafeDirectoryAllowed reports whether the user's safe_directories list
// allows a workspace directory owned by someone else: the entry "*" allows
// every directory, an entry ending in "/*" its prefix and every
// directory below it, and any other entry the directory it names. dir is clean and
// absolute; entries are cleaned before comparing, and a relative entry
// matches nothing.
func SafeDirectoryAllowed(list []string, dir string) bool {
	for _, e := range list {
		e = strings.TrimSpace(e)
		switch {
		case e == "*":
			return true
		case strings.HasSuffix(e, "/*"):
			p := strings.TrimSuffix(e, "/*")
			if p == "" {
				p = "/"
			}
			p = pathpkg.Clean(p)
			if pathpkg.IsAbs(p) && Within(dir, p) {
				return true
			}
		case e != "" && pathpkg.IsAbs(e) && pathpkg.Clean(e) == dir:
			return true
		}
	}
	return false
}
