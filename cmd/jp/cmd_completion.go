package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/posener/complete"
	"github.com/willabides/kongplete"

	"github.com/jpcli/jp/app"
)

// CompletionCmd is jp completion bash|zsh|fish.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell: bash, zsh or fish (docs/completion.md says where to put the script)."`
}

// completionScripts register jp as its own completer: the shell runs jp
// with COMP_LINE set to the line typed so far and offers the lines jp
// prints (completeLine). They are kongplete's install lines, printed
// instead of appended to a startup file.
var completionScripts = map[string]string{
	"bash": "complete -C ${bin} ${cmd}\n",
	"zsh":  "autoload -U +X bashcompinit && bashcompinit\ncomplete -C ${bin} ${cmd}\n",
	"fish": `function __complete_${cmd}
    set -lx COMP_LINE (commandline -cp)
    test -z (commandline -ct)
    and set COMP_LINE "$COMP_LINE "
    ${bin}
end
complete -f -c ${cmd} -a "(__complete_${cmd})"
`,
}

// Run prints the script for the shell.
func (c *CompletionCmd) Run(rt *Runtime) error {
	bin, err := os.Executable()
	if err == nil {
		bin, err = filepath.Abs(bin)
	}
	if err != nil {
		return &app.UserError{Msg: fmt.Sprintf("cannot find jp's own path for the completion script (%v): write the script by hand, see docs/completion.md", err)}
	}
	s := strings.NewReplacer("${bin}", shellQuote(bin), "${cmd}", "jp").Replace(completionScripts[c.Shell])
	_, err = fmt.Fprint(rt.Streams.Out, s)
	return err
}

// shellQuote quotes s for bash, zsh and fish alike (single quotes; a
// single quote inside is closed, escaped and reopened).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// completing reports whether the shell runs jp to complete a line.
func completing(environ []string) bool {
	return envMap(environ)["COMP_LINE"] != ""
}

// completeLine prints the completions of the line in COMP_LINE (up to
// COMP_POINT): subcommands (aliases included), flags, enum values, and,
// read from the current checkout, conversation IDs and model names. It
// never fails loudly: a completion that cannot be computed offers
// nothing.
func completeLine(parser *kong.Kong, s Streams, environ []string) int {
	rt := &completionRuntime{s: s, environ: environ}
	defer rt.close()
	cmd, err := kongplete.Command(parser, kongplete.WithPredictors(map[string]complete.Predictor{
		"conversation": complete.PredictFunc(rt.conversations),
		"model":        complete.PredictFunc(rt.models),
	}))
	if err != nil {
		fmt.Fprintf(s.Err, "jp: completion: %v\n", err)
		return ExitError
	}
	addAliases(parser.Model.Node, &cmd)
	c := complete.New("jp", cmd)
	c.Out = s.Out
	c.Complete()
	return 0
}

// addAliases offers each command's aliases (jp c, jp q) as the command
// itself, which kongplete leaves out.
func addAliases(node *kong.Node, cmd *complete.Command) {
	for _, child := range node.Children {
		sub, ok := cmd.Sub[child.Name]
		if !ok {
			continue
		}
		addAliases(child, &sub)
		cmd.Sub[child.Name] = sub
		for _, a := range child.Aliases {
			cmd.Sub[a] = sub
		}
	}
}

// completionRuntime builds the app once, on the first prediction that
// needs it.
type completionRuntime struct {
	s        Streams
	environ  []string
	rt       *Runtime
	failed   bool
	closeLog func()
}

func (c *completionRuntime) runtime() *Runtime {
	if c.rt != nil || c.failed {
		return c.rt
	}
	paths, logger, err := processSetup(Streams{In: c.s.In, Out: c.s.Out, Err: io.Discard}, c.environ, 0, "", false)
	if err != nil {
		c.failed = true
		return nil
	}
	c.closeLog = func() { _ = logger.Close() }
	c.rt = &Runtime{Ctx: context.Background(), Streams: Streams{In: c.s.In, Out: io.Discard, Err: io.Discard}, Globals: &Globals{}, Environ: c.environ, Paths: paths}
	return c.rt
}

func (c *completionRuntime) close() {
	if c.rt != nil && c.rt.cleanup != nil {
		c.rt.cleanup()
	}
	if c.closeLog != nil {
		c.closeLog()
	}
}

// conversations offers the IDs of the checkout's conversations (archived
// ones included), the most recent first.
func (c *completionRuntime) conversations(complete.Args) []string {
	rt := c.runtime()
	if rt == nil {
		return nil
	}
	a, loc, err := rt.openApp()
	if err != nil {
		return nil
	}
	list, err := a.Conversations.List(rt.Ctx, loc, app.ListOptions{All: true})
	if err != nil {
		return nil
	}
	list, _ = app.Unreadable(list)
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, string(s.ID))
	}
	return out
}

// models offers what is known without asking a provider: the configured
// model, the aliases, demo/echo, and each usable provider's name as
// "PROVIDER/" (jp model ls lists the rest).
func (c *completionRuntime) models(complete.Args) []string {
	out := []string{"demo/echo"}
	rt := c.runtime()
	if rt == nil {
		return out
	}
	a, err := rt.App()
	if err != nil {
		return out
	}
	return a.Models.Completions(rt.Ctx, rt.configInput())
}
