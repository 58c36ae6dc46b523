package pluginwire

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/jpcli/jp/domain/plugin"
)

// Hot messages (read_config and its answer, the round trip plugins make
// most) are written without reflection: appendFast writes exactly what
// json.Marshal would, or reports false to leave it to json.Marshal.
func appendFast(dst []byte, m plugin.Message) ([]byte, bool) {
	switch m := m.(type) {
	case plugin.ReadConfig:
		return appendReadConfig(dst, m)
	case plugin.Config:
		return appendConfig(dst, m)
	}
	return nil, false
}

func appendReadConfig(dst []byte, r plugin.ReadConfig) ([]byte, bool) {
	if r.Workspace != nil {
		return nil, false // addressed: the general encoder writes it
	}
	dst = append(dst, `{"type":"read_config"`...)
	dst, ok := appendField(dst, "id", r.ID)
	if !ok {
		return nil, false
	}
	if dst, ok = appendField(dst, "path", r.Path); !ok {
		return nil, false
	}
	return append(dst, '}'), true
}

func appendConfig(dst []byte, c plugin.Config) ([]byte, bool) {
	if len(c.Data) == 0 || !json.Valid(c.Data) || !compact(c.Data) {
		return nil, false
	}
	dst = append(dst, `{"type":"config"`...)
	dst, ok := appendField(dst, "id", c.ID)
	if !ok {
		return nil, false
	}
	if dst, ok = appendField(dst, "path", c.Path); !ok {
		return nil, false
	}
	dst = append(dst, `,"data":`...)
	dst = append(dst, c.Data...)
	return append(dst, '}'), true
}

// appendField appends ,"key":"value" for a non-empty value that needs no
// escaping.
func appendField(dst []byte, key, value string) ([]byte, bool) {
	if value == "" {
		return dst, true
	}
	if !plain(value) {
		return nil, false
	}
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':', '"')
	dst = append(dst, value...)
	return append(dst, '"'), true
}

// plain reports whether json.Marshal writes s as is between quotes.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// compact reports whether raw JSON has no insignificant white space (as
// json.Marshal would write it), outside strings.
func compact(b []byte) bool {
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			return false
		case !in && (c == '<' || c == '>' || c == '&'):
			return false
		case c >= utf8.RuneSelf || (in && (c == '<' || c == '>' || c == '&')):
			return false // json.Marshal would escape it
		}
	}
	return true
}

// Unmarshal decodes a message line into v, like json.Unmarshal, reading a
// config answer in the form Encode writes without reflection.
func Unmarshal(line []byte, v any) error {
	if c, ok := v.(*plugin.Config); ok && configFromJSON(c, line) {
		return nil
	}
	return json.Unmarshal(line, v)
}

// configFromJSON reads a config answer written by Encode into c; false
// leaves it to json.Unmarshal.
func configFromJSON(c *plugin.Config, line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte(`{"type":"config"`))
	if !ok {
		return false
	}
	var id, path string
	if r, ok := bytes.CutPrefix(rest, []byte(`,"id":"`)); ok {
		if id, rest, ok = plainString(r); !ok {
			return false
		}
	}
	if r, ok := bytes.CutPrefix(rest, []byte(`,"path":"`)); ok {
		if path, rest, ok = plainString(r); !ok {
			return false
		}
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"data":`)); !ok || !bytes.HasSuffix(rest, []byte("}")) {
		return false
	}
	data := rest[:len(rest)-1]
	if !json.Valid(data) { // also refuses a field after data
		return false
	}
	*c = plugin.Config{ID: id, Path: path, Data: append(json.RawMessage(nil), data...)}
	return true
}
