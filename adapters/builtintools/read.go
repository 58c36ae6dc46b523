package builtintools

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/jpcli/jp/internal/atomicfile"
	"github.com/jpcli/jp/internal/gitignore"
	"github.com/jpcli/jp/ports"
)

// Limits of what one read-only call returns.
const (
	maxReadLines   = 2000      // fs_read_file lines per call
	maxReadBytes   = 256 << 10 // fs_read_file bytes per call
	maxLineBytes   = 2000      // one line longer than this is cut
	maxListEntries = 2000      // fs_list_files paths per call
	defaultMatches = 200       // fs_grep_files matches unless max_matches says
	maxMatches     = 2000
	maxGrepFile    = 8 << 20 // fs_grep_files skips larger files
)

func (s *Server) readFile(args json.RawMessage) (ports.ToolResult, error) {
	var a struct {
		Path      string `json:"path"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
	}
	if err := decode(args, &a); err != nil {
		return ports.ToolResult{}, err
	}
	rel, err := s.readable(ReadFile, a.Path)
	if err != nil {
		return ports.ToolResult{}, err
	}
	f, fi, err := s.openRegular(ReadFile, rel)
	if err != nil {
		return ports.ToolResult{}, err
	}
	defer f.Close()
	if fi.IsDir() {
		return ports.ToolResult{}, refuse("%s is a directory; use fs_list_files to see what is in it", rel)
	}
	start := max(a.StartLine, 1)
	if a.EndLine != 0 && a.EndLine < start {
		return ports.ToolResult{}, refuse("end_line %d is before start_line %d", a.EndLine, start)
	}
	h := sha256.New()
	r := bufio.NewReaderSize(io.TeeReader(f, h), 64<<10)
	head, _ := r.Peek(8 << 10)
	if bytes.IndexByte(head, 0) >= 0 {
		return ports.ToolResult{}, refuse("%s is a binary file (%d bytes); fs_read_file reads text only", rel, fi.Size())
	}
	var out strings.Builder
	n, shown, last, more := 0, 0, 0, false
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			n++
			if n >= start && (a.EndLine == 0 || n <= a.EndLine) {
				if shown >= maxReadLines || out.Len()+len(line) > maxReadBytes {
					more = true
				} else {
					if len(line) > maxLineBytes {
						line = line[:maxLineBytes] + fmt.Sprintf("… [line cut at %d bytes]\n", maxLineBytes)
					}
					out.WriteString(line)
					shown++
					last = n
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return ports.ToolResult{}, rootErr("read", rel, err)
		}
	}
	s.mu.Lock()
	s.reads[rel] = hex.EncodeToString(h.Sum(nil))
	s.mu.Unlock()
	text := out.String()
	if start > n && n > 0 {
		return ports.ToolResult{}, refuse("%s has %d lines; start_line %d is past its end", rel, n, start)
	}
	switch {
	case more:
		text = strings.TrimSuffix(text, "\n") + fmt.Sprintf("\n[… %s: lines %d-%d of %d shown; call fs_read_file with start_line %d for more]\n", rel, start, last, n, last+1)
	case start > 1 || (a.EndLine != 0 && a.EndLine < n):
		text = fmt.Sprintf("[%s: lines %d-%d of %d]\n", rel, start, last, n) + text
	case n == 0:
		text = fmt.Sprintf("[%s is empty]\n", rel)
	}
	return ports.ToolResult{Content: text}, nil
}

// walk calls fn for every file under start (relative to the checkout)
// that internal/gitignore keeps -- git's rules for .gitignore files and
// info/exclude, .git never entered, dotfiles kept (docs/ignored-files.md)
// -- and that the tool's allow/deny permit. The walk goes through os.Root:
// symlinks are listed, never followed, and nothing outside the checkout
// is read. An unreadable directory below start is skipped, and so are
// the write tools' own temporary files (".NAME.jp-tmp-…").
func (s *Server) walk(ctx context.Context, tool, start string, fn func(rel string, d fs.DirEntry) error) error {
	opt := gitignore.Options{Exclude: gitignore.ReadExclude(s.dir)}
	err := gitignore.Walk(ctx, s.root.FS(), start, opt, func(rel string, d fs.DirEntry, err error) error {
		if err != nil || !s.permitted(tool, rel) {
			return nil
		}
		if d.Type().IsRegular() && atomicfile.IsTemp(path.Base(rel), tempMarker) {
			return nil
		}
		return fn(rel, d)
	})
	if errors.Is(err, gitignore.ErrInsideGit) {
		return refuse("%s is inside .git/, which %s never lists; read a file in it by name with fs_read_file", start, tool)
	}
	return err
}

func (s *Server) listFiles(ctx context.Context, args json.RawMessage) (ports.ToolResult, error) {
	var a struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
	}
	if err := decode(args, &a); err != nil {
		return ports.ToolResult{}, err
	}
	start := "."
	if a.Path != "" {
		rel, err := s.readable(ListFiles, a.Path)
		if err != nil {
			return ports.ToolResult{}, err
		}
		start = rel
	}
	if a.Pattern != "" && !validGlob(a.Pattern) {
		return ports.ToolResult{}, refuse("pattern %q is not a valid glob", a.Pattern)
	}
	var files []string
	total := 0
	err := s.walk(ctx, ListFiles, start, func(rel string, _ fs.DirEntry) error {
		if a.Pattern != "" && !globMatch(a.Pattern, rel) && !globMatch(a.Pattern, path.Base(rel)) {
			return nil
		}
		total++
		if len(files) < maxListEntries {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return ports.ToolResult{}, err
		}
		return ports.ToolResult{}, rootErr("list", start, err)
	}
	sort.Strings(files)
	text := strings.Join(files, "\n")
	switch {
	case total == 0:
		text = "No files match."
	case total > len(files):
		text += fmt.Sprintf("\n[… %d more files not shown; narrow pattern or path]", total-len(files))
	}
	return ports.ToolResult{Content: text + "\n"}, nil
}

func (s *Server) grepFiles(ctx context.Context, args json.RawMessage) (ports.ToolResult, error) {
	q, err := s.grepQuery(args)
	if err != nil {
		return ports.ToolResult{}, err
	}
	cands, err := s.grepCandidates(ctx, q.filters)
	if err != nil {
		return ports.ToolResult{}, err
	}
	hits := s.matchFiles(ctx, cands, q.re, q.ctxLines, q.limit)
	var out strings.Builder
	found := 0
	for i, rel := range cands {
		if found >= q.limit {
			break
		}
		h := hits[i]
		switch {
		case h.n == 0:
		case found+h.n <= q.limit:
			out.WriteString(h.text)
			found += h.n
		default:
			// Only part of this file's matches fit: match it again with
			// the room left.
			if b, err := s.readRegular(GrepFiles, rel); err == nil {
				found += grepFile(&out, rel, b, q.re, q.ctxLines, q.limit-found)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return ports.ToolResult{}, err
	}
	text := out.String()
	switch {
	case found == 0:
		text = "No matches.\n"
	case found >= q.limit:
		text += fmt.Sprintf("[… stopped at %d matches; narrow the pattern or paths, or raise max_matches]\n", q.limit)
	}
	return ports.ToolResult{Content: text}, nil
}

// grepQuery is a grep_files call's arguments, checked: the compiled
// pattern, the path globs, the context lines and the match limit.
type grepQuery struct {
	re       *regexp.Regexp
	filters  []string
	ctxLines int
	limit    int
}

func (s *Server) grepQuery(args json.RawMessage) (grepQuery, error) {
	var a struct {
		Pattern    string   `json:"pattern"`
		Paths      []string `json:"paths"`
		Context    int      `json:"context"`
		MaxMatches int      `json:"max_matches"`
		IgnoreCase bool     `json:"ignore_case"`
	}
	if err := decode(args, &a); err != nil {
		return grepQuery{}, err
	}
	if a.Pattern == "" {
		return grepQuery{}, refuse("pattern is required: a regular expression (RE2 syntax)")
	}
	expr := a.Pattern
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return grepQuery{}, refuse("pattern is not a valid regular expression: %v", err)
	}
	q := grepQuery{re: re, limit: a.MaxMatches, ctxLines: min(max(a.Context, 0), 20)}
	if q.limit <= 0 {
		q.limit = defaultMatches
	}
	q.limit = min(q.limit, maxMatches)
	for _, p := range a.Paths {
		p = strings.TrimPrefix(p, "./")
		if strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") {
			if _, err := s.resolve(p); err != nil {
				return grepQuery{}, err
			}
		}
		if !validGlob(p) {
			return grepQuery{}, refuse("paths: %q is not a valid glob", p)
		}
		q.filters = append(q.filters, p)
	}
	return q, nil
}

// grepCandidates lists the regular files to search, in the walk's order:
// those matching a filter (every file without filters), none too big.
// Workers then read and match them concurrently; the output keeps this
// order.
func (s *Server) grepCandidates(ctx context.Context, filters []string) ([]string, error) {
	var cands []string
	err := s.walk(ctx, GrepFiles, ".", func(rel string, d fs.DirEntry) error {
		if len(filters) > 0 && !matchesAny(filters, rel) {
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > maxGrepFile {
			return nil
		}
		cands = append(cands, rel)
		return nil
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, rootErr("grep", ".", err)
	}
	return cands, nil
}

// grepFile writes the matching lines of one file as grep -n does
// ("path:line:text", context lines "path-line-text", "--" between
// groups) and returns how many matched (at most room).
func grepFile(out *strings.Builder, rel string, b []byte, re *regexp.Regexp, ctxLines, room int) int {
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	found, printed := 0, -1 // printed: index of the last line written
	for i, l := range lines {
		if found >= room {
			break
		}
		if !re.MatchString(l) {
			continue
		}
		found++
		from := max(i-ctxLines, printed+1)
		if printed >= 0 && from > printed+1 && ctxLines > 0 {
			out.WriteString("--\n")
		}
		for j := from; j < i; j++ {
			fmt.Fprintf(out, "%s-%d-%s\n", rel, j+1, cut(lines[j]))
		}
		fmt.Fprintf(out, "%s:%d:%s\n", rel, i+1, cut(l))
		printed = i
		for j := i + 1; j <= min(i+ctxLines, len(lines)-1); j++ {
			if re.MatchString(lines[j]) {
				break
			}
			fmt.Fprintf(out, "%s-%d-%s\n", rel, j+1, cut(lines[j]))
			printed = j
		}
	}
	return found
}

func cut(l string) string {
	if len(l) > maxLineBytes {
		return l[:maxLineBytes] + "…"
	}
	return l
}

func matchesAny(globs []string, rel string) bool {
	for _, g := range globs {
		if globMatch(g, rel) || globMatch(g, path.Base(rel)) {
			return true
		}
	}
	return false
}

// fileHits is one file's grep output and how many lines matched.
type fileHits struct {
	text string
	n    int
}

// matchFiles reads the candidates with a few workers and greps each text
// file (at most limit matches a file).
func (s *Server) matchFiles(ctx context.Context, cands []string, re *regexp.Regexp, ctxLines, limit int) []fileHits {
	hits := make([]fileHits, len(cands))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0)*2, 8) {
		wg.Go(func() {
			for i := range next {
				b, err := s.readRegular(GrepFiles, cands[i])
				if err == nil && !isBinary(b) && re.Match(b) {
					var sb strings.Builder
					n := grepFile(&sb, cands[i], b, re, ctxLines, limit)
					hits[i] = fileHits{text: sb.String(), n: n}
				}
			}
		})
	}
	for i := range cands {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return hits
}
