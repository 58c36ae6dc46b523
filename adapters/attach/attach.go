// Package attach implements ports.Attacher: files, directories (walked
// recursively by internal/gitignore, honouring .gitignore files as git
// does), globs (with **), a command's output (cmd:COMMAND, run by sh in
// the checkout) and http(s) URLs. Text is attached as text; png, jpeg, gif
// and webp images as images; anything else is refused. Limits, and what
// is confined to the checkout (confine.go), are in docs/attachments.md.
package attach

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/internal/gitignore"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// Limits of what one query may attach.
const (
	// MaxFileBytes is the largest text file, command output or page.
	MaxFileBytes = 1 << 20
	// MaxImageBytes is the largest image (the Messages API's limit).
	MaxImageBytes = 5 << 20
	// MaxTotalBytes is the most one query attaches in all.
	MaxTotalBytes = 32 << 20
	// MaxFiles is the most files a directory or glob attaches.
	MaxFiles = 5000
	// CommandTimeout bounds a cmd: attachment.
	CommandTimeout = 60 * time.Second
	// URLTimeout bounds fetching a URL.
	URLTimeout = 30 * time.Second
)

// Attacher is the ports.Attacher. The zero value is ready to use.
type Attacher struct {
	// HTTPClient fetches URLs; nil means a client with URLTimeout.
	HTTPClient *http.Client
	// MCP reads mcp://SERVER/URI resources; nil refuses them.
	MCP ports.MCPPool
	// Getenv reads JP_GITHUB_TOKEN, GITHUB_TOKEN and JP_GITHUB_API_URL
	// for gh: attachments; nil means os.Getenv.
	Getenv func(string) string
}

var _ ports.Attacher = (*Attacher)(nil)

// Attach reads every spec in order.
func (a *Attacher) Attach(ctx context.Context, req ports.AttachRequest) ([]conversation.Attachment, error) {
	var out []conversation.Attachment
	total := int64(0)
	add := func(att conversation.Attachment) error {
		total += att.Size
		if total > MaxTotalBytes {
			return fmt.Errorf("attachments: %s in all is over the %s limit per query (at %s)", size(total), size(MaxTotalBytes), att.Source)
		}
		out = append(out, att)
		return nil
	}
	r := reader{req: req, co: newCheckout(req.Root)}
	for _, spec := range req.Specs {
		var atts []conversation.Attachment
		var err error
		switch conversation.AttachKindOf(spec) {
		case conversation.AttachCommand:
			var att conversation.Attachment
			att, err = command(ctx, req.Root, strings.TrimSpace(strings.TrimPrefix(spec, "cmd:")))
			atts = []conversation.Attachment{att}
		case conversation.AttachMCP:
			atts, err = a.mcpResource(ctx, req, spec)
		case conversation.AttachURL:
			var att conversation.Attachment
			att, err = a.url(ctx, spec)
			atts = []conversation.Attachment{att}
		case conversation.AttachGitHub:
			var att conversation.Attachment
			att, err = a.github(ctx, req.Root, spec)
			atts = []conversation.Attachment{att}
		case conversation.AttachConversation:
			atts, err = r.conversationAttachment(ctx, spec)
		case conversation.AttachFile:
			var path string
			var exclude bool
			if path, exclude, err = fileSpec(spec); err != nil {
				return nil, err
			}
			if exclude {
				out = excludeMatches(out, path)
				continue
			}
			atts, err = r.fileURL(ctx, spec, path)
		default:
			atts, err = r.paths(ctx, spec)
		}
		if err != nil {
			return nil, err
		}
		for _, att := range atts {
			// What did not come from a file of the checkout stays in the
			// user-local copy of the conversation (see Attachment.Local).
			kind := conversation.AttachKindOf(spec)
			att.Local = att.Local || (kind != conversation.AttachPath && kind != conversation.AttachFile)
			if err := add(att); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// content makes an attachment of data read from source: text, or an
// image; anything else is an error. It keeps data: the caller never
// changes it afterwards.
func content(source string, data []byte) (conversation.Attachment, error) {
	sum := sha256.Sum256(data)
	att := conversation.Attachment{Source: source, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
	if mt := imageType(data); mt != "" {
		if len(data) > MaxImageBytes {
			return att, fmt.Errorf("%s: image of %s is over the %s limit for an attached image", source, size(int64(len(data))), size(MaxImageBytes))
		}
		att.MediaType, att.Data = mt, data
		return att, nil
	}
	if !isText(data) {
		return att, fmt.Errorf("%s: binary file (not text, and not a png, jpeg, gif or webp image): jp attaches text and images only", source)
	}
	if len(data) > MaxFileBytes {
		return att, fmt.Errorf("%s: %s is over the %s limit for an attached file", source, size(int64(len(data))), size(MaxFileBytes))
	}
	// data is the caller's and never changed again (as att.Data shares an
	// image's): the text shares it too, rather than copying a 20 MB file.
	att.MediaType, att.Content = "text/plain", unsafe.String(unsafe.SliceData(data), len(data))
	return att, nil
}

// imageType is the media type of a png, jpeg, gif or webp image, or "".
func imageType(data []byte) string {
	mt := http.DetectContentType(data)
	if slices.Contains(llm.ImageTypes, mt) {
		return mt
	}
	return ""
}

// isText reports whether data is UTF-8 text without NUL bytes.
func isText(data []byte) bool {
	return !bytes.Contains(data, []byte{0}) && utf8.Valid(data)
}

// size renders a byte count: "1 MiB", "2.5 MiB", "300 KiB", "12 bytes".
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
	case n >= 1<<10:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}

// command runs line with sh in root and attaches its output (stdout and
// stderr interleaved). A failing command is an error.
func command(ctx context.Context, root, line string) (conversation.Attachment, error) {
	source := "cmd:" + line
	if line == "" {
		return conversation.Attachment{}, errors.New("cmd: needs a command, e.g. -a 'cmd:git diff'")
	}
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = root
	var buf limitedBuffer
	buf.max = MaxFileBytes
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	if buf.over {
		return conversation.Attachment{}, fmt.Errorf("%s: output is over the %s limit for an attached file", source, size(MaxFileBytes))
	}
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return conversation.Attachment{}, fmt.Errorf("%s: did not finish within %s", source, CommandTimeout)
		}
		last := strings.TrimSpace(buf.String())
		if i := strings.LastIndexByte(last, '\n'); i >= 0 {
			last = last[i+1:]
		}
		return conversation.Attachment{}, fmt.Errorf("%s: %v: %s", source, err, last)
	}
	return content(source, buf.Bytes())
}

// limitedBuffer keeps up to max bytes and notes more.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// url fetches an http(s) URL, up to the size limit of its kind.
func (a *Attacher) url(ctx context.Context, u string) (conversation.Attachment, error) {
	hc := a.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: URLTimeout}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return conversation.Attachment{}, fmt.Errorf("%s: %v", u, err)
	}
	req.Header.Set("User-Agent", "jp")
	res, err := hc.Do(req)
	if err != nil {
		return conversation.Attachment{}, fmt.Errorf("%s: %v", u, errors.Unwrap(err))
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode/100 != 2 {
		return conversation.Attachment{}, fmt.Errorf("%s: HTTP %s", u, res.Status)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, MaxImageBytes+1))
	if err != nil {
		return conversation.Attachment{}, fmt.Errorf("%s: %v", u, err)
	}
	if len(data) > MaxImageBytes || (imageType(data) == "" && len(data) > MaxFileBytes) {
		limit := int64(MaxFileBytes)
		if imageType(data) != "" {
			limit = MaxImageBytes
		}
		return conversation.Attachment{}, fmt.Errorf("%s: the response is over the %s limit for an attached page", u, size(limit))
	}
	return content(u, data)
}

// reader reads the path specs of one request.
type reader struct {
	req ports.AttachRequest
	co  checkout
}

// note passes a line to the request's Note.
func (r reader) note(line string) {
	if r.req.Note != nil {
		r.req.Note(line)
	}
}

// paths attaches a file, a directory or a glob, relative to req.Dir.
func (r reader) paths(ctx context.Context, spec string) ([]conversation.Attachment, error) {
	if spec == "" {
		return nil, errors.New("-a needs a path, cmd:COMMAND or a URL")
	}
	if r.req.Confine {
		if r.req.Root == "" {
			// Nothing to be confined to (the default workspace): a
			// confined path would be read from wherever jp runs.
			return nil, fmt.Errorf("%s: refused: there is no checkout to attach paths from", safetext.String(spec))
		}
		if err := confinedSpec(spec); err != nil {
			return nil, err
		}
	}
	dir := r.req.Dir
	abs := spec
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, spec)
	}
	if strings.ContainsAny(spec, "*?[{") {
		if _, err := os.Lstat(abs); err != nil {
			return r.glob(spec)
		}
	}
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or directory", spec)
		}
		return nil, fmt.Errorf("%s: %v", spec, errors.Unwrap(err))
	}
	// A path typed by the user may lie outside the checkout (or lead out
	// through a link): it is read, and kept out of the checkout copy.
	outside := !r.co.contains(resolve(abs))
	if outside && r.req.Confine {
		return nil, linkedOut(spec)
	}
	if st.IsDir() {
		atts, err := r.directory(ctx, abs, filepath.Clean(spec))
		for i := range atts {
			atts[i].Local = outside
		}
		return atts, err
	}
	att, err := file(abs, filepath.ToSlash(filepath.Clean(spec)), st.Size())
	if err != nil {
		return nil, err
	}
	att.Local = outside
	return []conversation.Attachment{att}, nil
}

// file reads one named file.
func file(abs, source string, n int64) (conversation.Attachment, error) {
	if n > MaxImageBytes {
		return conversation.Attachment{}, fmt.Errorf("%s: %s is over the %s limit for an attached file", source, size(n), size(MaxFileBytes))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return conversation.Attachment{}, fmt.Errorf("%s: %v", source, errors.Unwrap(err))
	}
	return content(source, data)
}

// glob attaches the files matching a pattern (** crosses directories); a
// glob matches what it says: .gitignore is not consulted. A match that is
// (or is reached through) a symbolic link resolving outside the checkout
// is left out with a note, or refused under Confine.
func (r reader) glob(pattern string) ([]conversation.Attachment, error) {
	base, pat := doublestar.SplitPattern(filepath.ToSlash(pattern))
	root := base
	if !filepath.IsAbs(root) {
		root = filepath.Join(r.req.Dir, base)
	}
	realBase := resolve(root)
	matches, err := doublestar.Glob(os.DirFS(root), pat, doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors())
	if err != nil {
		return nil, fmt.Errorf("%s: %v", pattern, err)
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("%s: no file matches", pattern)
	}
	if len(matches) > MaxFiles {
		return nil, fmt.Errorf("%s: %d files match, over the limit of %d files per pattern", pattern, len(matches), MaxFiles)
	}
	slices.Sort(matches)
	out := make([]conversation.Attachment, 0, len(matches))
	for _, m := range matches {
		abs := filepath.Join(root, filepath.FromSlash(m))
		real := resolve(abs)
		outside := !r.co.contains(real)
		if outside && r.req.Confine {
			return nil, linkedOut(path(base, m))
		}
		if outside && real != filepath.Join(realBase, filepath.FromSlash(m)) {
			// The match, not the part of the pattern typed, leads out.
			r.note(skipNote(path(base, m)))
			continue
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", m, errors.Unwrap(err))
		}
		att, err := file(abs, path(base, m), st.Size())
		if err != nil {
			return nil, err
		}
		att.Local = outside
		out = append(out, att)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no file matches inside the checkout (every match is a symbolic link leading out of it)", pattern)
	}
	return out, nil
}

func path(base, rel string) string {
	if base == "" || base == "." {
		return rel
	}
	return strings.TrimSuffix(base, "/") + "/" + rel
}

// directory attaches the text files and images under abs, in path order,
// walked by internal/gitignore with git's rules (docs/ignored-files.md)
// and hidden files and directories (.env, .github, ...) left out. When abs
// is inside the checkout root, the .gitignore files from the root down
// and the checkout's info/exclude apply, as they do for fs_list_files.
// Binary files and files over the limits are skipped there, not refused.
// Symbolic links are never followed; one that resolves outside the
// checkout is noted.
func (r reader) directory(ctx context.Context, abs, shown string) ([]conversation.Attachment, error) {
	root := r.req.Root
	top, start := abs, "."
	if root != "" {
		if under(root, abs) {
			rel, _ := filepath.Rel(root, abs)
			top, start = root, filepath.ToSlash(rel)
		}
	}
	var out []conversation.Attachment
	opt := gitignore.Options{SkipDotfiles: true, Exclude: gitignore.ReadExclude(top)}
	err := gitignore.Walk(ctx, os.DirFS(top), start, opt, func(rel string, d fs.DirEntry, err error) error {
		if start != "." {
			rel = strings.TrimPrefix(rel, start+"/")
		}
		source := path(filepath.ToSlash(shown), rel)
		if err != nil {
			return fmt.Errorf("%s: %v", source, errors.Unwrap(err))
		}
		if d.Type()&fs.ModeSymlink != 0 {
			full := filepath.Join(top, filepath.FromSlash(start), filepath.FromSlash(rel))
			if !r.co.contains(resolve(full)) {
				r.note(skipNote(source))
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if len(out) >= MaxFiles {
			return fmt.Errorf("%s: over the limit of %d files per directory", shown, MaxFiles)
		}
		info, err := d.Info()
		if err != nil || info.Size() > MaxImageBytes {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(top, filepath.FromSlash(start), filepath.FromSlash(rel)))
		if err != nil {
			return fmt.Errorf("%s: %v", source, errors.Unwrap(err))
		}
		att, err := content(source, data)
		if err != nil {
			return nil // binary or oversized: skipped inside a directory
		}
		out = append(out, att)
		return nil
	})
	if errors.Is(err, gitignore.ErrInsideGit) {
		return nil, fmt.Errorf("%s: is inside .git, which jp never attaches as a directory; attach a file in it by name", shown)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == start {
			return nil, fmt.Errorf("%s: %v", shown, pe.Err)
		}
		return nil, err
	}
	return out, nil
}

// mcpResource reads mcp://SERVER/URI: resource URI of the configured MCP
// server SERVER (enabled or not), each of its contents an attachment.
func (a *Attacher) mcpResource(ctx context.Context, req ports.AttachRequest, spec string) ([]conversation.Attachment, error) {
	name, uri, _ := strings.Cut(strings.TrimPrefix(spec, "mcp://"), "/")
	if name == "" || uri == "" {
		return nil, fmt.Errorf("%s: give mcp://SERVER/URI, like mcp://everything/demo://resource/static/document/features.md (jp mcp resources SERVER lists them)", spec)
	}
	if a.MCP == nil {
		return nil, fmt.Errorf("%s: MCP resources cannot be attached here", spec)
	}
	srv, ok := req.MCP.Servers[name]
	if !ok {
		return nil, fmt.Errorf("%s: no MCP server %q is configured; add [mcp.servers.%s] (see docs/mcp.md)", spec, name, name)
	}
	lim := ports.MCPLimitsOf(req.MCP)
	s, release, err := a.MCP.Open(ctx, ports.MCPServerSpec{Name: name, Server: srv, Dir: req.Root}, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	defer release()
	contents, err := s.ReadResource(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	if len(contents) == 0 {
		return nil, fmt.Errorf("%s: the server returned no contents", spec)
	}
	out := make([]conversation.Attachment, 0, len(contents))
	for _, c := range contents {
		data := c.Blob
		if len(data) == 0 {
			data = []byte(c.Text)
		}
		att, err := content(spec, data)
		if err != nil {
			return nil, err
		}
		out = append(out, att)
	}
	return out, nil
}
