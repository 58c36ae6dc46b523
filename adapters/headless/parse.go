package headless

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// permissionTopicPrefix is the Topic of the tool permission prompt, before
// the tool name.
const permissionTopicPrefix = "tool_permission:"

// reservedKeywords are words kept for later versions of the format. A
// script using one fails to load instead of being half understood.
var reservedKeywords = map[string]string{
	"expect": `output expectations ("expect ...") are not supported yet`,
}

// isHeredocTag reports whether tag can end a "<<TAG" value: a letter or
// '_', then letters, digits and '_'.
func isHeredocTag(tag string) bool {
	for i := 0; i < len(tag); i++ {
		c := tag[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return tag != ""
}

// parser reads a script's lines.
type parser struct {
	name  string
	lines []string
	i     int // index of the next line to read
}

// parseScript parses script text; name is used in error messages.
func parseScript(name, text string) ([]step, error) {
	p := &parser{name: name, lines: strings.Split(text, "\n")}
	if len(p.lines) > 0 && p.lines[len(p.lines)-1] == "" {
		p.lines = p.lines[:len(p.lines)-1]
	}
	var steps []step
	for p.i < len(p.lines) {
		lineNo := p.i + 1
		line := strings.TrimSpace(strings.TrimSuffix(p.lines[p.i], "\r"))
		p.i++
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := p.parseStep(line, lineNo)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s", p.name, lineNo, err)
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// parseStep parses one step starting on line lineNo.
func (p *parser) parseStep(line string, lineNo int) (step, error) {
	word, rest := cutWord(line)
	if msg, ok := reservedKeywords[word]; ok {
		return step{}, fmt.Errorf("%s", msg)
	}
	s := step{line: lineNo}
	if word == "after" || word == "during" || word == "at" {
		return s, parseTrigger(&s, word, rest)
	}
	for k, kw := range keywords {
		if kw == word {
			s.kind = k
		}
	}
	switch s.kind {
	case stepConfirm, stepSelect, stepText, stepSecret, stepCompose:
		s.target = targetNames[word]
		if strings.HasPrefix(rest, "@") {
			var m string
			m, rest = cutWord(rest)
			if err := s.setMatch(m); err != nil {
				return s, err
			}
		}
		return s, p.parseAnswer(&s, word, rest)
	case stepPermission:
		return s, parsePermission(&s, rest)
	case stepCancel, stepInterrupt, stepUnavailable:
		return s, parseOutcome(&s, word, rest)
	}
	return s, fmt.Errorf("unknown step %q: expected one of confirm, select, text, secret, permission, compose, cancel, interrupt, unavailable, after, during, at", word)
}

// setMatch sets the @PATTERN of a step.
func (s *step) setMatch(word string) error {
	m := strings.TrimPrefix(word, "@")
	if m == "" {
		return fmt.Errorf("%q: a topic or purpose must follow @", word)
	}
	if _, err := path.Match(m, ""); err != nil {
		return fmt.Errorf("bad pattern %q: %v", word, err)
	}
	s.match = m
	return nil
}

// parseAnswer reads the answer of confirm, select, text, secret and
// compose steps.
func (p *parser) parseAnswer(s *step, word, rest string) error {
	if s.kind == stepConfirm {
		switch strings.ToLower(rest) {
		case "yes", "y", "true":
			s.yes = true
		case "no", "n", "false":
		default:
			return fmt.Errorf("confirm needs yes or no, got %q", rest)
		}
		return nil
	}
	if s.kind == stepCompose {
		switch rest {
		case "keep":
			s.compose = composeKeep
			return nil
		case "empty":
			s.compose = composeEmpty
			return nil
		}
	}
	if rest == "" {
		hint := `use "" for an empty answer`
		if s.kind == stepCompose {
			hint = `use keep, empty, "TEXT" or <<END`
		}
		return fmt.Errorf("%s needs a value (%s)", word, hint)
	}
	v, err := p.parseValue(rest)
	if err != nil {
		return err
	}
	s.value = v
	return nil
}

// parseValue reads a bare, quoted or heredoc value.
func (p *parser) parseValue(rest string) (string, error) {
	switch {
	case strings.HasPrefix(rest, `"`), strings.HasPrefix(rest, "`"):
		v, err := strconv.Unquote(rest)
		if err != nil {
			return "", fmt.Errorf("bad quoted value %s: use Go string syntax, for example \"two\\nlines\"", rest)
		}
		return v, nil
	case strings.HasPrefix(rest, "<<"):
		return p.heredoc(strings.TrimSpace(rest[2:]))
	}
	return rest, nil
}

// heredoc reads lines up to a line holding only tag. The value is the lines
// between, joined with "\n", without a final newline.
func (p *parser) heredoc(tag string) (string, error) {
	if !isHeredocTag(tag) {
		return "", fmt.Errorf("bad heredoc tag %q: use a word such as <<END", tag)
	}
	var body []string
	for p.i < len(p.lines) {
		line := strings.TrimSuffix(p.lines[p.i], "\r")
		p.i++
		if strings.TrimSpace(line) == tag {
			return strings.Join(body, "\n"), nil
		}
		body = append(body, line)
	}
	return "", fmt.Errorf("<<%s is never closed: end the text with a line holding only %s", tag, tag)
}

// parsePermission reads "permission TOOL KEY".
func parsePermission(s *step, rest string) error {
	tool, key := cutWord(rest)
	if tool == "" || key == "" || strings.ContainsAny(key, " \t") {
		return fmt.Errorf("permission needs a tool name and a key: permission TOOL y|Y|n|N (TOOL may be * or a pattern)")
	}
	switch key {
	case "y", "Y", "n", "N", "e", "c", "w":
	default:
		return fmt.Errorf("permission key %q: expected y (run), Y (run, remember), n (skip), N (skip, remember), e (edit the arguments), c (always for this conversation) or w (always for this workspace); keys are case-sensitive", key)
	}
	s.target = targetSelect
	s.value = key
	return s.setMatch(permissionTopicPrefix + tool)
}

// parseOutcome reads "cancel|interrupt|unavailable [KIND] [@PATTERN]".
func parseOutcome(s *step, word, rest string) error {
	for rest != "" {
		var w string
		w, rest = cutWord(rest)
		switch {
		case strings.HasPrefix(w, "@") && s.match == "":
			if err := s.setMatch(w); err != nil {
				return err
			}
		case s.target == targetAny && s.match == "" && targetNames[w] != targetAny:
			s.target = targetNames[w]
		default:
			return fmt.Errorf("%s takes an optional kind (confirm, select, text, secret, compose) and an optional @PATTERN, got %q", word, w)
		}
	}
	return nil
}

// cutWord splits s at its first run of blanks.
func cutWord(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}
