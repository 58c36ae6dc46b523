package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/draft"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// The editor preamble, as the Rust jp writes it into the query file: below
// the cut line, a ```toml block of the configuration that matters most
// for the turn (the model, and the reasoning when set), which the user may
// edit to change the conversation's configuration (recorded as a
// config_delta, as an edit of the Rust jp's "Active Configuration" is), a
// note saying so, and the conversation's last ten entries, newest first.
// Nothing below the cut line is ever sent to the model. A draft that
// already has a meta section keeps it as it is (draft rules: nothing the
// user wrote there is replaced).

// historyEntries is how many of the conversation's last entries the
// preamble shows (the Rust jp's ten).
const historyEntries = 10

// preambleNote follows the configuration block.
const preambleNote = "> NOTE: Edit the configuration above to apply it to this conversation (recorded,\n" +
	">       as --cfg is). Only the most relevant keys are shown; add any others.\n" +
	">       Nothing below the cut line is sent to the model.\n"

// preambleConfig is the TOML of the preamble's configuration block.
func (q *Query) preambleConfig(rs *runState, tree map[string]any) string {
	var b strings.Builder
	if rs.model.Provider != "" {
		b.WriteString("[assistant.model]\nid = " + tomlString(rs.model.String()) + "\n")
	}
	if v, err := config.Lookup(tree, "assistant.model.parameters.reasoning"); err == nil {
		switch v := v.(type) {
		case string:
			if v != "" {
				b.WriteString("\n[assistant.model.parameters]\nreasoning = " + tomlString(v) + "\n")
			}
		case int64, int, float64:
			fmt.Fprintf(&b, "\n[assistant.model.parameters]\nreasoning = %v\n", v)
		}
	}
	return b.String()
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// preambleDoc is the document the editor opens on when the draft has no
// meta section: initial as the query text, then the preamble.
func (q *Query) preambleDoc(ctx context.Context, loc workspace.Location, id conversation.ID, rs *runState, tree map[string]any, initial string) string {
	cfgTOML := q.preambleConfig(rs, tree)
	rs.preamble = cfgTOML
	excerpt := preambleNote
	if id != "" {
		if h := q.historyText(ctx, loc, id); h != "" {
			excerpt += "\n" + h
		}
	}
	return draft.New(initial, cfgTOML, excerpt).Render()
}

// historyText renders the conversation's last entries, newest first, as
// the Rust jp's preamble does; "" when it has none (or cannot be read:
// the preamble is a help, never a reason to fail).
func (q *Query) historyText(ctx context.Context, loc workspace.Location, id conversation.ID) string {
	var ring []conversation.Event
	err := q.store.ScanEvents(ctx, loc, id, func(e conversation.Event) error {
		switch e.Type {
		case conversation.EventTypeChatRequest, conversation.EventTypeChatResponse,
			conversation.EventTypeToolCallRequest, conversation.EventTypeToolCallResponse,
			conversation.EventTypeInquiryRequest, conversation.EventTypeInquiryResponse:
			if len(ring) == historyEntries {
				ring = append(ring[:0], ring[1:]...)
			}
			// Only the fields rendered below are kept: the store's
			// buffers can go.
			ring = append(ring, conversation.Event{Type: e.Type, Timestamp: e.Timestamp, Content: strings.Clone(e.Content),
				Message: strings.Clone(e.Message), Reasoning: strings.Clone(e.Reasoning), Model: e.Model, Name: e.Name,
				Arguments: append(json.RawMessage(nil), e.Arguments...), IsError: e.IsError,
				Question: strings.Clone(e.Question), Answer: append(json.RawMessage(nil), e.Answer...)})
		}
		return nil
	})
	if err != nil || len(ring) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Conversation History (last %d entries)\n", historyEntries)
	for i := len(ring) - 1; i >= 0; i-- {
		e := ring[i]
		ts := e.Timestamp.In(time.Local).Format("2006-01-02 15:04:05")
		model := ""
		if e.Model != "" {
			model = " (" + e.Model + ")"
		}
		switch e.Type {
		case conversation.EventTypeChatRequest:
			fmt.Fprintf(&b, "\n## You on %s\n\n%s\n", ts, strings.TrimSpace(e.Content))
		case conversation.EventTypeChatResponse:
			if e.Reasoning != "" {
				fmt.Fprintf(&b, "\n## Assistant (reasoning)%s on %s\n\n%s\n", model, ts, strings.TrimSpace(e.Reasoning))
			} else {
				fmt.Fprintf(&b, "\n## Assistant%s on %s\n\n%s\n", model, ts, strings.TrimSpace(e.Message))
			}
		case conversation.EventTypeToolCallRequest:
			fmt.Fprintf(&b, "\n## Tool Call Request on %s\n\n```json\n{\"name\": %q, \"arguments\": %s}\n```\n", ts, e.Name, orEmptyObject(e.Arguments))
		case conversation.EventTypeToolCallResponse:
			head := "Tool Call Result"
			if e.IsError {
				head = "Tool Call **Error**"
			}
			fmt.Fprintf(&b, "\n## %s on %s\n\n```\n%s\n```\n", head, ts, strings.TrimRight(e.Content, "\n"))
		case conversation.EventTypeInquiryRequest:
			fmt.Fprintf(&b, "\n## Inquiry Request on %s\n\n%s\n", ts, e.Question)
		case conversation.EventTypeInquiryResponse:
			fmt.Fprintf(&b, "\n## Inquiry Response on %s\n\nAnswer: %s\n", ts, e.Answer)
		}
	}
	// Text from the model, tools and files: no control or invisible
	// character reaches the editor's terminal.
	return safetext.String(b.String())
}

func orEmptyObject(b json.RawMessage) string {
	if len(b) == 0 {
		return "{}"
	}
	return string(b)
}

// editorConfigChanged is the TOML of the preamble's configuration block
// as the user left it, when it differs from what the preamble offered
// ("" when unchanged or absent).
func editorConfigChanged(doc, offered string) string {
	got := draft.Parse(doc).Config()
	if strings.TrimSpace(got) == "" || strings.TrimSpace(got) == strings.TrimSpace(offered) {
		return ""
	}
	return got
}

// applyEditorConfig loads the run's configuration again with the
// preamble's edited block on top of the command line, so that the turn
// uses it and the run's config_delta records what it changed. The model
// (and its provider) is chosen again when the block changed it. A block
// that does not load is one line, and the whole document (message and
// block) is kept as the conversation's draft, which the next jp q -i ID
// opens again: nothing the user wrote is lost.
func (q *Query) applyEditorConfig(ctx context.Context, rs *runState, src ports.ConfigSource, edited string, id conversation.ID, doc string) (config.Resolved, error) {
	src.EditorConfig = edited
	res, err := q.config.Load(ctx, src)
	if err != nil {
		msg := "the configuration below the cut line: " + err.Error()
		if id != "" {
			if _, werr := q.drafts.WriteDraft(context.WithoutCancel(ctx), rs.loc, id, doc, ""); werr == nil {
				msg += fmt.Sprintf("; nothing was sent, and the message with that configuration is the draft of conversation %s: jp q -i %s opens it again", id, id)
			}
		} else {
			q.printer.Write(ports.ChannelError, "Not sent. What you wrote:\n"+doc)
			q.printer.EndBlock(ports.ChannelError)
		}
		return res, &UserError{Msg: msg, Err: err}
	}
	before := rs.cfg.Assistant.Model.ID
	rs.cfg, rs.configSrc = res.Config, src
	if rs.params, err = modelParams(rs.cfg); err != nil {
		return res, err
	}
	if id := rs.cfg.Assistant.Model.ID; id != "" && id != before {
		model, _, err := q.chooseModel(id, rs.cfg)
		if err != nil {
			return res, err
		}
		provider, err := q.providers.Provider(ctx, rs.cfg, model)
		if err != nil {
			return res, &UserError{Msg: err.Error(), Err: err}
		}
		rs.model, rs.provider = model, provider
	}
	return res, nil
}
