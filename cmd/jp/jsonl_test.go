package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdQueryEvents (testscript: queryevents FILE) checks that FILE, the
// stdout of jp q --format json, validates line by line against the
// committed docs/query-events.schema.json, opens with one start record and
// closes with one end record.
func cmdQueryEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: queryevents FILE")
	}
	schemaBytes, err := os.ReadFile(queryEventsSchema)
	ts.Check(err)
	var s jsonschema.Schema
	ts.Check(json.Unmarshal(schemaBytes, &s))
	rs, err := s.Resolve(nil)
	ts.Check(err)
	data := ts.ReadFile(args[0]) // "stdout" is the last command's stdout
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	if len(lines) < 2 {
		ts.Fatalf("%s: %d lines, want at least a start and an end record", args[0], len(lines))
	}
	for i, l := range lines {
		var v any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			ts.Fatalf("line %d is not JSON: %v: %s", i+1, err, l)
		}
		if err := rs.Validate(v); err != nil {
			ts.Fatalf("line %d does not match the schema: %v: %s", i+1, err, l)
		}
		typ := v.(map[string]any)["type"]
		switch {
		case i == 0 && typ != "start":
			ts.Fatalf("line 1 is %v, want start", typ)
		case i == len(lines)-1 && typ != "end":
			ts.Fatalf("last line is %v, want end", typ)
		case i > 0 && i < len(lines)-1 && (typ == "start" || typ == "end"):
			ts.Fatalf("line %d is a second %v record", i+1, typ)
		}
	}
}

// queryEventsSchema is the committed JSON Schema of jp q --format json.
const queryEventsSchema = "../../docs/query-events.schema.json"

// TestDocsScriptingExample validates every line of docs/scripting.md's
// jsonl example against the committed schema, so the documented example
// cannot drift from what the schema allows.
func TestDocsScriptingExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/scripting.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```jsonl\n")
	if !ok {
		t.Fatal("docs/scripting.md has no jsonl example")
	}
	block, _, _ = strings.Cut(block, "```")
	schemaBytes, err := os.ReadFile(queryEventsSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schemaBytes, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(strings.TrimSpace(block), "\n") {
		var v any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if err := rs.Validate(v); err != nil {
			t.Errorf("line %d: %v", i+1, err)
		}
	}
}
