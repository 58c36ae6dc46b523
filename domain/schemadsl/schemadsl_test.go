package schemadsl

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct{ in, want string }{
		{"summary", `{"properties":{"summary":{"type":"string"}},"required":["summary"],"type":"object"}`},
		{"name, age int, active bool, score float", `{"properties":{"active":{"type":"boolean"},"age":{"type":"integer"},"name":{"type":"string"},"score":{"type":"number"}},"required":["name","age","active","score"],"type":"object"}`},
		{"a string, b integer, c number, d boolean, e str", `{"properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"number"},"d":{"type":"boolean"},"e":{"type":"string"}},"required":["a","b","c","d","e"],"type":"object"}`},
		{"summary: a brief two-sentence summary", `{"properties":{"summary":{"description":"a brief two-sentence summary","type":"string"}},"required":["summary"],"type":"object"}`},
		{"age int: the person's age in years", `{"properties":{"age":{"description":"the person's age in years","type":"integer"}},"required":["age"],"type":"object"}`},
		{"name\nage int\n", `{"properties":{"age":{"type":"integer"},"name":{"type":"string"}},"required":["name","age"],"type":"object"}`},
		{"  name  ,  age int  ,", `{"properties":{"age":{"type":"integer"},"name":{"type":"string"}},"required":["name","age"],"type":"object"}`},
		{"time: format: HH:MM:SS", `{"properties":{"time":{"description":"format: HH:MM:SS","type":"string"}},"required":["time"],"type":"object"}`},
		{`bar: "hello, universe", baz`, `{"properties":{"bar":{"description":"hello, universe","type":"string"},"baz":{"type":"string"}},"required":["bar","baz"],"type":"object"}`},
		{"baz: \"\"\"\na longer\ndescription\n\"\"\"", `{"properties":{"baz":{"description":"a longer\ndescription","type":"string"}},"required":["baz"],"type":"object"}`},
		{"?age \\\n   int", `{"properties":{"age":{"type":"integer"}},"type":"object"}`},
		{"d: one \\\n   two", `{"properties":{"d":{"description":"one two","type":"string"}},"required":["d"],"type":"object"}`},
		{"name, ?nickname", `{"properties":{"name":{"type":"string"},"nickname":{"type":"string"}},"required":["name"],"type":"object"}`},
		{"first_name, last-name, foo.bar, api/version", `{"properties":{"api/version":{"type":"string"},"first_name":{"type":"string"},"foo.bar":{"type":"string"},"last-name":{"type":"string"}},"required":["first_name","last-name","foo.bar","api/version"],"type":"object"}`},
		{`"my field" int, "items[0]"`, `{"properties":{"items[0]":{"type":"string"},"my field":{"type":"integer"}},"required":["my field","items[0]"],"type":"object"}`},
		{"data any", `{"properties":{"data":{}},"required":["data"],"type":"object"}`},
		{"names [string], items []", `{"properties":{"items":{"items":{},"type":"array"},"names":{"items":{"type":"string"},"type":"array"}},"required":["names","items"],"type":"object"}`},
		{"data [string|int]", `{"properties":{"data":{"items":{"anyOf":[{"type":"string"},{"type":"integer"}]},"type":"array"}},"required":["data"],"type":"object"}`},
		{"foo [string]|int", `{"properties":{"foo":{"anyOf":[{"items":{"type":"string"},"type":"array"},{"type":"integer"}]}},"required":["foo"],"type":"object"}`},
		{"address { city, ?zip }: the mailing address", `{"properties":{"address":{"description":"the mailing address","properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city"],"type":"object"}},"required":["address"],"type":"object"}`},
		{"people [{ name, ?age int }]", `{"properties":{"people":{"items":{"properties":{"age":{"type":"integer"},"name":{"type":"string"}},"required":["name"],"type":"object"},"type":"array"}},"required":["people"],"type":"object"}`},
		{`status "ok"|"error"|null`, `{"properties":{"status":{"enum":["ok","error",null]}},"required":["status"],"type":"object"}`},
		{"n 42|-1.5|true", `{"properties":{"n":{"enum":[42,-1.5,true]}},"required":["n"],"type":"object"}`},
		{`v "x"|int`, `{"properties":{"v":{"anyOf":[{"const":"x"},{"type":"integer"}]}},"required":["v"],"type":"object"}`},
		{`{"type":"object","properties":{"x":{"type":"string"}}}`, `{"type":"object","properties":{"x":{"type":"string"}}}`},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("Parse(%q)\n got %s\nwant %s", c.in, got, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("Parse(%q): invalid JSON %s", c.in, got)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "schema definition is empty"},
		{"   ", "schema definition is empty"},
		{", ,", "schema definition is empty"},
		{"name, age blorp", "unknown type 'blorp' at position 10"},
		{"{not valid json}", "invalid JSON schema"},
		{"address {}", "empty object types at position 8"},
		{"tags [string", "unterminated array starting at position 5"},
		{"a { b", "unterminated object starting at position 2"},
		{`a: "open`, "unterminated quoted string starting at position 3"},
		{`a: """never closed`, "unterminated heredoc starting at position 3"},
		{"?", "expected field name at position 1"},
		{"a ]", "expected field name at position 2"},
		{"n 99999999999999999999", "invalid number literal '99999999999999999999' at position 2"},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
}
