package fsstore

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"

	"github.com/jpcli/jp/adapters/eventcodec"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/internal/atomicfile"
)

// The history snapshot (docs/storage.md, "The history snapshot"): the
// decoded events of a prefix of a user-local events.json, kept beside it
// in history.snap, so that a turn on a long conversation decodes only
// what was added since. It is split in blocks of about a megabyte of
// events.json; each block records the CRC-32C of the bytes it covers,
// which are read and checked before any of its events is given: the
// events of a block that does not match, and of every block after it, are
// decoded from events.json as when there is no snapshot. A snapshot that
// does not read (cut, another version, not a file) is ignored. So it is
// never wrong, and deleting it is always safe; it is a cache, written by
// rename without fsync (a power cut leaves an old or a broken one, and a
// broken one is ignored).
const (
	historySnapFile = "history.snap"
	snapMagic       = "jp history snapshot\n"
	snapVersion     = 1
	// snapBlockSize is the events.json bytes a block covers (at least).
	snapBlockSize = 1 << 20
	// snapMinSize is the smallest events.json a snapshot is made for:
	// decoding less costs less than reading the snapshot.
	snapMinSize = 64 << 10
	// snapTailShare: the snapshot is rewritten when the part of
	// events.json decoded past it exceeds snapMinSize and 1/snapTailShare
	// of what it covers (see snapBuilder.due).
	snapTailShare = 64
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// eventShape is a hash of conversation.Event's fields, recorded in a
// snapshot: one made by a jp whose events had other fields is rebuilt.
// (A change of how events are decoded that keeps their fields bumps
// snapVersion.)
var eventShape = sync.OnceValue(func() uint64 {
	h := fnv.New64a()
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for f := range t.Fields() {
			fmt.Fprintf(h, "%s %s;", f.Name, f.Type)
			if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == t.PkgPath() {
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeFor[conversation.Event]())
	walk(reflect.TypeFor[conversation.Usage]())
	return h.Sum64()
})

// snapBlock is one block: events.json's bytes [start, end), their CRC,
// and the records (snapshot_codec.go) of the count events they hold.
type snapBlock struct {
	start, end int64
	crc        uint32
	count      int
	recs       []byte
}

// readSnapshot reads dir's snapshot, nil when there is none or it does
// not read (it is then rebuilt).
func readSnapshot(dir string) []snapBlock {
	path := filepath.Join(dir, historySnapFile)
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) < len(snapMagic)+4 || !bytes.HasPrefix(b, []byte(snapMagic)) {
		return nil
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil
	}
	r := recReader{recs: body, pos: len(snapMagic)}
	if r.uvarint() != snapVersion || r.uvarint() != eventShape() {
		return nil
	}
	n := r.uvarint()
	if r.err || n > uint64(len(body)) {
		return nil
	}
	blocks := make([]snapBlock, 0, n)
	for i := uint64(0); i < n; i++ {
		blk := snapBlock{start: int64(r.uvarint()), end: int64(r.uvarint()), crc: uint32(r.uvarint()), count: int(r.uvarint())}
		size := r.uvarint()
		if r.err || size > uint64(len(body)-r.pos) || blk.start < 0 || blk.end <= blk.start || blk.count <= 0 ||
			(i == 0 && blk.start != 0) || (i > 0 && blk.start != blocks[i-1].end) {
			return nil
		}
		blk.recs = body[r.pos : r.pos+int(size)]
		r.pos += int(size)
		blocks = append(blocks, blk)
	}
	if r.pos != len(body) {
		return nil
	}
	return blocks
}

// writeSnapshot writes the snapshot of blocks to w: its header, each
// block's header and records, and the CRC-32C of all that.
func writeSnapshot(w io.Writer, blocks []snapBlock) error {
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 64<<10)
	head := []byte(snapMagic)
	head = binary.AppendUvarint(head, snapVersion)
	head = binary.AppendUvarint(head, eventShape())
	head = binary.AppendUvarint(head, uint64(len(blocks)))
	_, _ = bw.Write(head)
	for _, b := range blocks {
		head = head[:0]
		for _, v := range []uint64{uint64(b.start), uint64(b.end), uint64(b.crc), uint64(b.count), uint64(len(b.recs))} {
			head = binary.AppendUvarint(head, v)
		}
		_, _ = bw.Write(head)
		_, _ = bw.Write(b.recs)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	return err
}

// snapReplay gives fn the events of blocks that still match f (an open
// events.json), in order, and returns where in f the events not given
// start and how many were given. It stops at the first block that does
// not match (or does not read); only fn's errors are returned. With
// reuse, the blocks are read into one buffer: an event is valid only
// until fn returns.
func snapReplay(f *os.File, blocks []snapBlock, fn func(conversation.Event) error, reuse bool) (valid []snapBlock, end int64, n int, err error) {
	var evs []conversation.Event
	var buf []byte
	for i, blk := range blocks {
		switch size := int(blk.end - blk.start); {
		case !reuse:
			buf = make([]byte, size)
		case cap(buf) >= size:
			buf = buf[:size]
		default:
			buf = make([]byte, size, max(size, 2*snapBlockSize))
		}
		if _, err := f.ReadAt(buf, blk.start); err != nil || crc32.Checksum(buf, castagnoli) != blk.crc {
			return blocks[:i], blk.start, n, nil
		}
		evs = slices.Grow(evs[:0], blk.count)[:blk.count]
		r := recReader{recs: blk.recs, blk: buf}
		for k := range evs {
			if r.next(&evs[k]) != nil {
				return blocks[:i], blk.start, n, nil
			}
		}
		if r.pos != len(r.recs) || r.end != len(buf) {
			return blocks[:i], blk.start, n, nil
		}
		for k := range evs {
			evs[k].FillID(n)
			if err := fn(evs[k]); err != nil {
				return nil, 0, 0, err
			}
			n++
		}
	}
	if len(blocks) == 0 {
		return nil, 0, 0, nil
	}
	return blocks, blocks[len(blocks)-1].end, n, nil
}

// snapBuilder makes the blocks of the events decoded past a snapshot's
// valid blocks, and writes the snapshot when it is due.
type snapBuilder struct {
	dir     string
	f       *os.File
	valid   []snapBlock // of the snapshot read
	from    int64       // where the events decoded start
	blocks  []snapBlock // made of the events decoded
	cur     snapBlock
	rawCRC  uint32 // of the current block's events' Raw, as decoded
	raws    [][2]int64
	scratch []byte // the bytes of a block read again (closeBlock)
	broken  bool   // an event without its offset: no snapshot
}

// add records the next event decoded, whose stored form is at off in f.
func (b *snapBuilder) add(e *conversation.Event, off int64) {
	if b.broken || off < 0 || e.Raw == nil {
		b.broken = true
		return
	}
	if b.cur.count == 0 {
		b.cur = snapBlock{start: b.from, end: b.from}
		if n := len(b.blocks); n > 0 {
			b.cur.start, b.cur.end = b.blocks[n-1].end, b.blocks[n-1].end
		}
	}
	b.cur.recs = appendRecord(b.cur.recs, e, int(off-b.cur.end))
	b.rawCRC = crc32.Update(b.rawCRC, castagnoli, e.Raw)
	b.raws = append(b.raws, [2]int64{off - b.cur.start, int64(len(e.Raw))})
	b.cur.end = off + int64(len(e.Raw))
	b.cur.count++
	if b.cur.end-b.cur.start >= snapBlockSize {
		b.closeBlock()
	}
}

// closeBlock ends the current block: its bytes are read again from f and
// checked against the events' Raw as decoded (f is only ever replaced,
// never written in place, but a block that does not match is dropped).
func (b *snapBuilder) closeBlock() {
	if b.cur.count == 0 || b.broken {
		return
	}
	b.scratch = slices.Grow(b.scratch[:0], int(b.cur.end-b.cur.start))[:b.cur.end-b.cur.start]
	buf := b.scratch // one buffer for every block
	if _, err := b.f.ReadAt(buf, b.cur.start); err != nil {
		b.broken = true
		return
	}
	var crc uint32
	for _, r := range b.raws {
		crc = crc32.Update(crc, castagnoli, buf[r[0]:r[0]+r[1]])
	}
	if crc != b.rawCRC {
		b.broken = true
		return
	}
	b.cur.crc = crc32.Checksum(buf, castagnoli)
	b.blocks = append(b.blocks, b.cur)
	b.cur, b.rawCRC, b.raws = snapBlock{}, 0, b.raws[:0]
}

// due reports whether the snapshot should be rewritten now that end of
// events.json was read: never for a small one; when there is none, or
// when the part decoded past it is a sizeable share of what it covers.
// Reading a snapshot costs about the same at any age, and decoding the
// part past it grows with every turn, so rewriting it every 1/64 of the
// conversation (a megabyte at 100,000 events of ~150 bytes) bounds what a
// turn decodes without rewriting it on every turn.
func (b *snapBuilder) due(end int64) bool {
	if b.broken || end < snapMinSize {
		return false
	}
	return end-b.from > max(snapMinSize, b.from/snapTailShare)
}

// finish writes the snapshot when it is due. Errors are ignored: without
// a snapshot (a read-only data directory) reads decode events.json.
func (b *snapBuilder) finish() {
	end := b.cur.end
	if b.cur.count == 0 && len(b.blocks) > 0 {
		end = b.blocks[len(b.blocks)-1].end
	}
	if !b.due(end) {
		return
	}
	b.closeBlock()
	if b.broken {
		return
	}
	blocks := append(b.valid[:len(b.valid):len(b.valid)], b.blocks...)
	_ = atomicfile.ReplaceFunc(filepath.Join(b.dir, historySnapFile),
		atomicfile.Options{Perm: 0o600, Sync: func(*os.File) error { return nil }},
		func(f *os.File) error { return writeSnapshot(f, blocks) })
}

// jsonEvents gives fn the events of the user-local events.json f of dir:
// those a snapshot still matching it holds from the snapshot, the rest
// decoded from f; it then rewrites the snapshot when that is due. With
// transient, the events are valid only until fn returns.
func jsonEvents(dir string, f *os.File, fn func(conversation.Event) error, transient bool) error {
	valid, start, n, err := snapReplay(f, readSnapshot(dir), fn, transient)
	if err != nil {
		return err
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return err
	}
	b := snapBuilder{dir: dir, f: f, valid: valid, from: start}
	err = eventcodec.EachEventReadAt(f, start, n, func(e conversation.Event, off int64) error {
		b.add(&e, off)
		return fn(e)
	})
	if err != nil {
		return err
	}
	b.finish()
	return nil
}
