package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jpcli/jp/domain/compact"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/ports"
)

// SessionCommands are the session composer's slash commands
// (docs/session.md), in the order /help lists them.
var SessionCommands = []ports.SlashCommand{
	{Name: "model", Args: "[ID]", Help: "show the model, or switch this conversation to ID (recorded like --cfg)"},
	{Name: "new", Help: "the next message starts a new conversation"},
	{Name: "fork", Args: "[--turn N]", Help: "fork this conversation (its first N turns) and go on in the fork"},
	{Name: "use", Args: "TARGET", Help: "go on in another conversation (an ID or a prefix of one)"},
	{Name: "compact", Args: "[SPEC]", Help: "compact this conversation (bare: conversation.compaction.rules; SPEC: a rule such as r+t)"},
	{Name: "attach", Args: "PATH", Help: "attach a file, directory or URL to the conversation (as -a: it goes with every later message)"},
	{Name: "cfg", Args: "KEY=VALUE", Help: "change this conversation's configuration (recorded like --cfg)"},
	{Name: "tokens", Help: "show the context meter of the next request"},
	{Name: "show", Help: "show the last turn of this conversation"},
	{Name: "edit", Args: "[TEXT]", Help: "open the editor on TEXT"},
	{Name: "quit", Help: "end the session (so do Ctrl-D and an empty message)"},
	{Name: "help", Help: "list these commands"},
}

// slash is a parsed slash command: its name and the rest of the text.
type slash struct {
	name, args string
}

// parseSlash reads text as a slash command: "/" and a word of lowercase
// letters, then its arguments. "//..." and a text whose first word is not
// such a word ("/etc/hosts is ...") are messages.
func parseSlash(text string) (slash, bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "/") || strings.HasPrefix(t, "//") {
		return slash{}, false
	}
	word, args, _ := strings.Cut(t[1:], " ")
	if i := strings.IndexAny(word, "\n\t"); i >= 0 {
		word, args = word[:i], strings.TrimSpace(word[i:]+" "+args)
	}
	if word == "" || strings.Trim(word, "abcdefghijklmnopqrstuvwxyz-") != "" {
		return slash{}, false
	}
	return slash{name: word, args: strings.TrimSpace(args)}, true
}

// command runs a slash command; done ends the session. A command that
// fails says why in one line and leaves its text in the composer.
func (s *session) command(ctx context.Context, info sessionInfo, c slash, text string) (done bool) {
	q := s.q
	switch c.name {
	case "help":
		return s.say(helpText())
	case "quit", "exit":
		return true
	case "model":
		return s.cmdModel(ctx, info, c, text)
	case "cfg":
		return s.cmdCfg(ctx, info, c, text)
	case "new":
		s.next.Conversation, s.next.New = "", true
		return s.say("The next message starts a new conversation.")
	case "use":
		if c.args == "" {
			return s.fail(text, "/use: give the conversation: an ID or a prefix of one (jp c ls lists them)")
		}
		id, err := resolveConversation(ctx, q.store, info.loc, c.args)
		if err != nil {
			return s.fail(text, "/use "+c.args+": "+userNotFound(err).Error())
		}
		s.next.Conversation, s.next.New, s.next.Local, s.next.Tmp = string(id), false, false, false
		return s.say(fmt.Sprintf("Going on in conversation %s.", id))
	case "fork":
		return s.cmdFork(ctx, info, c, text)
	case "compact":
		return s.cmdCompact(ctx, info, c, text)
	case "attach":
		if c.args == "" {
			return s.fail(text, "/attach: give a path (or cmd:COMMAND, a URL): /attach notes.md")
		}
		s.next.Attach = append(s.next.Attach, c.args)
		return s.say(c.args + " is attached to the conversation: it goes with the next message and the later ones (as -a; @PATH attaches to one message).")
	case "tokens":
		return s.say(fmt.Sprintf("Next request: %s (estimated, tools not counted) for %s", info.meter, info.model))
	case "show":
		if !s.needConversation(info, c, text) {
			return false
		}
		return s.say(s.lastTurn(ctx, info)...)
	case "edit":
		s.edit, s.seed = true, c.args
		return false
	}
	return s.fail(text, fmt.Sprintf("Unknown command /%s: /help lists the commands (start with // to send a leading slash). Your text is kept.", c.name))
}

// fail says why a command failed, in one line, and leaves its text in
// the composer.
func (s *session) fail(text, msg string) bool {
	s.q.printer.Write(ports.ChannelError, msg)
	s.q.printer.EndBlock(ports.ChannelError)
	s.seed = text
	return false
}

// say prints a command's answer as notes.
func (s *session) say(lines ...string) bool {
	for _, l := range lines {
		s.q.chromeNote(l)
	}
	return false
}

// needConversation fails a command that needs a conversation when there
// is none yet.
func (s *session) needConversation(info sessionInfo, c slash, text string) bool {
	if info.id == "" {
		s.fail(text, fmt.Sprintf("/%s: there is no conversation yet: send a message first", c.name))
		return false
	}
	return true
}

// helpText is /help's answer.
func helpText() string {
	lines := []string{"Commands (Tab completes; // sends a leading slash):"}
	for _, sc := range SessionCommands {
		lines = append(lines, fmt.Sprintf("  /%s  %s", strings.TrimSpace(sc.Name+" "+sc.Args), sc.Help))
	}
	lines = append(lines, "  @PATH in a message attaches that file of the checkout (Tab completes).")
	return strings.Join(lines, "\n")
}

// cmdModel is /model [MODEL]: says the model, or switches to MODEL
// (recorded in the conversation, as --model does).
func (s *session) cmdModel(ctx context.Context, info sessionInfo, c slash, text string) bool {
	if c.args == "" {
		return s.say("Model: " + info.model)
	}
	resolved, err := info.cfg.ResolveModel(c.args)
	if err == nil {
		_, err = llm.ParseModelID(resolved)
	}
	if err != nil {
		return s.fail(text, "/model "+c.args+": "+err.Error())
	}
	if info.id != "" {
		if err := s.record(ctx, info, modelOverride(c.args)); err != nil {
			return s.fail(text, "/model: "+err.Error())
		}
	}
	s.next.Model = c.args
	return s.say("Model: " + resolved + " (recorded in the conversation, as --cfg does)")
}

// cmdCfg is /cfg KEY=VALUE, recorded as --cfg does; only the key is
// ever said back.
func (s *session) cmdCfg(ctx context.Context, info sessionInfo, c slash, text string) bool {
	q := s.q
	if c.args == "" || !strings.Contains(c.args, "=") {
		return s.fail(text, "/cfg: expected KEY=VALUE, e.g. /cfg assistant.model.parameters.temperature=0.2")
	}
	// Only the key is ever said back: the value may be a secret.
	k, _, _ := strings.Cut(c.args, "=")
	k = strings.TrimSpace(k)
	if info.id != "" {
		if err := s.record(ctx, info, c.args); err != nil {
			s.fail(text, "/cfg "+k+": "+err.Error())
			s.seed = "" // nothing is kept that may hold a secret
			return false
		}
	} else if _, err := q.conversationConfig(ctx, info.loc, "", ConfigSources{UserConfigDir: s.next.UserConfigDir, LaunchDir: s.next.LaunchDir, Environ: s.next.Environ, Overrides: append(s.next.Overrides[:len(s.next.Overrides):len(s.next.Overrides)], c.args)}); err != nil {
		s.fail(text, "/cfg "+k+": "+err.Error())
		s.seed = "" // nothing is kept that may hold a secret
		return false
	}
	s.next.Overrides = append(s.next.Overrides[:len(s.next.Overrides):len(s.next.Overrides)], c.args)
	return s.say("Set " + k + " (recorded in the conversation, as --cfg does).")
}

// cmdFork is /fork [--turn N]: the session goes on in the fork.
func (s *session) cmdFork(ctx context.Context, info sessionInfo, c slash, text string) bool {
	q := s.q
	if !s.needConversation(info, c, text) {
		return false
	}
	upTo := 0
	if c.args != "" {
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(c.args, "--turn")))
		if !strings.HasPrefix(c.args, "--turn") || err != nil || n < 1 {
			return s.fail(text, "/fork: expected /fork or /fork --turn N (N: the turns to keep, 1 or more)")
		}
		upTo = n
	}
	nid, err := forkWith(ctx, q.store, info.loc, info.id, ForkOptions{UpTo: upTo})
	if err != nil {
		return s.fail(text, "/fork: "+userNotFound(err).Error())
	}
	s.next.Conversation, s.next.New = string(nid), false
	return s.say(fmt.Sprintf("Forked %s into %s: the session goes on in the fork.", info.id, nid))
}

// cmdCompact is /compact [RULE...]: the configured rules, or those given.
func (s *session) cmdCompact(ctx context.Context, info sessionInfo, c slash, text string) bool {
	q := s.q
	if !s.needConversation(info, c, text) {
		return false
	}
	spec := CompactSpec{WithConfigRules: c.args == ""}
	for _, f := range strings.Fields(c.args) {
		r, err := compact.ParseRule(f)
		if err != nil {
			return s.fail(text, fmt.Sprintf("/compact %s: %v (a rule is POLICIES[:RANGE], e.g. r+t or s:..-3)", f, err))
		}
		spec.Rules = append(spec.Rules, r)
	}
	res, err := q.Compact(ctx, CompactInput{Loc: info.loc, Conversation: info.id, Spec: spec,
		ConfigSources: ConfigSources{UserConfigDir: s.next.UserConfigDir, LaunchDir: s.next.LaunchDir, Environ: s.next.Environ, Overrides: s.next.Overrides}})
	if err != nil {
		return s.fail(text, "/compact: "+err.Error())
	}
	if len(res.Added) == 0 {
		return s.say("Nothing to compact.")
	}
	return s.say(fmt.Sprintf("Compacted: the next request's messages go from about %s to %s tokens.", llm.FormatTokens(res.TokensBefore), llm.FormatTokens(res.TokensAfter)))
}

// record writes one override into the conversation as a config_delta,
// as --cfg does: validated first, nothing written when it is bad.
func (s *session) record(ctx context.Context, info sessionInfo, override string) error {
	_, err := s.q.SetConversationConfig(ctx, ConversationConfigInput{
		Target: s.next.Target, LaunchDir: s.next.LaunchDir, Conversation: string(info.id),
		Overrides: []string{override}, UserConfigDir: s.next.UserConfigDir, Environ: s.next.Environ,
	})
	var ue *UsageError
	if errors.As(err, &ue) {
		return errors.New(ue.Msg)
	}
	return err
}

// lastTurn is /show: the conversation's last message and answer.
func (s *session) lastTurn(ctx context.Context, info sessionInfo) []string {
	h, err := s.q.history(ctx, info.loc, info.id)
	if err != nil {
		return []string{"/show: " + err.Error()}
	}
	msgs := h.RawMessages()
	start := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser && msgs[i].ToolCallID == "" {
			start = i
			break
		}
	}
	if start < 0 {
		return []string{"The conversation has no turn yet."}
	}
	out := []string{"> " + strings.ReplaceAll(strings.TrimSpace(msgs[start].Text), "\n", "\n> ")}
	for _, m := range msgs[start+1:] {
		switch {
		case m.Role == llm.RoleAssistant && strings.TrimSpace(m.Text) != "":
			out = append(out, strings.TrimSpace(m.Text))
		case len(m.ToolCalls) > 0:
			for _, c := range m.ToolCalls {
				out = append(out, "tool: "+c.Name)
			}
		}
	}
	return []string{strings.Join(out, "\n")}
}

// atSpecs are the @PATH words of a message: paths of the checkout to
// attach to it (trailing punctuation is not part of the path).
func atSpecs(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		p, ok := strings.CutPrefix(w, "@")
		p = strings.TrimRight(p, ".,;:!?)\"'`")
		if !ok || p == "" || strings.HasPrefix(p, "@") {
			continue
		}
		out = append(out, p)
	}
	return out
}

// atAttachments attaches the @PATH words of text, confined to the
// checkout: a word that names no file there (a mention, a path outside
// the checkout) is left as text, said in one line.
func (s *session) atAttachments(ctx context.Context, info sessionInfo, text string) []conversation.Attachment {
	q := s.q
	if q.attacher == nil || info.loc.Root == "" {
		return nil
	}
	var out []conversation.Attachment
	for _, spec := range atSpecs(text) {
		got, err := q.attacher.Attach(ctx, ports.AttachRequest{Specs: []string{spec}, Dir: info.loc.Root, Root: info.loc.Root, Confine: true, MCP: info.cfg.MCP})
		if err != nil {
			q.chromeNote(fmt.Sprintf("@%s is not attached: %v", spec, err))
			continue
		}
		out = append(out, got...)
	}
	return out
}
