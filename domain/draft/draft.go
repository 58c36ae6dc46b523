// Package draft is the query document of docs/interrupts.md: the text of
// QUERY_MESSAGE.md and of the external-editor compose buffer.
//
// A document is the query text, optionally followed by the cut line and a
// meta section:
//
//	Please review the diff below.
//	# ----- 8< ----- everything below this line is ignored -----
//
//	```toml
//	assistant.model.id = "openai/gpt-4o"
//	```
//
//	(a read-only excerpt of the conversation)
//
// The cut line is exactly CutLine, alone on its line (trailing spaces, tabs
// and a CR are tolerated, so CRLF files and editors that pad lines work).
// It is a markdown heading a user does not type by accident, and it is
// stable: changing it would turn every stored draft's meta section into
// query text. Everything from the first cut line on is the meta section; it
// is never query text. Its first non-blank line may open a fenced ```toml
// block: that block is the config the user may edit (Config). Anything
// else in the meta section is kept byte for byte, whether or not it looks
// well-formed.
//
// Parsing never fails and Render(Parse(x)) == x for every x, so a draft
// written back after WithQuery changes only the query text.
//
// The package is pure: no I/O. Reading and writing the file is the
// DraftStore adapter's job.
package draft

import "strings"

// CutLine separates the query text from the meta section. It is part of
// the on-disk format of QUERY_MESSAGE.md and must not change.
const CutLine = "# ----- 8< ----- everything below this line is ignored -----"

// Document is a parsed query document. The zero value is an empty document
// with no meta section. Documents are values; the With methods return
// copies.
type Document struct {
	// query is the query text, without the line break that ends it when a
	// meta section follows.
	query string
	// sep is the line break between the query text and the cut line: "",
	// "\n" or "\r\n". It is "" when there is no meta section or when the
	// document starts with the cut line.
	sep string
	// meta is everything from the start of the cut line to the end.
	meta string
}

// Parse splits doc at its first cut line. It never fails: a document with
// no cut line is all query text, and a meta section that is not
// well-formed is kept verbatim.
func Parse(doc string) Document {
	at := findCutLine(doc)
	if at < 0 {
		return Document{query: doc}
	}
	before := doc[:at]
	sep := ""
	switch {
	case strings.HasSuffix(before, "\r\n"):
		sep = "\r\n"
	case strings.HasSuffix(before, "\n"):
		sep = "\n"
	}
	return Document{query: before[:len(before)-len(sep)], sep: sep, meta: doc[at:]}
}

// New builds a document with a meta section: query, the cut line, a fenced
// ```toml block holding configTOML (left out when configTOML is empty),
// then the conversation excerpt (left out when empty). Lines of query
// equal to the cut line are escaped as in WithQuery.
func New(query, configTOML, excerpt string) Document {
	var b strings.Builder
	b.WriteString(CutLine)
	b.WriteString("\n")
	if configTOML != "" {
		b.WriteString("\n```toml\n")
		writeEnded(&b, configTOML)
		b.WriteString("```\n")
	}
	if excerpt != "" {
		b.WriteString("\n")
		writeEnded(&b, excerpt)
	}
	return Document{meta: b.String()}.WithQuery(query)
}

// writeEnded writes s and a line break after it, unless s ends with one.
func writeEnded(b *strings.Builder, s string) {
	b.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
}

// Query returns the query text: everything before the cut line, without
// the line break that ends the last query line.
func (d Document) Query() string { return d.query }

// Meta returns the meta section byte for byte, from the start of the cut
// line to the end of the document; "" when there is none.
func (d Document) Meta() string { return d.meta }

// HasMeta reports whether the document has a cut line.
func (d Document) HasMeta() bool { return d.meta != "" }

// WithQuery returns a copy of d whose query text is text and whose meta
// section is d's, byte for byte. A line of text equal to the cut line
// would end the query text early, so it is stored with a leading
// backslash (a markdown escape that renders the same); apart from that,
// Parse(d.WithQuery(text).Render()).Query() == text.
func (d Document) WithQuery(text string) Document {
	text = escapeCutLines(text)
	out := Document{query: text, meta: d.meta}
	if d.meta == "" || text == "" {
		return out
	}
	// Pick the line break that Parse will read back as the separator.
	switch {
	case strings.HasSuffix(text, "\r"), strings.HasSuffix(firstLine(d.meta), "\r"):
		out.sep = "\r\n"
	default:
		out.sep = "\n"
	}
	return out
}

// Render returns the document as text. Render(Parse(x)) == x for every x.
func (d Document) Render() string {
	return d.query + d.sep + d.meta
}

// Config returns the TOML inside the fenced ```toml block that opens the
// meta section (its first non-blank line after the cut line), without the
// fences; "" when there is no such block or it is never closed.
func (d Document) Config() string {
	if d.meta == "" {
		return ""
	}
	rest := d.meta[len(firstLine(d.meta)):]
	rest = strings.TrimPrefix(rest, "\n")
	opened := false
	start := 0
	for pos := 0; pos < len(rest); {
		line, next := lineAt(rest, pos)
		trimmed := strings.TrimSpace(line)
		switch {
		case !opened && trimmed == "":
		case !opened && isTOMLFence(trimmed):
			opened = true
			start = next
		case !opened:
			return ""
		case trimmed == "```":
			return rest[start:pos]
		}
		pos = next
	}
	return ""
}

// isTOMLFence reports whether a trimmed line opens a ```toml block.
func isTOMLFence(trimmed string) bool {
	if !strings.HasPrefix(trimmed, "```") {
		return false
	}
	return strings.TrimSpace(trimmed[3:]) == "toml"
}

// findCutLine returns the byte offset of the first cut line, or -1.
func findCutLine(doc string) int {
	for pos := 0; pos < len(doc); {
		line, next := lineAt(doc, pos)
		if isCutLine(line) {
			return pos
		}
		pos = next
	}
	return -1
}

// lineAt returns the line starting at pos without its "\n", and the offset
// of the next line.
func lineAt(s string, pos int) (line string, next int) {
	i := strings.IndexByte(s[pos:], '\n')
	if i < 0 {
		return s[pos:], len(s)
	}
	return s[pos : pos+i], pos + i + 1
}

// firstLine returns the first line of s without its "\n".
func firstLine(s string) string {
	line, _ := lineAt(s, 0)
	return line
}

// isCutLine reports whether line (without "\n") is a cut line.
func isCutLine(line string) bool {
	return strings.TrimRight(line, " \t\r") == CutLine
}

// escapeCutLines prefixes every line of text that is a cut line with a
// backslash.
func escapeCutLines(text string) string {
	if !strings.Contains(text, CutLine) {
		return text
	}
	var b strings.Builder
	for pos := 0; pos < len(text); {
		line, next := lineAt(text, pos)
		if isCutLine(line) {
			b.WriteString(`\`)
		}
		b.WriteString(text[pos:next])
		pos = next
	}
	return b.String()
}
