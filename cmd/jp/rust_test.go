package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
)

// rustFixture is the hand-written Rust jp workspace the fsstore tests use
// too.
const rustFixture = "../../adapters/fsstore/testdata/rustws.txtar"

// rustws DIR writes the Rust jp workspace fixture into DIR.
func cmdRustWorkspace(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: rustws DIR")
	}
	ar, err := txtar.ParseFile(rustFixture)
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, f.Data, 0o644))
	}
}

// keptevents ORIG NOW fails unless every event of the events.json ORIG is,
// as a JSON value, the event at the same position of NOW, and NOW has more.
func cmdKeptEvents(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: keptevents ORIG NOW")
	}
	read := func(name string) []json.RawMessage {
		var out []json.RawMessage
		if err := json.Unmarshal([]byte(ts.ReadFile(name)), &out); err != nil {
			ts.Fatalf("%s: %v", name, err)
		}
		return out
	}
	orig, now := read(args[0]), read(args[1])
	if len(now) <= len(orig) {
		ts.Fatalf("%s has %d events, want more than the %d of %s", args[1], len(now), len(orig), args[0])
	}
	for i := range orig {
		var a, b any
		da, db := json.NewDecoder(bytes.NewReader(orig[i])), json.NewDecoder(bytes.NewReader(now[i]))
		da.UseNumber()
		db.UseNumber()
		if da.Decode(&a) != nil || db.Decode(&b) != nil || !reflect.DeepEqual(a, b) {
			ts.Fatalf("event %d changed:\n was %s\n now %s", i, orig[i], now[i])
		}
	}
}
