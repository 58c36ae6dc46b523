// Package fsstore keeps conversations, drafts, locks and the workspace
// registry on the file system, in the layout of docs/storage.md (see
// docs/storage.md):
//
//	<data>/workspace/<slug>-<id>/                 user-local silo
//	  conversations/<conv>/metadata.json          durable copy
//	  conversations/<conv>/events.json            folded events
//	  conversations/<conv>/events.log             append log (JSON lines)
//	  conversations/<conv>/QUERY_MESSAGE.md       draft
//	  conversations/<conv>/metadata.local.json    machine-local facts
//	  roots/<root-key>.json                       one file per checkout
//	  locks/<conv>.lock                           flock per conversation
//	<root>/.jp/conversations/<conv>/{metadata.json,events.json}  projection
//
// Every file is replaced atomically (temp file, fsync, rename, fsync of the
// directory). Appends go to events.log, one fsynced JSON line per batch, and
// are folded into events.json when a turn ends, when the log grows past a
// threshold, and whenever the projection is synced. Readers see events.json
// followed by the complete lines of the log.
package fsstore

import (
	"crypto/rand"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/gofrs/flock"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// Interface assertions.
var (
	_ ports.ConversationStore = (*Store)(nil)
	_ ports.DraftStore        = (*Store)(nil)
	_ ports.WorkspaceRegistry = (*Store)(nil)
	_ ports.Locker            = (*Store)(nil)
)

// DefaultFoldThreshold is the events.log size past which Append folds the
// log into events.json even in the middle of a turn.
const DefaultFoldThreshold = 256 << 10

// DefaultLongConversation is the size of events.json from which a turn's
// end leaves its events in the log (the checkout copy is written whole
// all the same) instead of rewriting the user-local events.json: on a
// long conversation that copy is most of a turn's writing. The log is
// folded when it passes the fold threshold.
const DefaultLongConversation = 1 << 20

// File and directory names of the layout.
const (
	workspaceDir   = "workspace"
	convsDir       = "conversations"
	rootsDir       = "roots"
	locksDir       = "locks"
	metadataFile   = "metadata.json"
	eventsFile     = "events.json"
	logFile        = "events.log"
	draftFile      = "QUERY_MESSAGE.md"
	localMetaFile  = "metadata.local.json"
	dotJP          = ".jp"
	idFile         = ".id"
	configFile     = "config.toml"
	rootConfigFile = ".jp.toml"
	gitignoreFile  = ".gitignore"
	siloLockFile   = ".silos.lock"
	partialFile    = "events.partial"
)

// Store implements ports.ConversationStore, ports.DraftStore,
// ports.WorkspaceRegistry and ports.Locker on the file system. All methods
// are safe for concurrent use; writes to one conversation are serialised
// within the process, and across processes through Lock.
type Store struct {
	dataDir       string
	clock         ports.Clock
	rand          io.Reader
	foldThreshold int64
	longConv      int64 // see DefaultLongConversation
	workers       int
	fsync         bool
	maxEvents     int64       // see DefaultMaxEventsBytes; read through maxEventsBytes
	limit         eventsLimit // how maxEvents is set
	search        searchRules // see Find
	session       string      // see WithSession

	siloMu sync.Mutex // serialises silo creation within the process
	mu     sync.Mutex // guards silos and streams
	silos  map[workspace.ID]string
	// streams caches the invariant state of conversations this process
	// appended to, keyed by silo conversation directory.
	streams map[string]*streamState
	// formats caches the stored form of the workspace at a checkout root
	// (or, without one, a silo): see formatOf.
	formats map[string]conversation.Format
	// ckpts holds the silo conversation directories whose events.partial
	// this process is writing: the block is live, not debris to fold in.
	ckpts map[string]bool
	// held counts the conversation locks this process holds, by
	// lockKey: a reader holding one is about to write (see ScanEvents).
	held map[string]int
	// valid holds checkout copies known to parse, as they were when
	// known (see checkProjection).
	valid  map[string]os.FileInfo
	syncs  atomic.Int64   // fsyncs made (see Syncs)
	convMu [64]sync.Mutex // striped per-conversation write locks

	// beforeSync, when set, runs before every fsync of a file or a
	// directory: the crash tests kill the process there (nil otherwise).
	beforeSync func()
}

// Option configures a Store.
type Option func(*Store)

// WithFoldThreshold sets the events.log size in bytes past which Append
// folds the log into events.json (default DefaultFoldThreshold).
func WithFoldThreshold(n int64) Option { return func(s *Store) { s.foldThreshold = n } }

// WithLongConversation sets the size of events.json from which a turn's
// end does not fold the log (default DefaultLongConversation).
func WithLongConversation(n int64) Option { return func(s *Store) { s.longConv = n } }

// WithWorkers sets how many goroutines List uses to read metadata files
// (default: 2 per CPU, at least 4 and at most 16).
func WithWorkers(n int) Option { return func(s *Store) { s.workers = n } }

// WithRandom sets the randomness used for new workspace IDs (default
// crypto/rand.Reader).
func WithRandom(r io.Reader) Option { return func(s *Store) { s.rand = r } }

// withoutFsync skips fsync calls; only for setting up benchmarks fast.
func withoutFsync() Option { return func(s *Store) { s.fsync = false } }

// New returns a store rooted at dataDir, the jp data directory
// ($XDG_DATA_HOME/jp). The directory is created on the first write.
func New(dataDir string, clock ports.Clock, opts ...Option) (*Store, error) {
	if dataDir == "" {
		return nil, errors.New("new fsstore: data directory is empty")
	}
	if clock == nil {
		return nil, errors.New("new fsstore: clock is nil")
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("new fsstore: data directory %s: %w", dataDir, err)
	}
	s := &Store{
		dataDir:       abs,
		clock:         clock,
		rand:          rand.Reader,
		foldThreshold: DefaultFoldThreshold,
		longConv:      DefaultLongConversation,
		workers:       max(4, min(16, 2*runtime.GOMAXPROCS(0))),
		maxEvents:     DefaultMaxEventsBytes,
		fsync:         true,
		silos:         map[workspace.ID]string{},
		streams:       map[string]*streamState{},
		formats:       map[string]conversation.Format{},
		ckpts:         map[string]bool{},
		held:          map[string]int{},
		valid:         map[string]os.FileInfo{},
	}
	for _, o := range opts {
		o(s)
	}
	if s.foldThreshold <= 0 {
		return nil, fmt.Errorf("new fsstore: fold threshold %d must be positive", s.foldThreshold)
	}
	if s.workers < 1 {
		s.workers = 1
	}
	if s.rand == nil {
		return nil, errors.New("new fsstore: random source is nil")
	}
	return s, nil
}

// DataDir is the jp data directory the store was created with.
func (s *Store) DataDir() string { return s.dataDir }

// lockConv takes the in-process write lock of one conversation.
func (s *Store) lockConv(ws workspace.ID, id conversation.ID) func() {
	h := fnv.New32a()
	_, _ = io.WriteString(h, string(ws)+"/"+string(id))
	m := &s.convMu[h.Sum32()%uint32(len(s.convMu))]
	m.Lock()
	return m.Unlock
}

// siloDir returns the silo of workspace id, or "" when there is none.
func (s *Store) siloDir(id workspace.ID) (string, error) {
	s.mu.Lock()
	dir, ok := s.silos[id]
	s.mu.Unlock()
	if ok {
		return dir, nil
	}
	base := filepath.Join(s.dataDir, workspaceDir)
	if err := confine(s.dataDir, workspaceDir); err != nil {
		return "", err
	}
	names, err := readDirNames(base)
	if err != nil {
		return "", fmt.Errorf("find silo of workspace %s: %w", id, err)
	}
	sort.Strings(names)
	for _, n := range names {
		if got, _, ok := workspace.SiloID(n); ok && got == id {
			dir = filepath.Join(base, n)
			fi, err := os.Lstat(dir)
			if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return "", &ports.LinkError{Path: dir}
			}
			if err != nil || !fi.IsDir() {
				continue
			}
			s.mu.Lock()
			s.silos[id] = dir
			s.mu.Unlock()
			return dir, nil
		}
	}
	return "", nil
}

// ensureSilo returns the silo of workspace id, creating it (slugged from
// the base name of root) when there is none. Creation is serialised across
// processes with a flock so that one ID never gets two silos.
func (s *Store) ensureSilo(id workspace.ID, root string) (string, error) {
	if dir, err := s.siloDir(id); err != nil || dir != "" {
		return dir, err
	}
	s.siloMu.Lock()
	defer s.siloMu.Unlock()
	base := filepath.Join(s.dataDir, workspaceDir)
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", fmt.Errorf("create silo of workspace %s: %w", id, err)
	}
	fl := flock.New(filepath.Join(base, siloLockFile), flock.SetFlag(os.O_CREATE|os.O_RDWR))
	if err := fl.Lock(); err != nil {
		return "", fmt.Errorf("create silo of workspace %s: lock %s: %w", id, fl.Path(), err)
	}
	defer func() { _ = fl.Close() }()
	if dir, err := s.siloDir(id); err != nil || dir != "" {
		return dir, err
	}
	slug := slugFor(root)
	if id == workspace.DefaultID {
		slug = workspace.DefaultSlug // <data>/workspace/default-<id> (docs/storage.md)
	}
	dir := filepath.Join(base, workspace.SiloName(slug, id))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create silo %s: %w", dir, err)
	}
	if err := s.syncDir(base); err != nil {
		return "", err
	}
	s.mu.Lock()
	s.silos[id] = dir
	s.mu.Unlock()
	return dir, nil
}

// readDirNames lists a directory's entry names; a missing directory is
// empty.
func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("read directory %s: %w", dir, err)
	}
	return names, nil
}

// slugFor is the silo slug for a checkout root: its base name, slugged.
func slugFor(root string) string {
	if root == "" {
		return workspace.Slug("")
	}
	return workspace.Slug(filepath.Base(root))
}

// isConvName reports whether a directory entry is named like a
// conversation ID (temp files and tombstones start with a dot).
func isConvName(n string) bool {
	if n == "" || len(n) > 20 {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < '0' || n[i] > '9' {
			return false
		}
	}
	return true
}

// UserWorkspaceConfigFile is the user's own configuration file for the
// workspace checked out at root: config.toml in the workspace's
// user-local silo (<data>/workspace/<slug>-<id>/config.toml, where the
// Rust jp keeps it too), never a file in the checkout. "" when root holds
// no workspace or it has no silo yet (reading creates nothing).
func (s *Store) UserWorkspaceConfigFile(root string) string {
	if root == "" {
		return ""
	}
	id, err := readIDFile(filepath.Join(root, dotJP, idFile))
	if err != nil {
		return ""
	}
	silo, err := s.siloDir(id)
	if err != nil || silo == "" {
		return ""
	}
	return filepath.Join(silo, "config.toml")
}
