package fsstore

import (
	"github.com/jpcli/jp/adapters/eventcodec"

	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/ports"
)

// stagingPrefix starts the name of the directory CreateFrom builds a
// conversation in, beside the conversations: a dot (not a conversation
// name, so never listed) and the temp marker every sweep and the
// checkout's .gitignore know.
const stagingPrefix = ".new" + atomicfile.TempMarker

// CreateFrom implements ports.ConversationStore. The conversation is built
// in a staging directory of the silo's conversations directory:
// events.json written as the events come (one encoder pass, no slice of
// them all, no fold per turn), metadata.local.json, and metadata.json
// last, each synced. Only then is an ID claimed (its empty directory) and
// the files moved into it, metadata.json last, so a process killed before
// leaves a staging directory, and one killed while moving a directory
// without metadata.json: neither is listed, and a later write sweeps
// both (sweepConvs). The checkout copy is written from it last.
func (s *Store) CreateFrom(ctx context.Context, loc workspace.Location, nc ports.NewConversation, fill func(add func(conversation.Event) error) error) (conversation.ID, error) {
	silo, convs, err := s.prepareCreate(ctx, loc)
	if err != nil {
		return "", err
	}
	stage, err := os.MkdirTemp(convs, stagingPrefix)
	if err != nil {
		return "", fmt.Errorf("create conversation: %w", err)
	}
	placed := false
	defer func() {
		if !placed {
			_ = os.RemoveAll(stage)
		}
	}()
	f := s.formatOf(loc, silo)
	count, kept, err := s.stageEvents(ctx, filepath.Join(stage, eventsFile), f, fill)
	if err != nil {
		return "", err
	}
	// The content of Local attachments (put back when the source was
	// read) is kept beside the copy, as Append keeps it.
	if err := s.writeKept(stage, kept); err != nil {
		return "", fmt.Errorf("create conversation: %w", err)
	}
	if nc.Local {
		if err := s.replaceJSON(filepath.Join(stage, localMetaFile), eventcodec.LocalJSON{Local: true}, 0o600); err != nil {
			return "", fmt.Errorf("create conversation: %w", err)
		}
	}
	now := s.clock.Now().UTC()
	meta := conversation.Metadata{Title: nc.Title, CreatedAt: now, LastActivatedAt: now, Format: f, EventsCount: count}
	if len(nc.Labels) > 0 {
		meta.SetLabelMap(nc.Labels)
	}
	if err := s.replaceJSON(filepath.Join(stage, metadataFile), meta, 0o600); err != nil {
		return "", fmt.Errorf("create conversation: %w", err)
	}
	if err := s.syncDir(stage); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	id, name, err := claimID(convs, loc.Root, conversation.NewID(now), f, nc.Title)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(convs, name)
	unlock := s.lockConv(loc.ID, id)
	defer unlock()
	// The claim is an empty directory: the files are moved into it,
	// metadata.json last (the marker of a conversation).
	for _, n := range []string{eventsFile, localDir, localMetaFile, metadataFile} {
		err := os.Rename(filepath.Join(stage, n), filepath.Join(dir, n))
		if err != nil && !(isNotExist(err) && (n == localMetaFile || n == localDir)) {
			_ = os.RemoveAll(dir)
			return "", fmt.Errorf("create conversation %s: %w", id, err)
		}
	}
	placed = true
	_ = os.Remove(stage)
	if err := s.syncDir(dir); err != nil {
		return "", err
	}
	if err := s.syncDir(convs); err != nil {
		return "", err
	}
	if nc.Local || loc.Root == "" {
		return id, nil
	}
	if err := s.projectFiles(filepath.Join(projConvs(loc.Root), name), id, dir, nil); err != nil {
		// As Create: a conversation that cannot be projected is not made.
		_ = os.RemoveAll(dir)
		return "", err
	}
	return id, nil
}

// ScanEventHeaders implements ports.EventHeaderScanner: ScanEvents with
// events.json read by eventcodec.EachEventHeaderRead, whose events keep
// their stored bytes in Raw (on one line: an event stored on more than
// one is decoded whole), which stageEvents copies as they are. A fork of
// a 200 MB conversation then checks what its invariants need (IDs, call
// IDs and names, turn starts and ends, outcomes, timestamps) without
// decoding 200 MB of messages.
func (s *Store) ScanEventHeaders(ctx context.Context, loc workspace.Location, id conversation.ID, fn func(conversation.Event) error) error {
	return s.scanEvents(ctx, loc, id, fn, scanMode{light: true})
}

// stageEvents writes events.json at path from the events fill adds,
// checking each against the stream's invariants, and syncs it. It returns
// the number of events, and the content of their Local attachments, which
// events.json holds as references only.
func (s *Store) stageEvents(ctx context.Context, path string, f conversation.Format, fill func(add func(conversation.Event) error) error) (int, []keptContent, error) {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, nil, fmt.Errorf("create conversation: %w", err)
	}
	defer func() { _ = out.Close() }()
	stream, err := conversation.NewStream(nil)
	if err != nil {
		return 0, nil, fmt.Errorf("create conversation: %w", err)
	}
	bw := bufio.NewWriterSize(out, 256<<10)
	_ = bw.WriteByte('[')
	var werr error // a write error, kept to be returned after fill
	var kept []keptContent
	add := func(e conversation.Event) error {
		if werr != nil {
			return werr
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := stream.Apply(e); err != nil {
			return fmt.Errorf("create conversation: event %q: %w", e.ID, err)
		}
		if evs, k := keepLocal([]conversation.Event{e}); len(k) > 0 {
			e, kept = evs[0], append(kept, k...)
		}
		if stream.Len() > 1 {
			_ = bw.WriteByte(',')
		}
		_ = bw.WriteByte('\n')
		if len(e.Raw) > 0 && bytes.IndexByte(e.Raw, '\n') < 0 {
			// An event read from a file, stored on one line: copied as
			// it is (StoredLine would only compact it again).
			_, err := bw.Write(e.Raw)
			if err != nil {
				werr = fmt.Errorf("create conversation: write %s: %w", path, err)
			}
			return werr
		}
		l, err := eventcodec.Line(e, f)
		if err != nil {
			return fmt.Errorf("create conversation: encode event %q: %w", e.ID, err)
		}
		if _, err := l.WriteTo(bw); err != nil {
			werr = fmt.Errorf("create conversation: write %s: %w", path, err)
		}
		return werr
	}
	if err := fill(add); err != nil {
		return 0, nil, err
	}
	if werr != nil {
		return 0, nil, werr
	}
	if stream.Len() > 0 {
		_ = bw.WriteByte('\n')
	}
	_, _ = bw.WriteString("]\n")
	err = bw.Flush()
	if err == nil {
		err = s.syncFile(out)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, nil, fmt.Errorf("create conversation: write %s: %w", path, err)
	}
	return stream.Len(), kept, nil
}
