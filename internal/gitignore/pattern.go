// Package gitignore is jp's one .gitignore-aware directory walker: what
// `jp q -a DIR` attaches and what the built-in tools fs_list_files and
// fs_grep_files see. It follows git's rules for .gitignore files and
// .git/info/exclude (docs/ignored-files.md describes them for users).
package gitignore

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// pattern is one line of a .gitignore file.
type pattern struct {
	negate   bool // "!pattern": re-includes
	dirOnly  bool // "pattern/": matches directories only
	anchored bool // has a "/" before its end: matched against the path from the file's directory
	kind     matchKind
	lit      string // literal name or path (matchLiteral), suffix (matchSuffix)
	re       *regexp.Regexp
}

type matchKind uint8

const (
	matchLiteral matchKind = iota // the name (or path) equals lit
	matchSuffix                   // "*lit": the name ends with lit
	matchAll                      // "*" or "**"
	matchRegexp                   // anything else, as a regular expression
	matchNever                    // a malformed pattern, which git never matches
)

// parsePatterns reads the lines of a .gitignore (or info/exclude) file.
func parsePatterns(b []byte) []pattern {
	s := strings.TrimPrefix(string(b), "\uFEFF")
	var out []pattern
	for line := range strings.SplitSeq(s, "\n") {
		if p, ok := parsePattern(line); ok {
			out = append(out, p)
		}
	}
	return out
}

// parsePattern parses one line; ok is false for blank lines and comments.
func parsePattern(line string) (pattern, bool) {
	line = trimTrailingSpaces(strings.TrimSuffix(line, "\r"))
	if line == "" || line[0] == '#' {
		return pattern{}, false
	}
	var p pattern
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	if strings.Contains(line, "/") {
		p.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	if line == "" {
		return pattern{}, false
	}
	switch {
	case line == "*" || line == "**":
		p.kind = matchAll
	case !strings.ContainsAny(line, `*?[\`):
		p.kind, p.lit = matchLiteral, line
	case !p.anchored && line[0] == '*' && !strings.ContainsAny(line[1:], `*?[\`):
		p.kind, p.lit = matchSuffix, line[1:]
	default:
		expr, ok := translate(line)
		re, err := regexp.Compile(expr)
		if !ok || err != nil {
			p.kind = matchNever
			break
		}
		p.kind, p.re = matchRegexp, re
	}
	return p, true
}

// match reports whether p matches the entry named name at sub (its path
// from the directory of p's file).
func (p *pattern) match(sub, name string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	s := name
	if p.anchored {
		s = sub
	}
	switch p.kind {
	case matchLiteral:
		return s == p.lit
	case matchSuffix:
		return strings.HasSuffix(s, p.lit)
	case matchAll:
		return true
	case matchRegexp:
		return p.re.MatchString(s)
	}
	return false
}

// trimTrailingSpaces drops the spaces at the end of a line, except one
// escaped with a backslash.
func trimTrailingSpaces(s string) string {
	keep := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
		case '\\':
			i++
			keep = min(i+1, len(s))
		default:
			keep = i + 1
		}
	}
	return s[:keep]
}

// translate turns a wildmatch pattern (git's, with "/" special) into an
// anchored regular expression; ok is false for a pattern git never
// matches (an unclosed "[", a trailing "\").
func translate(p string) (string, bool) {
	var b strings.Builder
	b.WriteString(`^`)
	for i := 0; i < len(p); {
		switch c := p[i]; c {
		case '*':
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			whole := j-i >= 2 && (i == 0 || p[i-1] == '/') && (j == len(p) || p[j] == '/')
			switch {
			case !whole:
				b.WriteString(`[^/]*`)
			case j == len(p): // "dir/**": everything inside
				b.WriteString(`.*`)
			default: // "**/" at the start or "/**/": zero or more directories
				b.WriteString(`(?:.*/)?`)
				j++
			}
			i = j
		case '?':
			b.WriteString(`[^/]`)
			i++
		case '[':
			cls, n, ok := bracket(p[i:])
			if !ok {
				return "", false
			}
			b.WriteString(cls)
			i += n
		case '\\':
			if i+1 == len(p) {
				return "", false
			}
			r, n := utf8.DecodeRuneInString(p[i+1:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += 1 + n
		default:
			r, n := utf8.DecodeRuneInString(p[i:])
			b.WriteString(regexp.QuoteMeta(string(r)))
			i += n
		}
	}
	b.WriteString(`$`)
	return b.String(), true
}

// namedClasses are wildmatch's [:name:] classes (ASCII, as in the C
// locale git uses).
var namedClasses = map[string][][2]rune{
	"alnum":  {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}},
	"alpha":  {{'A', 'Z'}, {'a', 'z'}},
	"blank":  {{'\t', '\t'}, {' ', ' '}},
	"cntrl":  {{0, 0x1f}, {0x7f, 0x7f}},
	"digit":  {{'0', '9'}},
	"graph":  {{'!', '~'}},
	"lower":  {{'a', 'z'}},
	"print":  {{' ', '~'}},
	"punct":  {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}},
	"space":  {{'\t', '\r'}, {' ', ' '}},
	"upper":  {{'A', 'Z'}},
	"xdigit": {{'0', '9'}, {'A', 'F'}, {'a', 'f'}},
}

// bracket translates the "[...]" at the start of p into a regular
// expression class that never matches "/" and says how many bytes of p
// it took.
func bracket(p string) (string, int, bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	var ranges [][2]rune
	first := true
	for {
		if i >= len(p) {
			return "", 0, false
		}
		if p[i] == ']' && !first {
			i++
			break
		}
		first = false
		if strings.HasPrefix(p[i:], "[:") {
			end := strings.Index(p[i+2:], ":]")
			if end < 0 {
				return "", 0, false
			}
			cls, ok := namedClasses[p[i+2:i+2+end]]
			if !ok {
				return "", 0, false
			}
			ranges = append(ranges, cls...)
			i += 2 + end + 2
			continue
		}
		lo, n, ok := classChar(p[i:])
		if !ok {
			return "", 0, false
		}
		i += n
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			h, n, ok := classChar(p[i+1:])
			if !ok {
				return "", 0, false
			}
			hi = h
			i += 1 + n
		}
		if lo <= hi {
			ranges = append(ranges, [2]rune{lo, hi})
		}
	}
	var parts [][2]rune
	for _, r := range ranges {
		parts = append(parts, withoutSlash(r, negate)...)
	}
	if !negate && len(parts) == 0 {
		return `[^\x{0}-\x{10ffff}]`, i, true // a class of nothing matches nothing
	}
	var b strings.Builder
	b.WriteString("[")
	if negate {
		b.WriteString(`^/`)
	}
	for _, r := range parts {
		fmt.Fprintf(&b, `\x{%x}-\x{%x}`, r[0], r[1])
	}
	b.WriteString("]")
	return b.String(), i, true
}

// withoutSlash splits r around "/" unless the class is negated (then "/"
// is excluded already).
func withoutSlash(r [2]rune, negate bool) [][2]rune {
	if negate || r[0] > '/' || r[1] < '/' {
		return [][2]rune{r}
	}
	var out [][2]rune
	if r[0] < '/' {
		out = append(out, [2]rune{r[0], '/' - 1})
	}
	if r[1] > '/' {
		out = append(out, [2]rune{'/' + 1, r[1]})
	}
	return out
}

// classChar reads one (possibly escaped) character of a bracket class.
func classChar(p string) (rune, int, bool) {
	if p[0] == '\\' {
		if len(p) < 2 {
			return 0, 0, false
		}
		r, n := utf8.DecodeRuneInString(p[1:])
		return r, 1 + n, true
	}
	r, n := utf8.DecodeRuneInString(p)
	return r, n, true
}
