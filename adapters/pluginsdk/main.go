package pluginsdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jpcli/jp/domain/plugin"
)

// ExitError ends a run function with a specific exit code and reason.
type ExitError struct {
	Code   int
	Reason string
}

func (e *ExitError) Error() string { return e.Reason }

// Exit returns an error that makes Run exit with code, printing reason.
func Exit(code int, reason string) error { return &ExitError{Code: code, Reason: reason} }

// RunFunc is a plugin's body. ctx ends when jp asks for shutdown.
type RunFunc func(ctx context.Context, c *Client) error

// Run serves one plugin invocation on r and w: the handshake (answering
// describe with m), then fn, then exit. It returns the exit code: 0 when
// fn returns nil, an ExitError's code, else 1 with the error as reason.
// Errors of the connection itself are written to stderr.
func Run(ctx context.Context, r io.Reader, w, stderr io.Writer, m plugin.Manifest, fn RunFunc) int {
	c, err := Start(ctx, r, w, m)
	if errors.Is(err, ErrDescribed) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", m.Name, err)
		return 1
	}
	code, reason := 0, ""
	if err := fn(c.Context(), c); err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			code, reason = ee.Code, ee.Reason
		} else {
			code, reason = 1, err.Error()
		}
	}
	if err := c.Exit(code, reason); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", m.Name, err)
		c.cancel()
		return code
	}
	c.Wait() // jp closes the connection once it has the exit
	return code
}

// Main runs the plugin on the process's standard streams and exits. Run
// directly from a terminal (not by jp), it prints the manifest's help.
func Main(m plugin.Manifest, fn RunFunc) {
	if st, err := os.Stdin.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintf(os.Stderr, "%s is a jp plugin: run it as jp %s\n\n%s\n", os.Args[0], strings.Join(m.Command, " "), m.Help)
		os.Exit(2)
	}
	os.Exit(Run(context.Background(), os.Stdin, os.Stdout, os.Stderr, m, fn))
}
