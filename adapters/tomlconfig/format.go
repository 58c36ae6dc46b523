package tomlconfig

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"
)

// Format implements ports.ConfigEditor: it lays file out as jp config fmt
// does (formatTOML) and, unless check, writes it back atomically when that
// changes it. A missing file is an error wrapping fs.ErrNotExist.
func (Editor) Format(ctx context.Context, file string, check bool) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("%s: %w", file, fs.ErrNotExist)
	}
	if err != nil {
		return false, fmt.Errorf("read configuration file %s: %w", file, err)
	}
	out, err := formatTOML(file, data)
	if err != nil {
		return false, err
	}
	if string(out) == string(data) {
		return false, nil
	}
	if check {
		return true, nil
	}
	return true, writeAtomic(file, out)
}

// formatTOML lays a TOML file out the one way: no indentation outside
// arrays and inline tables spread over lines (four spaces a level inside
// them), "key = value" with one space either side of "=", dotted keys and
// table headers without spaces, no trailing spaces, one blank line at
// most between lines, one blank line before each table header (above the
// comments that lead into it), and one newline at the end. Comments and
// the order of keys stay as written; multi-line strings are left alone.
// The result must parse to the same values as data, or it is refused.
func formatTOML(source string, data []byte) ([]byte, error) {
	before, err := parseTOML(source, data)
	if err != nil {
		return nil, err
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	var out []string
	var sc tomlScanner
	blank := false
	for _, line := range strings.Split(text, "\n") {
		if sc.inMultiline() {
			// Inside a multi-line string: verbatim.
			sc.scan(line)
			out = append(out, line)
			continue
		}
		depth := sc.depth
		trimmed := strings.TrimSpace(line)
		sc.scan(line)
		if trimmed == "" {
			blank = len(out) > 0
			continue
		}
		switch {
		case depth > 0:
			indent := depth
			if trimmed[0] == ']' || trimmed[0] == '}' {
				indent--
			}
			if trimmed[0] != '#' {
				code, comment := splitComment(trimmed)
				trimmed = code + comment
			}
			trimmed = strings.Repeat("    ", indent) + trimmed
		case trimmed[0] == '[':
			trimmed = headerLine(trimmed)
			// One blank line before the header, above the comments
			// that lead into it.
			at := len(out)
			for at > 0 && strings.HasPrefix(out[at-1], "#") {
				at--
			}
			if at > 0 && out[at-1] != "" {
				out = append(out[:at], append([]string{""}, out[at:]...)...)
			}
		case trimmed[0] != '#':
			trimmed = keyValueLine(trimmed)
		}
		if blank && len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
		blank = false
		out = append(out, trimmed)
	}
	formatted := strings.Join(out, "\n")
	if formatted != "" {
		formatted += "\n"
	}
	after, err := parseTOML(source, []byte(formatted))
	if err != nil || !reflect.DeepEqual(before, after) {
		return nil, fmt.Errorf("%s: jp config fmt cannot lay this file out without changing what it says; the file is left as it is", source)
	}
	return []byte(formatted), nil
}

// headerLine is a table header without spaces outside quotes, its comment
// kept after one space.
func headerLine(line string) string {
	code, comment := splitComment(line)
	return squeeze(code) + comment
}

// keyValueLine is "key = value", the key without spaces outside quotes
// (around the dots of a dotted key), its comment kept after one space.
// A line that is not a key/value pair is returned trimmed.
func keyValueLine(line string) string {
	eq := indexOutsideQuotes(line, '=')
	if eq < 0 {
		return strings.TrimRight(line, " \t")
	}
	key := squeeze(line[:eq])
	value := strings.TrimSpace(line[eq+1:])
	if value == "" {
		return key + " ="
	}
	code, comment := splitComment(value)
	return key + " = " + strings.TrimRight(code, " \t") + comment
}

// splitComment splits line at a # outside quotes: the code, trimmed at its
// end, and " # ..." (or "").
func splitComment(line string) (string, string) {
	i := indexOutsideQuotes(line, '#')
	if i < 0 {
		return strings.TrimRight(line, " \t"), ""
	}
	return strings.TrimRight(line[:i], " \t"), " " + strings.TrimRight(line[i:], " \t")
}

// squeeze drops the spaces and tabs outside quotes.
func squeeze(s string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' && i+1 < len(s) {
				b.WriteByte(c)
				i++
				c = s[i]
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ' ' || c == '\t':
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// indexOutsideQuotes is the index of the first c in s outside a string.
func indexOutsideQuotes(s string, c byte) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch {
		case quote != 0:
			if s[i] == '\\' && quote == '"' {
				i++
			} else if s[i] == quote {
				quote = 0
			}
		case s[i] == '"' || s[i] == '\'':
			quote = s[i]
		case s[i] == c:
			return i
		}
	}
	return -1
}

// tomlScanner follows, line by line, whether a multi-line string is open
// and how deep arrays and inline tables are nested.
type tomlScanner struct {
	ml    string // `"""` or `'''` while a multi-line string is open
	depth int
}

func (s *tomlScanner) inMultiline() bool { return s.ml != "" }

func (s *tomlScanner) scan(line string) {
	for i := 0; i < len(line); i++ {
		if s.ml != "" {
			if s.ml == `"""` && line[i] == '\\' {
				i++
				continue
			}
			if strings.HasPrefix(line[i:], s.ml) {
				// A closing delimiter may carry up to two more quotes.
				i += 2
				for i+1 < len(line) && line[i+1] == s.ml[0] {
					i++
				}
				s.ml = ""
			}
			continue
		}
		c := line[i]
		switch {
		case c == '#':
			return
		case strings.HasPrefix(line[i:], `"""`), strings.HasPrefix(line[i:], `'''`):
			s.ml = line[i : i+3]
			i += 2
		case c == '"' || c == '\'':
			for i++; i < len(line) && line[i] != c; i++ {
				if c == '"' && line[i] == '\\' {
					i++
				}
			}
		case c == '[' || c == '{':
			s.depth++
		case c == ']' || c == '}':
			if s.depth > 0 {
				s.depth--
			}
		}
	}
	// A table header's brackets close on its line; a key's value array
	// may not.
}
