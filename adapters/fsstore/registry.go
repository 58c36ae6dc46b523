package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

// configTemplate is the .jp/config.toml written by Init.
const configTemplate = `# jp workspace configuration, committed with the project.
#
# Settings here apply to everyone who works in this workspace. Personal
# settings belong in $XDG_CONFIG_HOME/jp/config.toml, or in a .jp.toml
# between this directory and where you run jp. Run "jp config show" to see
# the resolved configuration.

# [assistant.model]
# id = "anthropic/claude-sonnet-4-5"

# [conversation.tools.defaults]
# run = "ask"

# jp's built-in tools (docs/tools.md), confined to this checkout.
# Reading tools run without asking; tools that change files show the
# diff and ask (conversation.tools.defaults.run). Remove a table to
# switch a tool off; jp q --auto read|edit|all runs more without asking.
[conversation.tools.fs_read_file]
run = "unattended"

[conversation.tools.fs_list_files]
run = "unattended"

[conversation.tools.fs_grep_files]
run = "unattended"

[conversation.tools.git_status]
run = "unattended"

[conversation.tools.git_diff]
run = "unattended"

[conversation.tools.git_log]
run = "unattended"

[conversation.tools.fs_create_file]

[conversation.tools.fs_modify_file]

[conversation.tools.fs_delete_file]

[conversation.tools.fs_move_file]

# shell runs commands in jp's sandbox (docs/tools.md, "Sandbox"): writes
# only in this checkout, no network, no secret directories. It asks
# before each command; where the sandbox is not available it says so.
[conversation.tools.shell]
`

// gitignoreTemplate is the .jp/.gitignore written by Init: it keeps the
// temp files of jp's atomic writes (".NAME.tmp-<hex>", removed once the
// write is done, or by a later write when a killed one left them) out of
// "git add -A".
const gitignoreTemplate = `# Written by jp init; commit it. jp replaces a file by writing
# .NAME.tmp-<hex> beside it and renaming it: such a file is never yours
# to commit (a killed write leaves one; jp removes it later).
.*.tmp-*
`

// Canonical returns the absolute, symlink-resolved form of dir. A missing
// directory gives an error wrapping a *ports.NotFoundError.
func (s *Store) Canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve directory %s: %w", dir, err)
	}
	c, err := filepath.EvalSymlinks(abs)
	if isNotExist(err) {
		return "", fmt.Errorf("resolve directory %s: %w", dir, &ports.NotFoundError{What: "directory " + abs})
	}
	if err != nil {
		return "", fmt.Errorf("resolve directory %s: %w", dir, err)
	}
	return c, nil
}

// Init makes dir (created when missing) a workspace: .jp/.id with a fresh
// ID, and a commented .jp/config.toml and a .jp/.gitignore unless they
// exist. A directory that
// already holds .jp/.id is refused with an error wrapping ports.ErrExists.
func (s *Store) Init(ctx context.Context, dir string) (ports.Found, error) {
	if err := ctx.Err(); err != nil {
		return ports.Found{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ports.Found{}, fmt.Errorf("init workspace in %s: %w", dir, err)
	}
	root, err := s.Canonical(dir)
	if err != nil {
		return ports.Found{}, err
	}
	idPath := filepath.Join(root, dotJP, idFile)
	if _, err := os.Lstat(idPath); err == nil {
		return ports.Found{}, refuseInit(root, idPath)
	}
	id, err := workspace.NewID(s.rand)
	if err != nil {
		return ports.Found{}, fmt.Errorf("init workspace in %s: %w", root, err)
	}
	if err := os.MkdirAll(filepath.Dir(idPath), 0o755); err != nil {
		return ports.Found{}, fmt.Errorf("init workspace in %s: %w", root, err)
	}
	if err := s.createExclusive(idPath, []byte(string(id)+"\n")); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ports.Found{}, refuseInit(root, idPath)
		}
		return ports.Found{}, err
	}
	for _, f := range []struct{ name, text string }{{configFile, configTemplate}, {gitignoreFile, gitignoreTemplate}} {
		path := filepath.Join(root, dotJP, f.name)
		ok, err := exists(path)
		if err == nil && !ok {
			err = s.writeFile(path, []byte(f.text), 0o644)
		}
		if err != nil {
			return ports.Found{}, fmt.Errorf("init workspace in %s: %w", root, err)
		}
	}
	return ports.Found{ID: id, Root: root}, nil
}

// refuseInit builds the error for an existing .jp/.id.
func refuseInit(root, idPath string) error {
	id, err := readIDFile(idPath)
	if err != nil {
		return fmt.Errorf("%s is already a jp workspace (%w): %w", root, ports.ErrExists, err)
	}
	return &ports.WorkspaceExistsError{Root: root, ID: id}
}

// createExclusive creates path with data, failing with fs.ErrExist when it
// exists: the content is written to a temp file and hard-linked into place,
// so the file never appears half-written.
func (s *Store) createExclusive(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := atomicfile.Stage(path, data, s.fileOptions(0o644))
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer func() { _ = os.Remove(tmp) }()
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", path, err)
		}
		// No hard links on this file system: create exclusively in place.
		return s.createInPlace(path, data)
	}
	return s.syncDir(dir)
}

// createInPlace creates path exclusively and writes data into it.
func (s *Store) createInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = s.syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return fmt.Errorf("create %s: %w", path, err)
	}
	return s.syncDir(filepath.Dir(path))
}

// readIDFile reads and parses a .jp/.id file; an unparsable one is a
// *ports.CorruptError.
func readIDFile(path string) (workspace.ID, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	id, _, err := workspace.ParseIDFile(string(b))
	if err != nil {
		return "", &ports.CorruptError{Path: path, Err: err}
	}
	return id, nil
}

// Find walks up from dir to the nearest directory holding .jp/.id. With
// none, the error wraps ports.ErrNoWorkspace. On unix it takes no
// workspace from a directory others may write into (world-writable) that
// is not the user's own, does not look above it, nor above the user's home
// when it started inside it; and it refuses, with a
// *ports.ForeignOwnerError, a workspace whose .jp/ or a .jp.toml on the
// way (the files the configuration is read from) another user owns, unless
// the user's safe_directories list allows that directory.
func (s *Store) Find(ctx context.Context, dir string) (ports.Found, error) {
	if err := ctx.Err(); err != nil {
		return ports.Found{}, err
	}
	start, err := s.Canonical(dir)
	if err != nil {
		return ports.Found{}, err
	}
	self, home := s.search.self(), ""
	if ownershipChecked {
		home = s.search.canonicalHome()
	}
	var foreigns []foreign
	stop := ""
	for d := start; ; {
		if ownershipChecked {
			fi, err := os.Lstat(d)
			if err != nil {
				return ports.Found{}, fmt.Errorf("find workspace from %s: %w", start, err)
			}
			if uid, ok := ownerOf(fi); ok && !workspace.SearchMayUse(uid, self, worldWritable(fi)) {
				stop = fmt.Sprintf("; the search stopped at %s, which others may write into", d)
				break
			}
		}
		id, err := readIDFile(filepath.Join(d, dotJP, idFile))
		if err == nil {
			if ownershipChecked {
				for _, p := range []string{filepath.Join(d, dotJP), filepath.Join(d, rootConfigFile)} {
					uid, found, err := foreignOwner(p, self)
					if err != nil {
						return ports.Found{}, fmt.Errorf("find workspace from %s: %w", start, err)
					}
					if found {
						foreigns = append(foreigns, foreign{path: p, dir: d, uid: uid})
					}
				}
				if err := s.refuseForeign(foreigns); err != nil {
					return ports.Found{}, err
				}
			}
			return ports.Found{ID: id, Root: d}, nil
		}
		if !isNotExist(err) && !errors.Is(err, syscall.ENOTDIR) {
			return ports.Found{}, fmt.Errorf("find workspace from %s: %w", start, err)
		}
		if ownershipChecked {
			// A .jp.toml below the root is read too (docs/configuration.md).
			p := filepath.Join(d, rootConfigFile)
			uid, found, err := foreignOwner(p, self)
			if err != nil {
				return ports.Found{}, fmt.Errorf("find workspace from %s: %w", start, err)
			}
			if found {
				foreigns = append(foreigns, foreign{path: p, dir: d, uid: uid})
			}
			if workspace.SearchStopsAfter(d, home, start) {
				stop = fmt.Sprintf("; the search stopped at your home directory %s", d)
				break
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return ports.Found{}, fmt.Errorf("find workspace from %s: %w (no .jp/.id here or above%s; run jp init)", start, ports.ErrNoWorkspace, stop)
}

// ReadID reads <root>/.jp/.id. A missing file wraps ports.ErrNoWorkspace.
func (s *Store) ReadID(ctx context.Context, root string) (workspace.ID, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	id, err := readIDFile(filepath.Join(root, dotJP, idFile))
	if isNotExist(err) {
		return "", fmt.Errorf("read workspace ID of %s: %w", root, ports.ErrNoWorkspace)
	}
	if err != nil {
		return "", fmt.Errorf("read workspace ID of %s: %w", root, err)
	}
	return id, nil
}

// Register upserts roots/<root-key>.json for the checkout with last_used
// set to now, creating the silo when the workspace has none.
func (s *Store) Register(ctx context.Context, f ports.Found) error {
	if err := (workspace.Location{ID: f.ID, Root: f.Root}).Check(); err != nil {
		return fmt.Errorf("register checkout: %w", err)
	}
	if f.Root == "" {
		return errors.New("register checkout: root is empty")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	silo, err := s.ensureSilo(f.ID, f.Root)
	if err != nil {
		return fmt.Errorf("register checkout %s: %w", f.Root, err)
	}
	dir := filepath.Join(silo, rootsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("register checkout %s: %w", f.Root, err)
	}
	atomicfile.Sweep(dir, atomicfile.StaleAge)
	rec := workspace.Checkout{Path: f.Root, LastUsed: s.clock.Now().UTC()}
	path := filepath.Join(dir, workspace.RootKey(f.Root)+".json")
	if err := confineUnder(silo, path); err != nil {
		return fmt.Errorf("register checkout %s: %w", f.Root, err)
	}
	if err := s.writeJSON(path, rec, 0o600); err != nil {
		return fmt.Errorf("register checkout %s: %w", f.Root, err)
	}
	return nil
}

// Known lists every workspace with a silo, ordered by silo name, with its
// recorded checkouts and their liveness derived from <path>/.jp/.id now.
// It writes nothing and removes no record.
func (s *Store) Known(ctx context.Context) ([]workspace.Known, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	base := filepath.Join(s.dataDir, workspaceDir)
	if err := confine(s.dataDir, workspaceDir); err != nil {
		return nil, err
	}
	names, err := readDirNames(base)
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	sort.Strings(names)
	seen := map[workspace.ID]bool{}
	var out []workspace.Known
	for _, n := range names {
		id, slug, ok := workspace.SiloID(n)
		if !ok || seen[id] {
			continue
		}
		fi, err := os.Lstat(filepath.Join(base, n))
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, &ports.LinkError{Path: filepath.Join(base, n)}
		}
		if err != nil || !fi.IsDir() {
			continue
		}
		seen[id] = true
		k, err := readKnown(id, slug, filepath.Join(base, n))
		if err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, nil
}

// Lookup returns one known workspace.
func (s *Store) Lookup(ctx context.Context, id workspace.ID) (workspace.Known, error) {
	if err := ctx.Err(); err != nil {
		return workspace.Known{}, err
	}
	if !workspace.LooksLikeID(string(id)) {
		return workspace.Known{}, fmt.Errorf("look up workspace: %w %q", workspace.ErrInvalidID, id)
	}
	silo, err := s.siloDir(id)
	if err != nil {
		return workspace.Known{}, err
	}
	if silo == "" {
		return workspace.Known{}, &ports.NotFoundError{What: "workspace " + string(id), Hint: "list known workspaces with jp workspace ls"}
	}
	_, slug, _ := workspace.SiloID(filepath.Base(silo))
	return readKnown(id, slug, silo)
}

// readKnown reads a silo's roots registry and derives liveness.
func readKnown(id workspace.ID, slug, silo string) (workspace.Known, error) {
	k := workspace.Known{ID: id, Slug: slug, Silo: silo, Checkouts: []workspace.CheckoutStatus{}}
	dir := filepath.Join(silo, rootsDir)
	if err := confine(silo, rootsDir); err != nil {
		return k, err
	}
	names, err := listEntries(dir)
	if err != nil {
		return k, fmt.Errorf("list checkouts of workspace %s: %w", id, err)
	}
	for _, n := range names {
		if strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".json") {
			continue
		}
		var c workspace.Checkout
		if err := readJSON(filepath.Join(dir, n), &c); err != nil {
			if isNotExist(err) {
				continue
			}
			return k, fmt.Errorf("list checkouts of workspace %s: %w", id, err)
		}
		k.Checkouts = append(k.Checkouts, workspace.CheckoutStatus{Checkout: c, Live: checkoutLive(id, c.Path)})
	}
	workspace.SortCheckouts(k.Checkouts)
	return k, nil
}

// CountConversations counts the conversations in a workspace's silo with
// one directory listing, for jp workspace ls. It is not part of a port.
func (s *Store) CountConversations(ctx context.Context, id workspace.ID) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if !workspace.LooksLikeID(string(id)) {
		return 0, fmt.Errorf("count conversations: %w %q", workspace.ErrInvalidID, id)
	}
	silo, err := s.siloDir(id)
	if err != nil || silo == "" {
		return 0, err
	}
	names, err := readDirNames(filepath.Join(silo, convsDir))
	if err != nil {
		return 0, fmt.Errorf("count conversations of workspace %s: %w", id, err)
	}
	if names, err = withArchive(names, filepath.Join(silo, convsDir)); err != nil {
		return 0, fmt.Errorf("count conversations of workspace %s: %w", id, err)
	}
	seen := make(map[conversation.ID]bool, len(names))
	for _, name := range names {
		if cid, ok := listName(name); ok {
			seen[cid] = true
		}
	}
	return len(seen), nil
}
