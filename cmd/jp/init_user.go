package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/jpcli/jp/adapters/terminal"
	"github.com/jpcli/jp/adapters/tomlconfig"
	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
	jpwire "github.com/jpcli/jp/wire"
)

// userNameTopic is the headless topic of jp init's question.
const userNameTopic = "init:user_name"

// userName records user.name in the user configuration file, as the Rust
// jp's init does: from --user-name (or $JP_USER_NAME) without asking, else
// asked on the terminal or from the headless script, pre-filled with git's
// global user.name or the login name. It asks nothing when the file already
// sets it, or when there is no terminal and no script: a script never waits.
// An empty answer records nothing.
func (c *InitCmd) userName(rt *Runtime, a *jpwire.App) error {
	file := filepath.Join(rt.Paths.ConfigDir, "config.toml")
	if c.UserName != nil && strings.TrimSpace(*c.UserName) == "" {
		c.UserName = nil // an empty $JP_USER_NAME is no name given
	}
	if c.UserName == nil && configuredUserName(file) != "" {
		return nil
	}
	var name string
	switch {
	case c.UserName != nil:
		name = *c.UserName
	case rt.script != nil || rt.Paths.TTYIn != nil && rt.Paths.TTYOut != nil:
		var p ports.Prompter
		if rt.script != nil {
			p = rt.script.Prompter()
		} else {
			p = terminal.NewPrompter(terminal.PrompterOptions{In: rt.Paths.TTYIn, Out: rt.Paths.TTYOut, Interactive: true, Height: rt.Paths.Height})
		}
		ans, err := p.Ask(rt.Ctx, ports.Question{
			Kind:    ports.QuestionText,
			Message: "Your name for conversations (Enter keeps it; empty for none):",
			Default: defaultUserName(rt.Ctx, rt.Environ),
			Topic:   userNameTopic,
		})
		if errors.Is(err, ports.ErrCancelled) || errors.Is(err, ports.ErrUnavailable) {
			return nil // the workspace is made; the name can be set later
		}
		if err != nil {
			return err
		}
		name = ans.Text
	default:
		return nil
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return nil
	}
	if strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) || len(name) > 200 {
		return &app.UsageError{Msg: "user.name: give your name on one line (at most 200 characters)"}
	}
	if err := tomlconfig.NewEditor().SetString(rt.Ctx, file, []string{"user"}, "name", name); err != nil {
		return err
	}
	fmt.Fprintf(rt.Streams.Out, "Recorded user.name = %q in %s\n", safetext.String(name), file)
	return nil
}

// configuredUserName is user.name in the user configuration file, "" when
// the file or the key is absent (or the file does not parse: the loader
// reports that).
func configuredUserName(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	var doc struct {
		User struct {
			Name string `toml:"name"`
		} `toml:"user"`
	}
	if err := toml.Unmarshal(b, &doc); err != nil {
		return ""
	}
	return strings.TrimSpace(doc.User.Name)
}

// defaultUserName is the name the question starts with: git's global
// user.name (not the repository's, which would follow the user into every
// workspace), else the login name.
func defaultUserName(ctx context.Context, environ []string) string {
	cmd := exec.CommandContext(ctx, "git", "config", "--global", "--get", "user.name")
	cmd.Env = environ
	if out, err := cmd.Output(); err == nil {
		if n := strings.TrimSpace(string(out)); n != "" {
			return n
		}
	}
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "USER="); ok && v != "" {
			return v
		}
	}
	return ""
}
