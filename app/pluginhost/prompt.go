package pluginhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/ports"
)

// The requests that reach the user: prompt (docs/plugins.md), print and log.

// secretAnswer is the answer to a secret prompt: sent as is, traced with
// its value hidden (session.send).
type secretAnswer struct{ plugin.PromptResponse }

// prompt asks the user the plugin's question through the Prompter and
// answers with its outcome. ESC is cancelled, no terminal is unavailable,
// and Ctrl-C escalates to a graceful shutdown: the plugin gets shutdown,
// not an answer.
func (s *session) prompt(_ context.Context, req plugin.Prompt) (plugin.Message, error) {
	ctx := s.pctx // ends with the run, and when a shutdown begins
	resp := plugin.PromptResponse{ID: req.ID}
	if !s.h.prompter.Interactive() {
		resp.Outcome, resp.Reason = plugin.PromptOutcomeUnavailable, "no interactive terminal"
		return resp, nil
	}
	resume := s.h.printer.Suspend() // the prompt draws below what was printed
	defer resume()
	q := ports.Question{Kind: req.Kind, Message: req.Message, Default: req.Default, Topic: "plugin:" + s.name}
	for _, o := range req.Options {
		q.Options = append(q.Options, ports.Option{Label: o, Value: o})
	}
	ans, err := s.h.prompter.Ask(ctx, q)
	switch {
	case err == nil:
		resp.Outcome = plugin.PromptOutcomeAnswered
		if req.Kind == plugin.PromptKindConfirm {
			resp.Value = ans.Bool
		} else {
			resp.Value = ans.Text
		}
	case ctx.Err() != nil:
		return nil, nil // the run is ending; the plugin has been told
	case errors.Is(err, ports.ErrInterrupted):
		s.shutdown()
		return nil, nil
	case errors.Is(err, ports.ErrCancelled):
		resp.Outcome = plugin.PromptOutcomeCancelled
	case errors.Is(err, ports.ErrUnavailable):
		resp.Outcome = plugin.PromptOutcomeUnavailable
		resp.Reason = strings.TrimSuffix(err.Error(), ": "+ports.ErrUnavailable.Error())
	default:
		return nil, fmt.Errorf("the prompt failed: %w", err)
	}
	if req.Kind == plugin.PromptKindSecret {
		return secretAnswer{resp}, nil
	}
	return resp, nil
}

// outputState remembers the last channel printed to, to end its block
// when the run ends.
type outputState struct {
	last ports.Channel
}

func (o *outputState) end(p ports.Printer) {
	if o.last != ports.ChannelUnknown {
		p.EndBlock(o.last)
	}
}

// print routes the plugin's output through the Printer. plain writes the
// text as is; markdown, code and json end the block after it (json is
// re-indented first, and must be valid).
func (s *session) print(ctx context.Context, req plugin.Print) (plugin.Message, error) {
	ch := ports.ChannelContent
	if req.Channel != "" {
		c, ok := ports.ParseChannel(req.Channel)
		if !ok {
			return nil, fmt.Errorf("%w: unknown channel %q: expected one of content, chrome, tool_call, tool_result, reasoning, error", plugin.ErrBadField, req.Channel)
		}
		ch = c
	}
	text := req.Text
	if req.Format == plugin.PrintFormatJSON {
		var buf bytes.Buffer
		if err := json.Indent(&buf, []byte(text), "", "  "); err != nil {
			return nil, fmt.Errorf("%w: text is not JSON: %v", plugin.ErrBadField, err)
		}
		text = buf.String() + "\n"
	}
	if s.out.last != ch && s.out.last != ports.ChannelUnknown {
		s.h.printer.EndBlock(s.out.last)
	}
	s.h.printer.Write(ch, text)
	s.out.last = ch
	switch {
	case req.Format != plugin.PrintFormatUnknown && req.Format != plugin.PrintFormatPlain:
		s.h.printer.EndBlock(ch)
		s.out.last = ports.ChannelUnknown
	case strings.HasSuffix(text, "\n"):
		// A whole line of a plugin that may run for long (a server's URL):
		// out now, also when stdout is a pipe.
		if err := s.h.printer.Flush(); err != nil {
			s.log.Debug("flush plugin output", "plugin", s.name, "error", err)
		}
	}
	return nil, nil
}

// logLevels maps a log request's level to slog's.
var logLevels = map[plugin.LogLevel]slog.Level{
	plugin.LogLevelTrace: levelTrace,
	plugin.LogLevelDebug: slog.LevelDebug,
	plugin.LogLevelInfo:  slog.LevelInfo,
	plugin.LogLevelWarn:  slog.LevelWarn,
	plugin.LogLevelError: slog.LevelError,
}

// logLine writes the plugin's log request into the host log, attributed
// to the plugin, with its fields as attributes.
func (s *session) logLine(ctx context.Context, req plugin.Log) (plugin.Message, error) {
	lvl, _ := plugin.ParseLogLevel(req.Level)
	keys := make([]string, 0, len(req.Fields))
	for k := range req.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	args := make([]any, 0, 2+2*len(keys))
	args = append(args, "plugin", s.name)
	for _, k := range keys {
		args = append(args, k, req.Fields[k])
	}
	s.log.Log(ctx, logLevels[lvl], req.Message, args...)
	return nil, nil
}
