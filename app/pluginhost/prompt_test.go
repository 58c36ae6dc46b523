package pluginhost_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/jpcli/jp/ports"
)

func TestPluginPromptOutcomes(t *testing.T) {
	for _, tt := range []struct {
		name        string
		line        string
		interactive bool
		ans         ports.Answer
		err         error
		wantQ       ports.Question
		want        string // the prompt_response after "type"
	}{
		{"confirm yes", `{"type":"prompt","kind":"confirm","message":"Delete 14 stale entries?","default":false}`, true,
			ports.Answer{Bool: true}, nil,
			ports.Question{Kind: ports.QuestionConfirm, Message: "Delete 14 stale entries?", Default: false, Topic: "plugin:t"},
			`"outcome":"answered","value":true`},
		{"confirm no", `{"type":"prompt","id":"c","kind":"confirm","message":"Sure?"}`, true,
			ports.Answer{Bool: false}, nil,
			ports.Question{Kind: ports.QuestionConfirm, Message: "Sure?", Topic: "plugin:t"},
			`"id":"c","outcome":"answered","value":false`},
		{"select", `{"type":"prompt","kind":"select","message":"Which branch?","options":["main","develop"]}`, true,
			ports.Answer{Text: "develop"}, nil,
			ports.Question{Kind: ports.QuestionSelect, Message: "Which branch?", Topic: "plugin:t",
				Options: []ports.Option{{Label: "main", Value: "main"}, {Label: "develop", Value: "develop"}}},
			`"outcome":"answered","value":"develop"`},
		{"text", `{"type":"prompt","kind":"text","message":"Commit message","default":"wip"}`, true,
			ports.Answer{Text: "fix it"}, nil,
			ports.Question{Kind: ports.QuestionText, Message: "Commit message", Default: "wip", Topic: "plugin:t"},
			`"outcome":"answered","value":"fix it"`},
		{"secret", `{"type":"prompt","kind":"secret","message":"Registry token"}`, true,
			ports.Answer{Text: "tok"}, nil,
			ports.Question{Kind: ports.QuestionSecret, Message: "Registry token", Topic: "plugin:t"},
			`"outcome":"answered","value":"tok"`},
		{"ESC", `{"type":"prompt","kind":"text","message":"Name"}`, true,
			ports.Answer{}, fmt.Errorf("prompt: %w", ports.ErrCancelled),
			ports.Question{Kind: ports.QuestionText, Message: "Name", Topic: "plugin:t"},
			`"outcome":"cancelled"`},
		{"no terminal", `{"type":"prompt","kind":"confirm","message":"Sure?"}`, false,
			ports.Answer{}, nil, ports.Question{}, `"outcome":"unavailable","reason":"no interactive terminal"`},
		{"unavailable while asking", `{"type":"prompt","kind":"confirm","message":"Sure?"}`, true,
			ports.Answer{}, fmt.Errorf("the terminal went away: %w", ports.ErrUnavailable),
			ports.Question{Kind: ports.QuestionConfirm, Message: "Sure?", Topic: "plugin:t"},
			`"outcome":"unavailable","reason":"the terminal went away"`},
	} {
		// The prompt is a request of the base protocol: a plugin that
		// declares version 1 gets the same answers as one declaring 2.
		for _, protocol := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/v%d", tt.name, protocol), func(t *testing.T) {
				h := newHost(t)
				h.protocol = protocol
				var asked []ports.Question
				h.prompter.InteractiveFunc = func() bool { return tt.interactive }
				h.prompter.AskFunc = func(ctx context.Context, q ports.Question) (ports.Answer, error) {
					asked = append(asked, q)
					return tt.ans, tt.err
				}
				if err := h.run(ready, send(tt.line), read(1), exit0); err != nil {
					t.Fatal(err)
				}
				if got := h.transcript()[1]; got != `{"type":"prompt_response",`+tt.want+`}` {
					t.Fatalf("answer = %s, want %s", got, tt.want)
				}
				if !tt.interactive {
					if len(asked) != 0 {
						t.Fatalf("asked %v without a terminal", asked)
					}
					return
				}
				if len(asked) != 1 || !reflect.DeepEqual(asked[0], tt.wantQ) {
					t.Fatalf("asked %+v, want %+v", asked, tt.wantQ)
				}
			})
		}
	}
}

func TestPluginCtrlCInPromptEscalatesToShutdown(t *testing.T) {
	h := newHost(t)
	h.prompter.AskFunc = func(ctx context.Context, q ports.Question) (ports.Answer, error) {
		return ports.Answer{}, fmt.Errorf("prompt: %w", ports.ErrInterrupted)
	}
	// The plugin stops cleanly (exit 0) when asked: jp exits 0 too.
	err := h.run(ready, send(`{"type":"prompt","kind":"confirm","message":"Sure?"}`), until("shutdown"), exit0)
	if err != nil {
		t.Fatalf("Run = %v, want nil: the plugin exited 0 after shutdown", err)
	}
	if got := h.transcript()[1:]; len(got) != 1 || got[0] != `{"type":"shutdown"}` {
		t.Fatalf("the plugin got %v, want only shutdown", got)
	}
}

func TestPluginSecretNeverLogged(t *testing.T) {
	const secret = "hunter2-s3cr3t-value"
	h := newHost(t)
	h.prompter.AskFunc = func(ctx context.Context, q ports.Question) (ports.Answer, error) {
		return ports.Answer{Text: secret}, nil
	}
	err := h.run(ready,
		send(`{"type":"prompt","id":"s","kind":"secret","message":"Registry token"}`), read(1),
		send(`{"type":"prompt","id":"t","kind":"text","message":"Visible"}`), read(1), exit0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.transcript()[1], secret) {
		t.Fatalf("the plugin must get the secret: %v", h.transcript())
	}
	log := h.log.String()
	if strings.Count(log, secret) != 1 || !strings.Contains(log, `\"id\":\"t\",\"outcome\":\"answered\",\"value\":\"`+secret) {
		t.Fatalf("the secret must be absent, and the text answer traced once:\n%s", log)
	}
	if !strings.Contains(log, `\"id\":\"s\",\"outcome\":\"answered\",\"value\":\"[redacted]\"`) {
		t.Fatalf("the secret answer must be traced redacted:\n%s", log)
	}
}

// TestPluginPromptDoesNotBlockOtherRequests: a prompt waiting for the user
// holds no lock: a later request with an id is answered first.
func TestPluginPromptDoesNotBlockOtherRequests(t *testing.T) {
	h := newHost(t)
	release := make(chan struct{})
	h.printer.onWrite = func(_ ports.Channel, text string) {
		if text == "release" {
			close(release)
		}
	}
	h.prompter.AskFunc = func(ctx context.Context, q ports.Question) (ports.Answer, error) {
		select {
		case <-release:
			return ports.Answer{Bool: true}, nil
		case <-ctx.Done():
			return ports.Answer{}, ctx.Err()
		}
	}
	err := h.run(ready,
		send(`{"type":"prompt","id":"p","kind":"confirm","message":"Go?"}`),
		send(`{"type":"read_config","id":"c","path":"plugins.shutdown_timeout_secs"}`), read(1),
		send(`{"type":"print","text":"release"}`), read(1), exit0)
	if err != nil {
		t.Fatal(err)
	}
	got := h.transcript()[1:]
	if len(got) != 2 || !strings.HasPrefix(got[0], `{"type":"config","id":"c"`) || !strings.HasPrefix(got[1], `{"type":"prompt_response","id":"p"`) {
		t.Fatalf("answers = %v: want the config first, then the prompt", got)
	}
}

func TestPluginShutdownRelayedOnInterrupt(t *testing.T) {
	h := newHost(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h.printer.onWrite = func(_ ports.Channel, text string) {
		if text == "waiting" {
			cancel() // SIGINT
		}
	}
	err := h.host.Run(ctx, h.input(ready, send(`{"type":"print","text":"waiting"}`), until("shutdown"), exit0))
	if err != nil {
		t.Fatalf("Run = %v, want nil: the plugin exited 0 after shutdown", err)
	}
	if got := h.transcript(); got[len(got)-1] != `{"type":"shutdown"}` {
		t.Fatalf("transcript = %v", got)
	}
}

// TestPluginNonZeroExitAfterShutdownIsInterrupted: a plugin that answers
// shutdown with a failing exit leaves jp interrupted (130), as one that
// never answers does.
func TestPluginNonZeroExitAfterShutdownIsInterrupted(t *testing.T) {
	h := newHost(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h.printer.onWrite = func(_ ports.Channel, text string) {
		if text == "waiting" {
			cancel()
		}
	}
	err := h.host.Run(ctx, h.input(ready, send(`{"type":"print","text":"waiting"}`), until("shutdown"), send(`{"type":"exit","code":3,"reason":"stopped"}`)))
	if !errors.Is(err, ports.ErrInterrupted) {
		t.Fatalf("Run = %v, want interrupted", err)
	}
}

func TestPluginKilledWhenItIgnoresShutdown(t *testing.T) {
	h := newHost(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h.printer.onWrite = func(ports.Channel, string) { cancel() }
	in := h.input(ready, send(`{"type":"print","text":"up"}`), step{Block: true})
	in.Overrides = append(in.Overrides, "plugins.shutdown_timeout_secs=0")
	if err := h.host.Run(ctx, in); !errors.Is(err, ports.ErrInterrupted) {
		t.Fatalf("Run = %v", err)
	}
}

func TestPluginAbortKillsAtOnce(t *testing.T) {
	h := newHost(t)
	abort := make(chan struct{})
	h.printer.onWrite = func(ports.Channel, string) { close(abort) }
	in := h.input(ready, send(`{"type":"print","text":"up"}`), step{Block: true})
	in.Abort = abort
	if err := h.host.Run(t.Context(), in); !errors.Is(err, ports.ErrInterrupted) {
		t.Fatalf("Run = %v", err)
	}
}

// TestSDKPromptEndsWithShutdown: SIGINT while an SDK plugin waits for a
// prompt: the prompt is taken down, and the plugin's Prompt returns
// ErrShutdown.
func TestSDKPromptEndsWithShutdown(t *testing.T) {
	h := newHost(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h.prompter.AskFunc = func(pctx context.Context, q ports.Question) (ports.Answer, error) {
		cancel() // SIGINT while the prompt is up
		<-pctx.Done()
		return ports.Answer{}, pctx.Err()
	}
	if err := h.host.Run(ctx, h.input(sdk("prompt-until-shutdown"))); !errors.Is(err, ports.ErrInterrupted) {
		t.Fatalf("Run = %v", err)
	}
	if got := h.transcript(); len(got) != 1 || !strings.Contains(got[0], "asked the plugin to shut down") {
		t.Fatalf("the plugin saw %v", got)
	}
}
