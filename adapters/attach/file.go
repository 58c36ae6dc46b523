package attach

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/internal/safetext"
)

// fileSpec reads a file: URL as the Rust jp does: file:PATH, file:/PATH,
// file://PATH and file:///PATH all name PATH relative to the checkout's
// root (percent-escapes decoded). ?exclude makes it an exclusion pattern
// instead. PATH may be a file, a directory or a glob.
func fileSpec(spec string) (path string, exclude bool, err error) {
	rest := strings.TrimPrefix(spec, "file:")
	rest, query, _ := strings.Cut(rest, "?")
	if query != "" {
		q, qerr := url.ParseQuery(query)
		if qerr != nil {
			return "", false, fmt.Errorf("%s: %v", safetext.String(spec), qerr)
		}
		for k := range q {
			if k != "exclude" {
				return "", false, fmt.Errorf("%s: unknown parameter %q: a file: attachment takes ?exclude only", safetext.String(spec), k)
			}
		}
		exclude = q.Has("exclude") && q.Get("exclude") != "false"
	}
	rest = strings.TrimLeft(rest, "/")
	path, err = url.PathUnescape(rest)
	if err != nil {
		return "", false, fmt.Errorf("%s: %v", safetext.String(spec), err)
	}
	if path == "" {
		return "", false, fmt.Errorf("%s: give a path inside the checkout, like file:src/main.go", safetext.String(spec))
	}
	return path, exclude, nil
}

// fileURL reads a file: spec: the path, relative to the checkout's root (the
// directory of the request outside a checkout), with the confinement of a
// plain path.
func (r reader) fileURL(ctx context.Context, spec, path string) ([]conversation.Attachment, error) {
	fr := r
	if r.req.Root != "" {
		fr.req.Dir = r.req.Root
	}
	return fr.paths(ctx, path)
}

// excludeMatches drops the attachments whose source matches pattern (a
// file:PATTERN?exclude spec: it applies to what came before it).
func excludeMatches(atts []conversation.Attachment, pattern string) []conversation.Attachment {
	out := atts[:0]
	for _, a := range atts {
		if ok, _ := doublestar.Match(pattern, a.Source); ok || a.Source == pattern || strings.HasPrefix(a.Source, strings.TrimSuffix(pattern, "/")+"/") {
			continue
		}
		out = append(out, a)
	}
	return out
}
