package fsstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// listJob is one conversation directory to read for List.
type listJob struct {
	id      conversation.ID
	name    string               // directory, relative to the conversations directory
	storage conversation.Storage // WorkspaceOnly: read from the projection
}

// List returns the conversations visible from loc, ordered by ID: the
// silo's, plus those only in loc.Root's projection. It reads each silo
// conversation's metadata.json and metadata.local.json, learns projection
// presence from one directory listing, and reads a projection's
// metadata.json only for conversations not in the silo. Events are never
// read. The files are read by a small worker pool, relative to open
// directory handles.
func (s *Store) List(ctx context.Context, loc workspace.Location) ([]conversation.Summary, error) {
	if err := loc.Check(); err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	silo, err := s.siloDir(loc.ID)
	if err != nil {
		return nil, err
	}
	var siloNames, projNames []string
	var siloDir, projDir dirHandle
	if silo != "" {
		if siloNames, siloDir, err = openListed(silo, convsDir); err != nil {
			return nil, fmt.Errorf("list conversations: %w", err)
		}
		defer siloDir.close()
	}
	if loc.Root != "" {
		if projNames, projDir, err = openListed(loc.Root, filepath.Join(dotJP, convsDir)); err != nil {
			return nil, fmt.Errorf("list conversations: %w", err)
		}
		defer projDir.close()
	}
	if s.formatOf(loc, silo) == conversation.FormatRust {
		if siloNames, err = withArchive(siloNames, filepath.Join(silo, convsDir)); err != nil {
			return nil, fmt.Errorf("list conversations: %w", err)
		}
		if loc.Root != "" {
			if projNames, err = withArchive(projNames, projConvs(loc.Root)); err != nil {
				return nil, fmt.Errorf("list conversations: %w", err)
			}
		}
	}
	jobs := planList(siloNames, projNames)
	out := make([]conversation.Summary, len(jobs))
	found := make([]bool, len(jobs))
	err = s.parallel(ctx, len(jobs), func(i int, buf *[]byte) error {
		d := siloDir
		if jobs[i].storage == conversation.StorageWorkspaceOnly {
			d = projDir
		}
		sum, ok, err := readSummary(d, jobs[i], buf)
		out[i], found[i] = sum, ok
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	live := newLiveness(loc.ID)
	n := 0
	for i := range out {
		if found[i] {
			live.mark(&out[i])
			out[n] = out[i]
			n++
		}
	}
	out = out[:n]
	conversation.SortByID(out)
	return out, nil
}

// openListed lists the directory rel under base and opens it for reading
// files under it. A missing directory is empty; a symbolic link on the way
// or among its conversation entries is refused.
func openListed(base, rel string) ([]string, dirHandle, error) {
	if err := confine(base, rel); err != nil {
		return nil, dirHandle{fd: -1}, err
	}
	dir := filepath.Join(base, rel)
	names, err := listEntries(dir)
	if err != nil || len(names) == 0 {
		return nil, dirHandle{fd: -1}, err
	}
	d, err := openDir(dir)
	if isNotExist(err) {
		return nil, d, nil
	}
	return names, d, err
}

// withArchive adds the entries of the Rust jp's archive under convs to
// names, as ".archive/<name>".
func withArchive(names []string, convs string) ([]string, error) {
	if !slices.Contains(names, archiveDir) {
		return names, nil
	}
	archived, err := readDirNames(filepath.Join(convs, archiveDir))
	if err != nil {
		return nil, err
	}
	for _, n := range archived {
		names = append(names, filepath.Join(archiveDir, n))
	}
	return names, nil
}

// listName maps a listed entry to its conversation: "<id>", or the Rust
// jp's "<id>-<slug>" and ".archive/<name>".
func listName(n string) (conversation.ID, bool) {
	if isConvName(n) {
		return conversation.ID(n), true
	}
	return convID(strings.TrimPrefix(n, archiveDir+string(filepath.Separator)))
}

// planList pairs silo and projection entries into jobs, one per
// conversation (the first name in sorted order when the Rust jp left two
// directories for one ID).
func planList(siloNames, projNames []string) []listJob {
	inProj := make(map[conversation.ID]string, len(projNames))
	for _, n := range projNames {
		if id, ok := listName(n); ok {
			if cur, dup := inProj[id]; !dup || n < cur {
				inProj[id] = n
			}
		}
	}
	jobs := make([]listJob, 0, len(siloNames)+len(projNames))
	inSilo := make(map[conversation.ID]int, len(siloNames))
	for _, n := range siloNames {
		id, ok := listName(n)
		if !ok {
			continue
		}
		if i, dup := inSilo[id]; dup {
			if n < jobs[i].name {
				jobs[i].name = n
			}
			continue
		}
		inSilo[id] = len(jobs)
		st := conversation.StorageUserLocal
		if _, ok := inProj[id]; ok {
			st = conversation.StorageBoth
		}
		jobs = append(jobs, listJob{id: id, name: n, storage: st})
	}
	for id, n := range inProj {
		if _, ok := inSilo[id]; !ok {
			jobs = append(jobs, listJob{id: id, name: n, storage: conversation.StorageWorkspaceOnly})
		}
	}
	return jobs
}

// readSummary reads one listed conversation under d. ok is false for a
// directory without metadata.json (being created or removed).
func readSummary(d dirHandle, j listJob, buf *[]byte) (conversation.Summary, bool, error) {
	sum := conversation.Summary{ID: j.id, Storage: j.storage}
	rel := j.name + string(filepath.Separator) + metadataFile
	b, err := d.readFile(rel, buf)
	if isNotExist(err) || errors.Is(err, syscall.ENOTDIR) {
		return sum, false, nil
	}
	if err != nil {
		return sum, false, err
	}
	if err := decodeMetadata(d.path, rel, b, &sum.Metadata); err != nil {
		var ce *ports.CorruptError
		if j.storage == conversation.StorageWorkspaceOnly && errors.As(err, &ce) {
			// A checkout copy does not stop the listing of the others.
			sum.Metadata = conversation.Metadata{}
			sum.Unreadable = &ports.CorruptError{Path: ce.Path, Err: ce.Err,
				Hint: "resolve the merge in it or remove it (it came with the checkout; jp never rewrites it)"}
			return sum, true, nil
		}
		return sum, false, err
	}
	if m := &sum.Metadata; m.CreatedAt.IsZero() || !m.HasEventsCount || isArchivedRel(j.name) {
		completeMeta(m, j.id, filepath.Join(d.path, j.name), isArchivedRel(j.name))
	}
	if j.storage == conversation.StorageWorkspaceOnly {
		return sum, true, nil
	}
	rel = j.name + string(filepath.Separator) + localMetaFile
	b, err = d.readFile(rel, buf)
	if isNotExist(err) {
		return sum, true, nil
	}
	if err != nil {
		return sum, false, err
	}
	var local conversation.LocalMetadata
	if err := decodeLocal(d.path, rel, b, &local); err != nil {
		return sum, false, err
	}
	sum.Local, sum.LastRoot = local.Local, local.LastRoot
	return sum, true, nil
}

// parallel runs fn(0..n-1) over the store's worker pool, each worker with
// its own scratch buffer, and returns the error of the lowest failing index.
// Every goroutine it starts has returned when it returns.
func (s *Store) parallel(ctx context.Context, n int, fn func(i int, buf *[]byte) error) error {
	workers := min(s.workers, (n+31)/32)
	if workers <= 1 {
		var buf []byte
		for i := range n {
			if i%256 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err := fn(i, &buf); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		next     atomic.Int64
		mu       sync.Mutex
		firstIdx = n
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(i int, err error) {
		mu.Lock()
		if i < firstIdx {
			firstIdx, firstErr = i, err
		}
		mu.Unlock()
		next.Store(int64(n))
	}
	for range workers {
		wg.Go(func() {
			var buf []byte
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if i%256 == 0 {
					if err := ctx.Err(); err != nil {
						fail(i, err)
						return
					}
				}
				if err := fn(i, &buf); err != nil {
					fail(i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}
