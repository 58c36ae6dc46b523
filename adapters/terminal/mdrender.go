package terminal

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jpcli/jp/internal/safetext"
)

// This file is the block half of the markdown renderer: it turns one
// markdown block, as the streaming logic in markdown.go hands it over,
// into ANSI-styled lines wrapped to the terminal width. It is a small,
// forgiving subset of CommonMark and GitHub markdown: ATX and setext
// headings, paragraphs, emphasis, code spans, links, fenced and indented
// code, bullet and numbered lists, block quotes, thematic breaks and
// tables. Anything else is shown as plain text. There is no syntax
// highlighting.

// style is a set of text attributes; a theme maps it to SGR.
type style uint16

const (
	stBold style = 1 << iota
	stItalic
	stStrike
	stCode  // inline code
	stLink  // link text
	stURL   // a link's URL
	stH1    // level-1 heading
	stH2    // level-2 heading
	stDim   // markup: quote bars, rules, table borders
	stBlock // code block background
)

// theme says how styles look.
type theme struct {
	// plain writes no escape sequences: emphasis and code keep their
	// markdown markers and headings their #s (Style "notty", "ascii").
	plain bool
	// noColor keeps attributes (bold, italic, underline, dim) but no
	// colours (NO_COLOR); code spans keep their backticks.
	noColor bool
	// SGR parameters of the colours.
	h1, h2, code, link, block string
	cache                     map[style]string
}

// newTheme returns the theme for a PrinterOptions.Style name.
func newTheme(name string, noColor bool) *theme {
	t := &theme{noColor: noColor, cache: map[style]string{}}
	switch name {
	case "notty", "ascii":
		t.plain = true
	case "light":
		t.h1, t.h2, t.code, t.link, t.block = "38;5;162", "38;5;26", "38;5;160", "38;5;31", "48;5;254"
	default:
		t.h1, t.h2, t.code, t.link, t.block = "38;5;212", "38;5;39", "38;5;203", "38;5;75", "48;5;236"
	}
	if noColor {
		t.h1, t.h2, t.code, t.link, t.block = "", "", "", "", ""
	}
	return t
}

// sgr returns the escape sequence turning on style s ("" for none).
func (t *theme) sgr(s style) string {
	if s == 0 || t.plain {
		return ""
	}
	if v, ok := t.cache[s]; ok {
		return v
	}
	var p []string
	if s&(stBold|stH1|stH2) != 0 {
		p = append(p, "1")
	}
	if s&(stURL|stDim) != 0 {
		p = append(p, "2")
	}
	if s&stItalic != 0 {
		p = append(p, "3")
	}
	if s&stLink != 0 || s&stH1 != 0 && t.noColor {
		p = append(p, "4")
	}
	if s&stStrike != 0 {
		p = append(p, "9")
	}
	for _, c := range []struct {
		bit    style
		params string
	}{{stH1, t.h1}, {stH2, t.h2}, {stLink, t.link}, {stCode, t.code}, {stBlock, t.block}} {
		if s&c.bit != 0 && c.params != "" {
			p = append(p, c.params)
		}
	}
	v := ""
	if len(p) > 0 {
		v = "\x1b[" + strings.Join(p, ";") + "m"
	}
	t.cache[s] = v
	return v
}

// styled returns text in style s, reset after.
func (t *theme) styled(s style, text string) string {
	if on := t.sgr(s); on != "" {
		return on + text + sgrReset
	}
	return text
}

const (
	// minWrap is the narrowest column text is wrapped to; deeper
	// nesting overflows (and the terminal wraps).
	minWrap = 10
	// maxQuoteDepth bounds block quote nesting; deeper '>' are text.
	maxQuoteDepth = 16
	// codeIndent is the indentation of code blocks without a background.
	codeIndent = "    "
)

// render renders one markdown block to width columns. inList says the
// previous block ended in a list, so that indented text continues it
// rather than being an indented code block; render returns the same for
// the next block. The result is empty or ends with a newline, without
// leading or trailing blank lines. Control characters other than newline
// and tab are shown in caret notation; no tab is output.
func (t *theme) render(src string, width int, inList bool) (string, bool) {
	src = safetext.String(src)
	out, inList := t.blocks(strings.Split(src, "\n"), max(width, minWrap), 0, inList)
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return "", inList
	}
	n := 0
	for _, l := range out {
		n += len(l) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range out {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String(), inList
}

// blocks renders lines, a sequence of markdown blocks, to width columns.
// depth is the block quote nesting; inList is as for render.
func (t *theme) blocks(lines []string, width, depth int, inList bool) ([]string, bool) {
	var out []string
	gap := false
	add := func(ls ...string) {
		if gap && len(out) > 0 {
			out = append(out, "")
		}
		gap = false
		out = append(out, ls...)
	}
	for i := 0; i < len(lines); {
		ind, rest := indentation(lines[i])
		if rest == "" {
			gap = true
			i++
			continue
		}
		trimmed := strings.TrimRight(rest, " \t")
		// A fence opens with up to three spaces of indentation, as for
		// the streaming block boundaries; more if the block closes it.
		if m := fenceMarker(trimmed); m != "" && (ind < 4 || closingFence(lines[i+1:], m) >= 0) {
			end := closingFence(lines[i+1:], m)
			code := lines[i+1:]
			if end >= 0 {
				code = code[:end]
			}
			add(t.codeBlock(stripIndents(code, ind), ind, width)...)
			i += len(code) + 2
			inList = inList && ind > 0
			continue
		}
		if ind >= 4 && !inList {
			j := i + 1
			for ; j < len(lines); j++ {
				if li, lr := indentation(lines[j]); lr != "" && li < 4 {
					break
				}
			}
			for j > i+1 && isBlank(lines[j-1]) {
				j--
			}
			add(t.codeBlock(stripIndents(lines[i:j], 4), 0, width)...)
			i = j
			continue
		}
		if ind < 4 {
			if level, text, ok := atxHeading(trimmed); ok {
				add(t.heading(level, text, width)...)
				inList = false
				i++
				continue
			}
			if isRule(trimmed) {
				add(t.styled(stDim, strings.Repeat("─", width)))
				inList = false
				i++
				continue
			}
			if trimmed[0] == '>' && depth < maxQuoteDepth {
				inner, j := quoteLines(lines, i)
				add(t.quote(inner, width, depth)...)
				inList = false
				i = j
				continue
			}
			if isTableStart(lines, i) {
				j := i + 2
				for j < len(lines) && !isBlank(lines[j]) && strings.IndexByte(lines[j], '|') >= 0 {
					j++
				}
				add(t.table(lines[i:j], width)...)
				inList = false
				i = j
				continue
			}
		}
		if ind < 4 || inList {
			if _, _, ok := listItem(rest); ok {
				ls, j := t.list(lines, i, width)
				add(ls...)
				inList = true
				i = j
				continue
			}
		}
		ls, j := t.paragraph(lines, i, width, inList)
		add(ls...)
		inList = inList && ind > 0
		i = j
	}
	return out, inList
}

// paragraph renders the paragraph (or setext heading) starting at
// lines[i] and returns the index after it. Indented text following a
// list keeps its indentation, to line up with the list items.
func (t *theme) paragraph(lines []string, i, width int, inList bool) ([]string, int) {
	ind, _ := indentation(lines[i])
	level := 0
	j := i + 1
	for ; j < len(lines); j++ {
		li, lr := indentation(lines[j])
		if lr == "" {
			break
		}
		lt := strings.TrimRight(lr, " \t")
		if li < 4 {
			if level = setextLevel(lt); level > 0 {
				break
			}
			if interrupts(lt) || isTableStart(lines, j) {
				break
			}
		}
	}
	parts := make([]string, j-i)
	for k := range parts {
		_, parts[k] = indentation(lines[i+k])
	}
	text := strings.Join(parts, "\n")
	if level > 0 {
		return t.heading(level, strings.TrimRight(text, " \t"), width), j + 1
	}
	indent := 0
	if inList {
		indent = min(ind, width/2)
	}
	wl := t.wrap(t.parseInline(nil, text, 0, 0), width-indent)
	out := make([]string, len(wl))
	for k, l := range wl {
		out[k] = spaces(indent) + l.s
	}
	return out, j
}

// heading renders a heading: bold, levels 1 and 2 in a colour.
func (t *theme) heading(level int, text string, width int) []string {
	base := stBold
	switch level {
	case 1:
		base |= stH1
	case 2:
		base |= stH2
	}
	var spans []span
	if t.plain {
		spans = append(spans, span{text: strings.Repeat("#", level) + " "})
	}
	wl := t.wrap(t.parseInline(spans, text, base, 0), width)
	if len(wl) == 0 {
		return []string{""}
	}
	out := make([]string, len(wl))
	for k, l := range wl {
		out[k] = l.s
	}
	return out
}

// listItem parses a list item marker at the start of rest (a line without
// its indentation): "-", "*", "+", or 1-9 digits and "." or ")", followed
// by a space, a tab or the end of the line.
func listItem(rest string) (marker, content string, ok bool) {
	n := 0
	switch {
	case rest == "":
		return "", "", false
	case rest[0] == '-' || rest[0] == '*' || rest[0] == '+':
		n = 1
	default:
		for n < len(rest) && n < 9 && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 || n == len(rest) || rest[n] != '.' && rest[n] != ')' {
			return "", "", false
		}
		n++
	}
	if n < len(rest) && rest[n] != ' ' && rest[n] != '\t' {
		return "", "", false
	}
	return rest[:n], strings.TrimLeft(rest[n:], " \t"), true
}

// list renders the list starting at lines[i] and returns the index after
// it. Items keep their source indentation, which nests them; text wraps
// with a hanging indent. A line that is not an item or another block
// continues the item before it.
func (t *theme) list(lines []string, i, width int) ([]string, int) {
	type item struct {
		ind          int
		marker, text string
	}
	var items []item
	j := i
	for ; j < len(lines); j++ {
		li, lr := indentation(lines[j])
		if lr == "" {
			break
		}
		lt := strings.TrimRight(lr, " \t")
		if li < 4 && isRule(lt) {
			break
		}
		if m, content, ok := listItem(lr); ok {
			items = append(items, item{li, m, content})
			continue
		}
		if m := fenceMarker(lt); m != "" && (li < 4 || closingFence(lines[j+1:], m) >= 0) {
			break
		}
		if li < 4 && (interrupts(lt) || isTableStart(lines, j)) {
			break
		}
		items[len(items)-1].text += "\n" + lr
	}
	var out []string
	for _, it := range items {
		indent := min(it.ind, width/2)
		marker := it.marker
		if len(marker) == 1 {
			marker = "•"
		}
		mw, _ := textWidth(marker)
		wl := t.wrap(t.parseInline(nil, it.text, 0, 0), max(width-indent-mw-1, minWrap))
		if len(wl) == 0 {
			out = append(out, spaces(indent)+marker)
			continue
		}
		out = append(out, spaces(indent)+marker+" "+wl[0].s)
		for _, l := range wl[1:] {
			out = append(out, spaces(indent+mw+1)+l.s)
		}
	}
	return out, j
}

// quoteLines collects the block quote starting at lines[i], without the
// '>' markers, and returns the index after it.
func quoteLines(lines []string, i int) ([]string, int) {
	var inner []string
	j := i
	for ; j < len(lines); j++ {
		li, lr := indentation(lines[j])
		if li < 4 && strings.HasPrefix(lr, ">") {
			s := lr[1:]
			if s != "" && (s[0] == ' ' || s[0] == '\t') {
				s = s[1:]
			}
			inner = append(inner, s)
			continue
		}
		// A lazy continuation line of a paragraph.
		if lr == "" || isBlank(inner[len(inner)-1]) || li < 4 && interrupts(strings.TrimRight(lr, " \t")) {
			break
		}
		inner = append(inner, lr)
	}
	return inner, j
}

// quote renders the content of a block quote behind a bar.
func (t *theme) quote(inner []string, width, depth int) []string {
	out, _ := t.blocks(inner, max(width-2, minWrap), depth+1, false)
	bar := t.styled(stDim, "│")
	if len(out) == 0 {
		return []string{bar}
	}
	for k, l := range out {
		if l == "" {
			out[k] = bar
		} else {
			out[k] = bar + " " + l
		}
	}
	return out
}

// codeBlock renders code verbatim, without wrapping: on a background
// block, or indented when the theme has no colours.
func (t *theme) codeBlock(code []string, ind, width int) []string {
	if len(code) == 0 {
		code = []string{""}
	}
	indent := spaces(min(ind, width/2))
	out := make([]string, len(code))
	ws := make([]int, len(code))
	boxW := 0
	for k, l := range code {
		l = strings.TrimRight(expandTabs(l), " ")
		out[k] = l
		ws[k], _ = textWidth(l)
		boxW = max(boxW, ws[k])
	}
	on := t.sgr(stBlock)
	if on == "" {
		for k, l := range out {
			if l != "" {
				out[k] = indent + codeIndent + l
			}
		}
		return out
	}
	boxW = min(boxW, max(width-len(indent)-4, 0))
	for k, l := range out {
		out[k] = indent + on + "  " + l + spaces(max(boxW-ws[k], 0)) + "  " + sgrReset
	}
	return out
}

// table renders a table (header, delimiter row, rows) with aligned
// columns; cells wrap when the table is wider than the screen. A table
// too narrow to lay out is shown as written.
func (t *theme) table(lines []string, width int) []string {
	aligns, _ := delimRow(lines[1])
	n := len(aligns)
	rows := make([][][]span, 0, len(lines)-1)
	for k, l := range lines {
		if k == 1 {
			continue
		}
		base := style(0)
		if k == 0 {
			base = stBold
		}
		cells := splitRow(l)
		row := make([][]span, n)
		for c := range row {
			if c < len(cells) {
				row[c] = t.parseInline(nil, cells[c], base, 0)
			}
		}
		rows = append(rows, row)
	}
	nat := make([]int, n)
	for _, row := range rows {
		for c, cell := range row {
			for _, l := range t.wrap(cell, 1<<30) {
				nat[c] = max(nat[c], l.w)
			}
		}
	}
	colw := slices.Clone(nat)
	avail := width - 3*(n-1)
	total := 0
	for _, w := range nat {
		total += w
	}
	if total > avail {
		if avail < 4*n {
			out := make([]string, len(lines))
			for k, l := range lines {
				out[k] = strings.TrimRight(expandTabs(l), " ")
			}
			return out
		}
		order := make([]int, n)
		for c := range order {
			order[c] = c
		}
		slices.SortStableFunc(order, func(a, b int) int { return nat[a] - nat[b] })
		rem := avail
		for k, c := range order {
			colw[c] = min(nat[c], rem/(n-k))
			rem -= colw[c]
		}
	}
	sep := t.styled(stDim, " │ ")
	var out []string
	var b strings.Builder
	for r, row := range rows {
		cells := make([][]wline, n)
		h := 1
		for c, cell := range row {
			cells[c] = t.wrap(cell, max(colw[c], 1))
			h = max(h, len(cells[c]))
		}
		for l := 0; l < h; l++ {
			b.Reset()
			for c := range n {
				if c > 0 {
					b.WriteString(sep)
				}
				var cl wline
				if l < len(cells[c]) {
					cl = cells[c][l]
				}
				pad := max(colw[c]-cl.w, 0)
				last := c == n-1
				switch aligns[c] {
				case alignRight:
					b.WriteString(spaces(pad))
					b.WriteString(cl.s)
				case alignCenter:
					b.WriteString(spaces(pad / 2))
					b.WriteString(cl.s)
					if !last {
						b.WriteString(spaces(pad - pad/2))
					}
				default:
					b.WriteString(cl.s)
					if !last {
						b.WriteString(spaces(pad))
					}
				}
			}
			out = append(out, b.String())
		}
		if r == 0 {
			parts := make([]string, n)
			for c := range parts {
				parts[c] = strings.Repeat("─", colw[c])
			}
			out = append(out, t.styled(stDim, strings.Join(parts, "─┼─")))
		}
	}
	return out
}

type align int

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

// isTableStart reports whether lines[i] is a table header: it has a '|'
// and is followed by a delimiter row with as many cells.
func isTableStart(lines []string, i int) bool {
	if i+1 >= len(lines) || strings.IndexByte(lines[i], '|') < 0 {
		return false
	}
	if ind, _ := indentation(lines[i]); ind >= 4 {
		return false
	}
	aligns, ok := delimRow(lines[i+1])
	return ok && len(splitRow(lines[i])) == len(aligns)
}

// delimRow parses a table delimiter row such as "| :-- | --: |".
func delimRow(line string) ([]align, bool) {
	if ind, _ := indentation(line); ind >= 4 || strings.IndexByte(line, '|') < 0 {
		return nil, false
	}
	cells := splitRow(line)
	aligns := make([]align, len(cells))
	for k, c := range cells {
		core := strings.Trim(c, ":")
		if core == "" || strings.Trim(core, "-") != "" || len(c)-len(core) > 2 {
			return nil, false
		}
		left, right := c[0] == ':', c[len(c)-1] == ':'
		switch {
		case left && right:
			aligns[k] = alignCenter
		case right:
			aligns[k] = alignRight
		}
	}
	return aligns, true
}

// splitRow splits a table row into trimmed cells, at '|' not escaped by a
// backslash; one leading and one trailing '|' are optional. As in GitHub
// markdown, "\|" is a '|' in the cell, even in a code span.
func splitRow(line string) []string {
	s := strings.TrimSpace(line)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, "\\|") {
		s = s[:len(s)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, unescapePipes(s[start:i]))
			start = i + 1
		}
	}
	return append(cells, unescapePipes(s[start:]))
}

func unescapePipes(cell string) string {
	cell = strings.TrimSpace(cell)
	if strings.Contains(cell, "\\|") {
		cell = strings.ReplaceAll(cell, "\\|", "|")
	}
	return cell
}

// interrupts reports whether a line (without indentation, which is under
// four columns) starts a block that ends a paragraph: a fence, a heading,
// a thematic break, a block quote, or a list item that is not empty and,
// if numbered, starts at 1.
func interrupts(lt string) bool {
	if lt == "" {
		return false
	}
	if fenceMarker(lt) != "" || isRule(lt) || lt[0] == '>' {
		return true
	}
	if _, _, ok := atxHeading(lt); ok {
		return true
	}
	marker, content, ok := listItem(lt)
	if !ok || content == "" {
		return false
	}
	return len(marker) == 1 || marker[:len(marker)-1] == "1"
}

// atxHeading parses "## text ##".
func atxHeading(lt string) (level int, text string, ok bool) {
	level = runLength(lt, 0, '#')
	if level == 0 || level > 6 || level < len(lt) && lt[level] != ' ' && lt[level] != '\t' {
		return 0, "", false
	}
	text = strings.TrimSpace(lt[level:])
	if t := strings.TrimRight(text, "#"); t == "" {
		text = ""
	} else if t != text && (t[len(t)-1] == ' ' || t[len(t)-1] == '\t') {
		text = strings.TrimRight(t, " \t")
	}
	return level, text, true
}

// isRule reports whether lt is a thematic break: three or more of the
// same '-', '*' or '_', and spaces.
func isRule(lt string) bool {
	if lt == "" || lt[0] != '-' && lt[0] != '*' && lt[0] != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(lt); i++ {
		switch lt[i] {
		case lt[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// setextLevel returns 1 for a "===" underline, 2 for "---", or 0.
func setextLevel(lt string) int {
	switch {
	case lt == "":
		return 0
	case strings.Trim(lt, "=") == "":
		return 1
	case strings.Trim(lt, "-") == "":
		return 2
	}
	return 0
}

// closingFence returns the index of the line closing a fence, or -1.
func closingFence(lines []string, marker string) int {
	for k, l := range lines {
		if closesFence(strings.TrimSpace(l), marker) {
			return k
		}
	}
	return -1
}

// indentation returns the width of the leading spaces and tabs of line
// (tab stops every 4 columns) and the rest of it.
func indentation(line string) (int, string) {
	col := 0
	for k := 0; k < len(line); k++ {
		switch line[k] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, line[k:]
		}
	}
	return col, ""
}

func isBlank(line string) bool {
	_, rest := indentation(line)
	return rest == ""
}

// stripIndents removes up to n columns of indentation from each line.
func stripIndents(lines []string, n int) []string {
	out := make([]string, len(lines))
	for k, line := range lines {
		col, i := 0, 0
		for ; i < len(line) && col < n; i++ {
			if line[i] == ' ' {
				col++
			} else if line[i] == '\t' {
				col += 4 - col%4
			} else {
				break
			}
		}
		out[k] = spaces(col-n) + line[i:]
	}
	return out
}

// expandTabs replaces tabs with spaces to the next multiple of 4 columns.
func expandTabs(s string) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	var b strings.Builder
	col := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(spaces(n))
			col += n
		} else {
			b.WriteString(s[i : i+size])
			col += runeWidth(r)
		}
		i += size
	}
	return b.String()
}

const spaceRun = "                                                                "

// spaces returns n spaces ("" for n <= 0).
func spaces(n int) string {
	switch {
	case n <= 0:
		return ""
	case n <= len(spaceRun):
		return spaceRun[:n]
	}
	return strings.Repeat(" ", n)
}
