// Package logging builds jp's slog logger: records go to stderr at the
// verbosity chosen with -v, and to <data>/logs/jp.log. The file is opened
// only when the first record is written, so quiet runs touch no file.
package logging

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
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

// New returns a logger writing to stderr and to logFile (empty: no file).
func New(stderr io.Writer, logFile string, verbosity int) *Logger {
	lvl := Level(verbosity)
	opts := &slog.HandlerOptions{Level: lvl}
	handlers := []slog.Handler{slog.NewTextHandler(stderr, opts)}
	var lf *lazyFile
	if logFile != "" {
		lf = &lazyFile{path: logFile}
		handlers = append(handlers, slog.NewTextHandler(lf, opts))
	}
	return &Logger{Logger: slog.New(slog.NewMultiHandler(handlers...)), file: lf}
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
