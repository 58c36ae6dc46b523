package terminal

import (
	"bufio"
	"bytes"
	stdhtml "html"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jpcli/jp/internal/gfm"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"

	"github.com/jpcli/jp/internal/safetext"
)

// This file is the markdown renderer: goldmark parses one markdown block,
// as the streaming logic in markdown.go hands it over (CommonMark, plus
// GitHub's tables and strikethrough), and a walk of goldmark's syntax tree
// turns it into ANSI-styled lines wrapped to the terminal width (the line
// layout is in mdwrap.go). There is no syntax highlighting.

// mdParser is the goldmark parser, built on first use so that commands
// that print no markdown do not pay for it. A goldmark parser is safe
// for concurrent use.
var mdParser = sync.OnceValue(func() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(gfm.Table, gfm.Strikethrough)).Parser()
})

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
	// codeIndent is the indentation of code blocks without a background.
	codeIndent = "    "
)

// refSet keeps the link reference definitions of the blocks of one
// answer, so that a reference link resolves against a definition in the
// same block or an earlier one.
type refSet struct{ refs []parser.Reference }

// render renders one markdown block to width columns. inList says the
// previous block ended in a list, so that indented text continues it
// rather than being an indented code block; render returns the same for
// the next block. The result is empty or ends with a newline, without
// leading or trailing blank lines. Control characters other than newline
// and tab are shown in caret notation; no tab is output.
func (t *theme) render(src string, width int, inList bool) (string, bool) {
	return t.renderRefs(src, width, inList, nil)
}

// renderRefs is render with the reference definitions seen so far, which
// it extends with the block's own.
func (t *theme) renderRefs(src string, width int, inList bool, refs *refSet) (string, bool) {
	src = safetext.String(src)
	width = max(width, minWrap)
	indent := 0
	if inList {
		if indent = commonIndent(src); indent > 0 {
			src = strings.Join(stripIndents(strings.Split(src, "\n"), indent), "\n")
		}
	}
	shown := min(indent, width/2)
	ctx := parser.NewContext()
	if refs != nil {
		for _, r := range refs.refs {
			ctx.AddReference(r)
		}
	}
	r := &mdWalk{t: t, src: []byte(src)}
	doc := mdParser().Parse(text.NewReader(r.src), parser.WithContext(ctx))
	if refs != nil {
		refs.refs = ctx.References()
	}
	out := r.blocks(doc, width-shown)
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	_, endsInList := doc.LastChild().(*ast.List)
	if doc.LastChild() == nil {
		endsInList = inList
	}
	inList = endsInList || indent > 0
	if len(out) == 0 {
		return "", inList
	}
	n := 0
	for _, l := range out {
		n += shown + len(l) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range out {
		if l != "" {
			b.WriteString(spaces(shown))
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String(), inList
}

// commonIndent is the smallest indentation of the non-blank lines of src.
func commonIndent(src string) int {
	ind := -1
	for _, l := range strings.Split(src, "\n") {
		if i, rest := indentation(l); rest != "" && (ind < 0 || i < ind) {
			ind = i
		}
	}
	return max(ind, 0)
}

// mdWalk renders a goldmark syntax tree of src.
type mdWalk struct {
	t   *theme
	src []byte
	// esc is scratch space for decoding escapes and entities.
	esc bytes.Buffer
}

// blocks renders the block children of n to width columns; a blank line
// in the source between two blocks stays one.
func (r *mdWalk) blocks(n ast.Node, width int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		ls := r.block(c, width)
		if len(ls) == 0 {
			continue
		}
		if len(out) > 0 && r.blankBefore(c) {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	return out
}

// blankBefore reports whether a blank line precedes block c. goldmark
// marks every block that follows a block closed by its own last line (a
// fenced code block, an HTML block) as after a blank line, so there the
// source decides.
func (r *mdWalk) blankBefore(c ast.Node) bool {
	if !c.HasBlankPreviousLines() {
		return false
	}
	switch c.PreviousSibling().(type) {
	case *ast.FencedCodeBlock, *ast.HTMLBlock:
	default:
		return true
	}
	pos := c.Pos()
	if pos < 0 || pos > len(r.src) {
		return true
	}
	end := bytes.LastIndexByte(r.src[:pos], '\n')
	if end < 0 {
		return true
	}
	start := bytes.LastIndexByte(r.src[:end], '\n') + 1
	return len(bytes.Trim(r.src[start:end], " \t>")) == 0
}

// block renders one block node.
func (r *mdWalk) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return lineStrings(r.t.wrap(r.inlines(nil, n, 0), width))
	case *ast.Heading:
		return r.heading(n, width)
	case *ast.ThematicBreak:
		return []string{r.t.styled(stDim, strings.Repeat("─", width))}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return r.t.codeBlock(r.lines(n.Lines()), 0, width)
	case *ast.Blockquote:
		return r.quote(n, width)
	case *ast.List:
		return r.list(n, width)
	case *ast.HTMLBlock:
		lines := r.lines(n.Lines())
		if n.HasClosure() {
			lines = append(lines, strings.TrimRight(string(n.ClosureLine.Value(r.src)), "\r\n"))
		}
		var spans []span
		for k, l := range lines {
			if k > 0 {
				spans = append(spans, span{brk: true})
			}
			spans = append(spans, span{text: l})
		}
		return lineStrings(r.t.wrap(spans, width))
	case *east.Table:
		return r.table(n, width)
	case *ast.LinkReferenceDefinition:
		return nil // used by the links that refer to it
	}
	if n.FirstChild() != nil {
		return r.blocks(n, width)
	}
	return r.lines(n.Lines())
}

// lines returns the source lines of segs without their line endings.
func (r *mdWalk) lines(segs *text.Segments) []string {
	out := make([]string, segs.Len())
	for k := range out {
		seg := segs.At(k)
		out[k] = strings.TrimRight(string(seg.Value(r.src)), "\r\n")
	}
	return out
}

func lineStrings(wl []wline) []string {
	out := make([]string, len(wl))
	for k, l := range wl {
		out[k] = l.s
	}
	return out
}

// heading renders a heading: bold, levels 1 and 2 in a colour.
func (r *mdWalk) heading(n *ast.Heading, width int) []string {
	base := stBold
	switch n.Level {
	case 1:
		base |= stH1
	case 2:
		base |= stH2
	}
	var spans []span
	if r.t.plain {
		spans = append(spans, span{text: strings.Repeat("#", n.Level) + " "})
	}
	wl := r.t.wrap(r.inlines(spans, n, base), width)
	if len(wl) == 0 {
		return []string{""}
	}
	return lineStrings(wl)
}

// quote renders a block quote behind a bar.
func (r *mdWalk) quote(n *ast.Blockquote, width int) []string {
	out := r.blocks(n, max(width-2, minWrap))
	bar := r.t.styled(stDim, "│")
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

// list renders a list: a bullet or the item's number, and the item's
// blocks with a hanging indent.
func (r *mdWalk) list(n *ast.List, width int) []string {
	var out []string
	num := n.Start
	for it := n.FirstChild(); it != nil; it = it.NextSibling() {
		marker := "•"
		if n.IsOrdered() {
			marker = strconv.Itoa(num) + string(n.Marker)
			num++
		}
		mw, _ := textWidth(marker)
		inner := r.blocks(it, max(width-mw-1, minWrap))
		if len(out) > 0 && r.blankBefore(it) {
			out = append(out, "")
		}
		if len(inner) == 0 {
			out = append(out, marker)
			continue
		}
		out = append(out, marker+" "+inner[0])
		for _, l := range inner[1:] {
			if l != "" {
				l = spaces(mw+1) + l
			}
			out = append(out, l)
		}
	}
	return out
}

// inlines appends the spans of the inline children of n, every one in at
// least style base.
func (r *mdWalk) inlines(out []span, n ast.Node, base style) []span {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = r.inline(out, c, base)
	}
	return out
}

func (r *mdWalk) inline(out []span, n ast.Node, base style) []span {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(r.src)
		if n.IsRaw() {
			out = append(out, span{text: string(v), st: base})
		} else {
			out = append(out, span{text: r.decode(v), st: base})
		}
		switch {
		case n.HardLineBreak():
			out = append(out, span{brk: true, st: base})
		case n.SoftLineBreak():
			out = append(out, span{text: " ", st: base})
		}
	case *ast.String:
		if n.IsCode() || n.IsRaw() {
			out = append(out, span{text: safetext.String(string(n.Value)), st: base})
		} else {
			out = append(out, span{text: r.decode(n.Value), st: base})
		}
	case *ast.CodeSpan:
		var b strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if tn, ok := c.(*ast.Text); ok {
				b.Write(tn.Segment.Value(r.src))
			}
		}
		code := strings.ReplaceAll(b.String(), "\n", " ")
		if r.t.plain || r.t.noColor {
			// The style cannot show code: keep the backticks.
			fence := "`"
			for strings.Contains(code, fence) {
				fence += "`"
			}
			code = fence + code + fence
		}
		out = append(out, span{text: code, st: base | stCode})
	case *ast.Emphasis:
		st, marker := stItalic, "*"
		if n.Level >= 2 {
			st, marker = stBold, "**"
		}
		out = r.marked(out, n, base|st, marker)
	case *east.Strikethrough:
		out = r.marked(out, n, base|stStrike, "~~")
	case *ast.Link:
		out = r.link(out, n, base, r.decode(n.Destination), "")
	case *ast.Image:
		out = r.link(out, n, base, r.decode(n.Destination), "image")
	case *ast.AutoLink:
		out = append(out, span{text: safetext.String(string(n.Label(r.src))), st: base | stLink})
	case *ast.RawHTML:
		for k := range n.Segments.Len() {
			seg := n.Segments.At(k)
			out = append(out, span{text: string(seg.Value(r.src)), st: base})
		}
	default:
		out = r.inlines(out, n, base)
	}
	return out
}

// marked appends the children of n in style st; a plain theme, which
// cannot show the style, keeps the markdown markers.
func (r *mdWalk) marked(out []span, n ast.Node, st style, marker string) []span {
	if r.t.plain {
		out = append(out, span{text: marker, st: st})
		out = r.inlines(out, n, st)
		return append(out, span{text: marker, st: st})
	}
	return r.inlines(out, n, st)
}

// link appends a link's text (empty alt text shows as empty) and, unless
// the text says it already, its destination.
func (r *mdWalk) link(out []span, n ast.Node, base style, dest, empty string) []span {
	start := len(out)
	out = r.inlines(out, n, base|stLink)
	var label strings.Builder
	for _, s := range out[start:] {
		label.WriteString(s.text)
	}
	if strings.TrimSpace(label.String()) == "" && empty != "" {
		out = append(out[:start], span{text: empty, st: base | stLink})
		label.Reset()
		label.WriteString(empty)
	}
	if l := label.String(); dest != "" && dest != l && "mailto:"+l != dest {
		out = append(out, span{text: " (" + dest + ")", st: base | stURL})
	}
	return out
}

// decode resolves backslash escapes and entity and numeric character
// references as goldmark's HTML renderer does, and neutralises the
// control characters a reference may produce.
func (r *mdWalk) decode(v []byte) string {
	if bytes.IndexByte(v, '\\') < 0 && bytes.IndexByte(v, '&') < 0 {
		return string(v) // the source is sanitised already
	}
	r.esc.Reset()
	w := bufio.NewWriter(&r.esc)
	html.DefaultWriter.Write(w, v)
	_ = w.Flush()
	return safetext.String(stdhtml.UnescapeString(r.esc.String()))
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
func (r *mdWalk) table(n *east.Table, width int) []string {
	t := r.t
	ncol := len(n.Alignments)
	if header := n.FirstChild(); header != nil && header.LastChild() != nil && header.LastChild().Lines().Len() == 0 {
		// goldmark pads a header row with fewer cells than the delimiter
		// row; GitHub's rules make that a paragraph, not a table.
		return lineStrings(t.wrap([]span{{text: strings.Join(r.tableSource(n), "\n")}}, width))
	}
	rows := r.tableCells(n, ncol)
	colw, ok := r.columnWidths(rows, ncol, width)
	if !ok {
		if src := r.tableSource(n); src != nil {
			return src
		}
	}
	sep := t.styled(stDim, " │ ")
	var out []string
	for ri, row := range rows {
		out = append(out, r.tableRow(row, n.Alignments, colw, sep)...)
		if ri == 0 {
			parts := make([]string, ncol)
			for c := range parts {
				parts[c] = strings.Repeat("─", colw[c])
			}
			out = append(out, t.styled(stDim, strings.Join(parts, "─┼─")))
		}
	}
	return out
}

// tableCells renders each cell's inlines (the header's in bold), at most
// ncol a row.
func (r *mdWalk) tableCells(n *east.Table, ncol int) [][][]span {
	var rows [][][]span
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		base := style(0)
		if _, ok := row.(*east.TableHeader); ok {
			base = stBold
		}
		cells := make([][]span, ncol)
		c := 0
		for cell := row.FirstChild(); cell != nil && c < ncol; cell = cell.NextSibling() {
			cells[c] = r.inlines(nil, cell, base)
			c++
		}
		rows = append(rows, cells)
	}
	return rows
}

// columnWidths gives each column its natural width, or, when the table is
// wider than width, shares the room out narrowest column first. ok is
// false when there is too little room for a table (under 4 cells a
// column); the widths are then still usable.
func (r *mdWalk) columnWidths(rows [][][]span, ncol, width int) (colw []int, ok bool) {
	nat := make([]int, ncol)
	for _, row := range rows {
		for c, cell := range row {
			for _, l := range r.t.wrap(cell, 1<<30) {
				nat[c] = max(nat[c], l.w)
			}
		}
	}
	colw = slices.Clone(nat)
	avail := width - 3*(ncol-1)
	total := 0
	for _, w := range nat {
		total += w
	}
	if total <= avail {
		return colw, true
	}
	order := make([]int, ncol)
	for c := range order {
		order[c] = c
	}
	slices.SortStableFunc(order, func(a, b int) int { return nat[a] - nat[b] })
	rem := avail
	for k, c := range order {
		colw[c] = max(min(nat[c], rem/(ncol-k)), 1)
		rem -= colw[c]
	}
	return colw, avail >= 4*ncol
}

// tableRow lays out one row: each cell wrapped to its column's width,
// aligned, the cells joined by sep; as many lines as its tallest cell.
func (r *mdWalk) tableRow(row [][]span, align []east.Alignment, colw []int, sep string) []string {
	ncol := len(colw)
	cells := make([][]wline, ncol)
	h := 1
	for c, cell := range row {
		cells[c] = r.t.wrap(cell, max(colw[c], 1))
		h = max(h, len(cells[c]))
	}
	var out []string
	var b strings.Builder
	for l := 0; l < h; l++ {
		b.Reset()
		for c := range ncol {
			if c > 0 {
				b.WriteString(sep)
			}
			var cl wline
			if l < len(cells[c]) {
				cl = cells[c][l]
			}
			alignCell(&b, cl.s, max(colw[c]-cl.w, 0), align[c], c == ncol-1)
		}
		out = append(out, b.String())
	}
	return out
}

// alignCell writes s padded by pad spaces as align says; the last column
// has no trailing spaces.
func alignCell(b *strings.Builder, s string, pad int, align east.Alignment, last bool) {
	switch align {
	case east.AlignRight:
		b.WriteString(spaces(pad))
		b.WriteString(s)
	case east.AlignCenter:
		b.WriteString(spaces(pad / 2))
		b.WriteString(s)
		if !last {
			b.WriteString(spaces(pad - pad/2))
		}
	default:
		b.WriteString(s)
		if !last {
			b.WriteString(spaces(pad))
		}
	}
}

// tableSource returns the source lines of a table: from its header to
// its last row, and at least the delimiter row.
func (r *mdWalk) tableSource(n *east.Table) []string {
	start, stop := -1, -1
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			if p := cell.Pos(); p >= 0 && p <= len(r.src) {
				if start < 0 || p < start {
					start = p
				}
				stop = max(stop, p)
			}
		}
	}
	if start < 0 {
		return nil
	}
	start = bytes.LastIndexByte(r.src[:start], '\n') + 1
	lineEnd := func(i int) int {
		if j := bytes.IndexByte(r.src[i:], '\n'); j >= 0 {
			return i + j
		}
		return len(r.src)
	}
	stop = lineEnd(stop)
	if first := lineEnd(start); stop == first && first < len(r.src) {
		stop = lineEnd(first + 1) // the delimiter row
	}
	lines := strings.Split(string(r.src[start:stop]), "\n")
	for k, l := range lines {
		lines[k] = strings.TrimRight(expandTabs(l), " ")
	}
	return lines
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
