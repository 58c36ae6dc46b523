package demo

import (
	"errors"
	"strings"
	"testing"
)

func TestScriptErrorPositions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		body      string
		line, col int
		msg       string
	}{
		{"trailing comma", "{\"responses\": [\n  {\"events\": [{\"text\": \"a\",}]}\n]}", 2, 28, "invalid character '}'"},
		{"double comma", "{\"responses\": [\n  {\"events\": [{\"text\": \"hi\"},, ]}\n]}", 2, 30, "invalid character ','"},
		{"truncated", "{\"responses\": [\n  {\"events\": [{\"text\": \"a\"}]}\n", 3, 1, "unexpected end of file"},
		{"not an object", "[1]", 1, 1, "must be a JSON object"},
		{"unknown top key", "{\n  \"response\": []\n}", 2, 3, `unknown key "response"`},
		{"unknown response key", "{\"responses\": [{\"event\": []}]}", 1, 17, `unknown response key "event"`},
		{"unknown event key", "{\"responses\": [{\"events\": [\n  {\"text\": \"a\"},\n  {\"txt\": \"b\"}\n]}]}", 3, 4, `unknown event key "txt"`},
		{"two kinds", "{\"responses\": [{\"events\": [{\"text\": \"a\", \"reasoning\": \"b\"}]}]}", 1, 28, "this one has reasoning and text"},
		{"bad repeat", "{\"responses\": [{\"events\": [{\"text\": \"a\", \"repeat\": \"3\"}]}]}", 1, 42, `"repeat" must be a whole number`},
		{"negative sleep", "{\"responses\": [{\"events\": [{\"text\": \"a\", \"sleep_ms\": -5}]}]}", 1, 42, `"sleep_ms" must be 0 or more`},
		{"bad error kind", "{\"responses\": [{\"events\": [{\"error\": \"boom\"}]}]}", 1, 29, `not "boom"`},
		{"message without error", "{\"responses\": [{\"events\": [{\"text\": \"a\", \"message\": \"m\"}]}]}", 1, 42, "belongs to an error event"},
		{"tool call without name", "{\"responses\": [{\"events\": [{\"tool_call\": {\"arguments\": {}}}]}]}", 1, 29, `needs a "name"`},
		{"tool call typo", "{\"responses\": [{\"events\": [{\"tool_call\": {\"name\": \"x\", \"args\": {}}}]}]}", 1, 29, `unknown key "args"`},
		{"tool arguments not an object", "{\"responses\": [{\"events\": [{\"tool_call\": {\"name\": \"x\", \"arguments\": [1]}}]}]}", 1, 56, "must be a JSON object"},
		{"empty event", "{\"responses\": [{\"events\": [{}]}]}", 1, 28, "needs one of"},
		{"event not an object", "{\"responses\": [{\"events\": [\"hi\"]}]}", 1, 28, "must be an object"},
		{"data after the object", "{\"responses\": []} {}", 1, 19, "unexpected data after"},
		{"column counts characters", "{\"responses\": [{\"events\": [{\"text\": \"héllo\"}, {\"tèxt\": 1}]}]}", 1, 48, `unknown event key "tèxt"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeScript(t, tc.body)
			_, err := New(Options{ScriptPath: path})
			var se *ScriptError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want *ScriptError", err, err)
			}
			if se.Path != path || se.Line != tc.line || se.Column != tc.col || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("got %d:%d %q, want %d:%d containing %q", se.Line, se.Column, se.Msg, tc.line, tc.col, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "demo script "+path+":") {
				t.Errorf("message %q does not name the file", err.Error())
			}
		})
	}
}

func TestSpecExampleParses(t *testing.T) {
	// The example script of docs/demo-model.md, verbatim.
	_, err := New(Options{ScriptPath: writeScript(t, `{ "responses": [
    { "events": [ {"text": "Hello"}, {"sleep_ms": 50}, {"text": " world"} ] },
    { "events": [ {"text": "word ", "repeat": 400, "sleep_ms": 25} ] },
    { "events": [ {"reasoning": "thinking..."},
                  {"tool_call": {"name": "fs_read", "arguments": {"path": "a.txt"}}} ] },
    { "events": [ {"error": "transient", "message": "overloaded"} ] },
    { "events": [ {"error": "fatal", "message": "invalid request"} ] }
] }`)})
	if err != nil {
		t.Fatal(err)
	}
}
