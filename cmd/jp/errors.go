package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/ports"
)

// Exit codes (docs/architecture.md). This file is the one place errors become
// exit codes.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// exitError carries an explicit exit code (a plugin's exit, for example).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// reportError prints err as one line and returns the exit code for it.
func reportError(w io.Writer, err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(w, "jp: %s\n", oneLine(ee.msg))
		}
		return ee.code
	}
	code := ExitError
	var ue *app.UsageError
	switch {
	case errors.As(err, &ue):
		code = ExitUsage
	case errors.Is(err, ports.ErrInterrupted), errors.Is(err, context.Canceled):
		fmt.Fprintln(w, "jp: interrupted")
		return ExitInterrupted
	}
	fmt.Fprintf(w, "jp: %s\n", oneLine(err.Error()))
	return code
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.ReplaceAll(s, "\n", " ")
}
