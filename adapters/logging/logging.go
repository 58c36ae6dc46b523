// Package logging builds jp's slog logger: records go to stderr at the
// verbosity chosen with -v, and to <data>/logs/jp.log (or --log-file).
// The file is opened only when the first record is written, so quiet runs
// touch no file. Values that look secret are redacted before any handler
// writes them.
package logging

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// LevelTrace is below debug: protocol message tracing (-vvv).
const LevelTrace = slog.Level(-8)

// Level maps the -v count to a level: 0 warn, 1 info, 2 debug, 3+ trace.
func Level(verbosity int) slog.Level {
	switch {
	case verbosity <= 0:
		return slog.LevelWarn
	case verbosity == 1:
		return slog.LevelInfo
	case verbosity == 2:
		return slog.LevelDebug
	}
	return LevelTrace
}

// Logger owns the log file; Close it when the process ends.
type Logger struct {
	*slog.Logger
	file *lazyFile
}

// New returns a logger writing text to stderr and to logFile (empty: no
// file).
func New(stderr io.Writer, logFile string, verbosity int) *Logger {
	return NewWithOptions(stderr, Options{File: logFile, Verbosity: verbosity})
}

// Options are the logger's settings.
type Options struct {
	// File is the log file; empty: none.
	File string
	// FileLevel, when set, is the file's level instead of Verbosity's
	// (--log-file keeps debug records whatever -v says).
	FileLevel *slog.Level
	// JSON writes JSON lines (--log-format json) instead of text.
	JSON      bool
	Verbosity int
}

// NewWithOptions returns a logger writing to stderr and to o.File.
func NewWithOptions(stderr io.Writer, o Options) *Logger {
	handler := func(w io.Writer, lvl slog.Level) slog.Handler {
		opts := &slog.HandlerOptions{Level: lvl, ReplaceAttr: Redact}
		if o.JSON {
			return slog.NewJSONHandler(w, opts)
		}
		return slog.NewTextHandler(w, opts)
	}
	lvl := Level(o.Verbosity)
	handlers := []slog.Handler{handler(stderr, lvl)}
	var lf *lazyFile
	if o.File != "" {
		lf = &lazyFile{path: o.File}
		flvl := lvl
		if o.FileLevel != nil {
			flvl = min(lvl, *o.FileLevel)
		}
		handlers = append(handlers, handler(lf, flvl))
	}
	return &Logger{Logger: slog.New(slog.NewMultiHandler(handlers...)), file: lf}
}

// secretKey matches attribute keys whose values are secrets.
var secretKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(api_?key|token|secret|passw(or)?d|authorization|cookie|credential|bearer)`)
})

// secretText matches secrets inside a value: an Authorization header's
// credentials, a key=value or key: value pair with a secret-looking key,
// and the common API key shapes.
var secretText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)((?:bearer|basic)\s+)[^\s"',]+|((?:api_?key|token|secret|password|x-api-key)["']?\s*[:=]\s*["']?)[^\s"',&]+|\b(sk-(?:ant-)?[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{16,}|AIza[A-Za-z0-9_-]{20,})`)
})

// Redacted replaces a secret in the log.
const Redacted = "[redacted]"

// Redact is the handlers' ReplaceAttr: an attribute whose key names a
// secret has its value replaced, and secrets inside other string values
// (an Authorization header, key=value, an API key's shape) are replaced.
func Redact(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey || a.Key == slog.LevelKey {
		return a
	}
	if secretKey().MatchString(a.Key) && a.Value.Kind() != slog.KindGroup {
		return slog.String(a.Key, Redacted)
	}
	switch a.Value.Kind() {
	case slog.KindString:
		if s := a.Value.String(); secretText().MatchString(s) {
			return slog.String(a.Key, RedactText(s))
		}
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			if s := err.Error(); secretText().MatchString(s) {
				return slog.String(a.Key, RedactText(s))
			}
		}
	}
	return a
}

// RedactText replaces the secrets secretText finds in s.
func RedactText(s string) string {
	return secretText().ReplaceAllStringFunc(s, func(m string) string {
		sub := secretText().FindStringSubmatch(m)
		switch {
		case sub[1] != "":
			return sub[1] + Redacted
		case sub[2] != "":
			return sub[2] + Redacted
		}
		return Redacted
	})
}

// Close closes the log file if it was opened.
func (l *Logger) Close() error {
	if l.file == nil {
		return nil
	}
	return l.file.Close()
}

type lazyFile struct {
	path string
	mu   sync.Mutex
	f    *os.File
	err  error
}

func (l *lazyFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.err == nil {
		if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
			l.err = err
		} else {
			l.f, l.err = os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		}
	}
	if l.err != nil {
		return len(p), nil // logging must never fail the command
	}
	return l.f.Write(p)
}

func (l *lazyFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
