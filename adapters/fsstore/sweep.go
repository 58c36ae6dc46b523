package fsstore

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jpcli/jp/internal/atomicfile"
)

// What a killed write leaves is removed at the next write to the same
// directory, and only what is jp's own and old enough to be nobody's
// write in flight (atomicfile.StaleAge): temp files (atomicfile.Sweep) in
// roots/, active/ and a checkout's .jp/, and in a silo's conversations
// directory the staging directories of CreateFrom and the conversation
// directories that never got their metadata.json (sweepConvs).

// sweepConvs removes from a silo's conversations directory the debris of
// conversations whose creation was killed: CreateFrom's staging
// directories, and directories named like a conversation that hold no
// metadata.json (the file written last, which makes a conversation) and
// only files jp writes there, none changed for atomicfile.StaleAge. A
// directory holding a draft or any other file is left alone.
func sweepConvs(convs string) {
	names, err := readDirNames(convs)
	if err != nil {
		return
	}
	for _, n := range names {
		staging := strings.HasPrefix(n, stagingPrefix)
		if _, isConv := convID(n); !staging && !isConv {
			continue
		}
		dir := filepath.Join(convs, n)
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() || time.Since(fi.ModTime()) <= atomicfile.StaleAge {
			continue
		}
		if staging && allOld(dir) || unfinishedConv(dir) {
			_ = os.RemoveAll(dir)
		}
	}
}

// allOld reports whether nothing in dir changed for atomicfile.StaleAge:
// a staging directory being filled has a file written as it goes.
func allOld(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) <= atomicfile.StaleAge {
			return false
		}
	}
	return true
}

// unfinishedConv reports whether dir is a conversation directory whose
// creation never finished: no metadata.json, and nothing but files a
// creation writes (events.json, metadata.local.json, their temp files),
// none changed for atomicfile.StaleAge.
func unfinishedConv(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		n := e.Name()
		if n != eventsFile && n != localMetaFile && !atomicfile.IsTemp(n, "") {
			return false // metadata.json, a draft, a file someone put there
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() || time.Since(fi.ModTime()) <= atomicfile.StaleAge {
			return false
		}
	}
	return true
}
