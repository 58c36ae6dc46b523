package fsstore

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"

	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// searchRules are the ownership rules of Find (docs/storage.md, "Finding
// the workspace"): whose .jp/ and .jp.toml it accepts, and where it stops.
type searchRules struct {
	uidSet bool // uid was given by withUID (tests)
	uid    uint32
	home   string
	// safe reads the user's safe_directories list and names the file it
	// is in; called only when a file owned by another user is found.
	safe func() (list []string, file string, err error)
}

// WithHome sets the user's home directory: a search that starts inside it
// never looks above it.
func WithHome(dir string) Option { return func(s *Store) { s.search.home = dir } }

// WithSafeDirectories sets how Find reads the user's safe_directories list
// (and the path of the file it is in), the directories whose .jp/ or
// .jp.toml another user may own. It is called only when Find meets such a
// file; nil allows none.
func WithSafeDirectories(fn func() ([]string, string, error)) Option {
	return func(s *Store) { s.search.safe = fn }
}

// withUID sets the user Find checks owners against (default the current
// user); for tests.
func withUID(uid uint32) Option {
	return func(s *Store) { s.search.uid, s.search.uidSet = uid, true }
}

// self is the user Find checks owners against.
func (r searchRules) self() uint32 {
	if r.uidSet {
		return r.uid
	}
	return currentUID()
}

// canonicalHome is the home directory in the form Find compares paths
// in; empty when unset or unreadable.
func (r searchRules) canonicalHome() string {
	if r.home == "" || !filepath.IsAbs(r.home) {
		return ""
	}
	h, err := filepath.EvalSymlinks(r.home)
	if err != nil {
		return ""
	}
	return h
}

// foreign is a file found by the search that another user owns.
type foreign struct {
	path, dir string
	uid       uint32
}

// foreignOwner returns path's owner when it exists and is neither self
// nor root.
func foreignOwner(path string, self uint32) (uid uint32, found bool, err error) {
	fi, err := os.Lstat(path)
	if isNotExist(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	uid, ok := ownerOf(fi)
	if !ok || workspace.OwnerTrusted(uid, self) {
		return 0, false, nil
	}
	return uid, true, nil
}

// refuseForeign returns the error for the first of fs the user's
// safe_directories list does not allow, or nil when it allows them all.
func (s *Store) refuseForeign(fs []foreign) error {
	if len(fs) == 0 {
		return nil
	}
	var list []string
	var file string
	if s.search.safe != nil {
		l, f, err := s.search.safe()
		if err != nil {
			return fmt.Errorf("check the owner of %s: %w", fs[0].path, err)
		}
		list, file = l, f
	}
	for _, f := range fs {
		if workspace.SafeDirectoryAllowed(list, f.dir) {
			continue
		}
		return &ports.ForeignOwnerError{Path: f.path, Dir: f.dir, Owner: userName(f.uid), ConfigFile: file}
	}
	return nil
}

// userName is uid's user name, or the number when it has none.
func userName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid " + id
}

// worldWritable reports whether others may create files in the directory
// fi describes.
func worldWritable(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o002 != 0 }
