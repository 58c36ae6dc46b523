package pluginhost_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/app/pluginhost"
	"github.com/jpcli/jp/domain/plugin"
	"github.com/jpcli/jp/ports"
)

// askInput is a run whose admission is left to the config's run policy.
func (h *host) askInput(overrides []string, steps ...step) pluginhost.RunInput {
	in := h.input(steps...)
	in.Overrides = overrides
	return in
}

func (h *host) answerAdmission(value string, err error) *int {
	asked := new(int)
	h.prompter.AskFunc = func(ctx context.Context, q ports.Question) (ports.Answer, error) {
		*asked++
		if !strings.HasPrefix(q.Topic, "plugin_run:") || q.Kind != ports.QuestionSelect || len(q.Options) != 3 || !strings.Contains(q.Message, "Run plugin ") {
			h.t.Errorf("admission question = %+v", q)
		}
		return ports.Answer{Text: value}, err
	}
	return asked
}

func TestAdmissionRefusesBeforeSpawning(t *testing.T) {
	exe, _ := os.Executable()
	for _, tt := range []struct {
		name      string
		overrides []string
		bin       func(*plugin.Binary)
		want      []string
	}{
		{"deny", []string{`plugins.command.t.run="deny"`}, nil,
			[]string{`plugin t is not allowed to run: plugins.command.t.run = "deny"`}},
		{"checksum mismatch", []string{`plugins.command.t.run="unattended"`, `plugins.command.t.checksum={value="0000"}`}, nil,
			[]string{"expected sha256 0000, got ", "plugins.command.t.checksum.value", exe}},
		{"protocol too new", nil, func(b *plugin.Binary) { b.Manifest.ProtocolVersion = 3 },
			[]string{"needs plugin protocol version 3, and this jp speaks version 2"}},
		{"broken manifest", nil, func(b *plugin.Binary) { b.Manifest, b.ManifestError = nil, "version is required" },
			[]string{"its manifest", "version is required"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t)
			in := h.askInput(tt.overrides, ready, exit0)
			if tt.bin != nil {
				tt.bin(&in.Binary)
			}
			err := h.host.Run(t.Context(), in)
			var ue *app.UserError
			if !errors.As(err, &ue) {
				t.Fatalf("Run = %v, want a user error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if got := h.transcript(); got != nil {
				t.Fatalf("a refused plugin ran: %v", got)
			}
		})
	}
}

func TestAdmissionPinnedChecksumMatches(t *testing.T) {
	h := newHost(t)
	exe, _ := os.Executable()
	sum, err := h.catalog.Digest(t.Context(), exe)
	if err != nil {
		t.Fatal(err)
	}
	in := h.askInput([]string{`plugins.command.t.run="unattended"`, fmt.Sprintf(`plugins.command.t.checksum={algorithm="sha256",value=%q}`, sum)}, ready, exit0)
	if err := h.host.Run(t.Context(), in); err != nil {
		t.Fatal(err)
	}
}

func TestAdmissionAsk(t *testing.T) {
	exe, _ := os.Executable()
	t.Run("no terminal", func(t *testing.T) {
		h := newHost(t)
		h.answerAdmission("", fmt.Errorf("no interactive terminal: %w", ports.ErrUnavailable))
		err := h.host.Run(t.Context(), h.askInput(nil, ready, exit0))
		if err == nil || !strings.Contains(err.Error(), "there is no terminal to ask") || !strings.Contains(err.Error(), `plugins.command.t.run = "unattended"`) {
			t.Fatalf("Run = %v", err)
		}
		if h.transcript() != nil {
			t.Fatal("it ran")
		}
	})
	t.Run("no", func(t *testing.T) {
		h := newHost(t)
		h.answerAdmission("no", nil)
		if err := h.host.Run(t.Context(), h.askInput(nil, ready, exit0)); err == nil || !strings.Contains(err.Error(), "was not run") {
			t.Fatalf("Run = %v", err)
		}
	})
	t.Run("yes once asks again next time", func(t *testing.T) {
		h := newHost(t)
		asked := h.answerAdmission("once", nil)
		for range 2 {
			if err := h.host.Run(t.Context(), h.askInput(nil, ready, exit0)); err != nil {
				t.Fatal(err)
			}
		}
		if *asked != 2 {
			t.Fatalf("asked %d times", *asked)
		}
	})
	t.Run("yes remember", func(t *testing.T) {
		h := newHost(t)
		asked := h.answerAdmission("remember", nil)
		for range 2 {
			if err := h.host.Run(t.Context(), h.askInput(nil, ready, exit0)); err != nil {
				t.Fatal(err)
			}
		}
		sum, _ := h.catalog.Digest(t.Context(), exe)
		a, err := h.catalog.Approval(t.Context(), sum)
		if *asked != 1 || err != nil || a.Path != exe || a.Manifest == nil || a.Manifest.Name != "t" {
			t.Fatalf("asked %d times; approval %+v, %v", *asked, a, err)
		}
	})
	t.Run("yes remember without a manifest records the describe answer", func(t *testing.T) {
		h := newHost(t)
		h.answerAdmission("remember", nil)
		in := h.askInput(nil, send(`{"type":"describe","name":"t","version":"9.9","description":"described","command":["tee"],"protocol_version":1}`), ready, exit0)
		in.Binary.Manifest, in.Binary.ManifestFrom = nil, ""
		if err := h.host.Run(t.Context(), in); err != nil {
			t.Fatal(err)
		}
		sum, _ := h.catalog.Digest(t.Context(), exe)
		a, err := h.catalog.Approval(t.Context(), sum)
		if err != nil || a.Manifest == nil || a.Manifest.Version != "9.9" || strings.Join(a.Manifest.Command, " ") != "tee" {
			t.Fatalf("approval = %+v, %v", a, err)
		}
		if got := h.transcript(); got[0] != `{"type":"describe"}` || !strings.HasPrefix(got[1], `{"type":"init"`) {
			t.Fatalf("the plugin got %v", got)
		}
		// The approval's fields now route the binary.
		bins, err := app.NewPlugins(h.catalog).Discover(t.Context(), nil)
		if err != nil || len(bins) != 0 {
			t.Fatalf("Discover (nothing installed) = %v, %v", bins, err)
		}
	})
}

func TestPluginHelp(t *testing.T) {
	h := newHost(t)
	in := h.askInput([]string{`plugins.command.t.run="unattended"`},
		send(`{"type":"describe","name":"t","version":"1","description":"d","protocol_version":1,"help":"Usage: jp t [--described]"}`))
	in.Binary.Manifest.Help = "Usage: jp t (from the manifest)"
	got, err := h.host.Help(t.Context(), in)
	if err != nil || got != "Usage: jp t (from the manifest)" || h.transcript() != nil {
		t.Fatalf("Help = %q, %v (ran: %v)", got, err, h.transcript())
	}
	in.Binary.Manifest.Help = ""
	got, err = h.host.Help(t.Context(), in)
	if err != nil || got != "Usage: jp t [--described]" {
		t.Fatalf("Help = %q, %v", got, err)
	}
	in.Overrides = []string{`plugins.command.t.run="deny"`}
	if _, err := h.host.Help(t.Context(), in); err == nil || !strings.Contains(err.Error(), "deny") {
		t.Fatalf("help of a denied plugin without manifest help = %v", err)
	}
}

func TestPluginList(t *testing.T) {
	h := newHost(t)
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) {
		if err := os.WriteFile(dir+"/"+name, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("jp-titles", "#!/bin/sh\n", 0o755)
	write("jp-titles.manifest.json", `{"name":"titles","version":"0.1.0","description":"Titles","command":["titles"],"protocol_version":1}`, 0o644)
	write("jp-bad", "#!/bin/sh\n", 0o755)
	write("jp-bad.manifest.json", `{"name":"bad","version":"1","protocol_version":7}`, 0o644)
	views, err := h.host.List(t.Context(), pluginhost.ListInput{SearchPath: []string{dir},
		Config: app.ConfigInput{LaunchDir: h.loc.Root, Overrides: []string{`plugins.command.titles.run="unattended"`}}})
	if err != nil || len(views) != 2 {
		t.Fatalf("List = %+v, %v", views, err)
	}
	b, ti := views[0], views[1]
	if ti.Name != "titles" || ti.Command != "titles" || ti.Version != "0.1.0" || ti.Scope != "single" || ti.Trust != "unattended" || ti.Problem != "" {
		t.Errorf("titles = %+v", ti)
	}
	if b.Trust != "refused" || !strings.Contains(b.Problem, "protocol version 7") {
		t.Errorf("bad = %+v", b)
	}
}
