package main

import (
	"bufio"
	"errors"
	"strings"

	"github.com/jpcli/jp/adapters/terminal"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
	jpwire "github.com/jpcli/jp/wire"
)

// targets turns the conversation arguments a command was given into
// what the resolver takes: a picker (?, ?p, ?s, ?a) becomes the ID chosen
// on the terminal, and - the IDs read from standard input, one a line.
// Everything else passes through unchanged.
func (rt *Runtime) targets(a *jpwire.App, loc workspace.Location, raws []string) ([]string, error) {
	out := make([]string, 0, len(raws))
	dash := false
	for _, raw := range raws {
		raw = strings.TrimSpace(raw)
		if f, ok := app.ParsePicker(raw); ok {
			id, err := rt.pick(a, loc, raw, f)
			if err != nil {
				return nil, err
			}
			out = append(out, id)
			continue
		}
		if raw != "-" {
			out = append(out, raw)
			continue
		}
		if dash {
			return nil, &app.UsageError{Msg: "- may be given once: it reads every conversation ID piped in"}
		}
		dash = true
		// Standard input itself, not only the prompt terminal (which
		// needs stderr too): a terminal on stdin is a keyboard, not IDs.
		if rt.Streams.In == nil || rt.Paths.TTYIn != nil || isTerminal(rt.Streams.In) {
			return nil, &app.UsageError{Msg: "- reads conversation IDs from standard input, and nothing is piped in: pipe the IDs, one a line, or give them as arguments"}
		}
		sc := bufio.NewScanner(rt.Streams.In)
		n := 0
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				out = append(out, line)
				n++
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, &app.UsageError{Msg: "- read no conversation IDs from standard input: pipe them one a line"}
		}
	}
	return out, nil
}

// target is targets for a command that takes one conversation.
func (rt *Runtime) target(a *jpwire.App, loc workspace.Location, raw string) (string, error) {
	ts, err := rt.targets(a, loc, []string{raw})
	if err != nil {
		return "", err
	}
	if len(ts) != 1 {
		return "", &app.UsageError{Msg: "- read several conversation IDs and this command takes one: pipe one ID"}
	}
	return ts[0], nil
}

// pick runs the conversation picker on the terminal.
func (rt *Runtime) pick(a *jpwire.App, loc workspace.Location, raw string, f app.PickerFilter) (string, error) {
	if rt.Paths.TTYIn == nil || rt.Paths.TTYOut == nil {
		return "", &app.UsageError{Msg: raw + " picks a conversation interactively and there is no terminal: give a conversation ID instead (jp conversation ls lists them)"}
	}
	list, err := a.Conversations.PickerCandidates(rt.Ctx, loc, f)
	if err != nil {
		return "", err
	}
	return rt.pickFrom(raw, list)
}

// pickFrom runs the conversation picker over list on the terminal; raw
// names what asked for it in messages.
func (rt *Runtime) pickFrom(raw string, list []conversation.Summary) (string, error) {
	if rt.Paths.TTYIn == nil || rt.Paths.TTYOut == nil {
		return "", &app.UsageError{Msg: raw + " picks a conversation interactively and there is no terminal: give a conversation ID instead (jp conversation ls lists them)"}
	}
	if len(list) == 0 {
		return "", &app.UserError{Msg: raw + ": no conversation to pick from here (jp conversation ls lists them)"}
	}
	items := make([]terminal.PickItem, len(list))
	for i, s := range list {
		items[i] = terminal.PickItem{ID: string(s.ID), Title: s.Metadata.Title}
	}
	p := terminal.NewPrompter(terminal.PrompterOptions{
		In: rt.Paths.TTYIn, Out: rt.Paths.TTYOut, Interactive: true, Height: rt.Paths.Height,
	})
	id, err := p.Pick(rt.Ctx, "Conversation (type to filter)", items)
	if errors.Is(err, ports.ErrCancelled) {
		return "", &app.UserError{Msg: "no conversation picked", Err: err}
	}
	return id, err
}
