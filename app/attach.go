package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/ports"
)

// StdinSource is the source of text piped to jp.
const StdinSource = "stdin"

// attachments reads what the query attaches, in order: piped stdin (when a
// message was also given), conversation.attachments (relative to the
// checkout, and confined to it), then each -a (relative to the launch
// directory; "-" is stdin). note gets a line for each file a glob or a
// directory left out (a symbolic link leading out of the checkout).
func (q *Query) attachments(ctx context.Context, loc workspace.Location, cfg config.Config, in QueryInput, note func(string)) ([]conversation.Attachment, error) {
	var out []conversation.Attachment
	stdinUsed := false
	stdin := func() error {
		if !in.HasStdin {
			return &UsageError{Msg: "-a -: nothing was piped to stdin"}
		}
		if !stdinUsed {
			out = append(out, stdinAttachment(in.Stdin))
			stdinUsed = true
		}
		return nil
	}
	if in.HasStdin && !slices.Contains(in.Attach, "-") {
		_ = stdin()
	}
	read := func(specs []string, dir string, configured bool) error {
		if len(specs) == 0 {
			return nil
		}
		if q.attacher == nil {
			return errors.New("attachments are not available here")
		}
		atts, err := q.attacher.Attach(ctx, ports.AttachRequest{Specs: specs, Dir: dir, Root: loc.Root, MCP: cfg.MCP, Confine: configured, Note: note,
			Conversation: q.conversationReader(loc)})
		if err != nil {
			msg := err.Error()
			if configured {
				msg = "conversation.attachments: " + msg + " (configured attachments stay inside the checkout; attach other files with -a)"
			}
			return &UserError{Msg: msg, Err: err}
		}
		out = append(out, atts...)
		return nil
	}
	if err := read(cfg.Conversation.Attachments, loc.Root, true); err != nil {
		return nil, err
	}
	var batch []string
	for _, spec := range in.Attach {
		if spec != "-" {
			batch = append(batch, spec)
			continue
		}
		if err := read(batch, in.LaunchDir, false); err != nil {
			return nil, err
		}
		batch = nil
		if err := stdin(); err != nil {
			return nil, err
		}
	}
	if err := read(batch, in.LaunchDir, false); err != nil {
		return nil, err
	}
	return out, nil
}

// conversationReader reads another conversation's events for a jp://
// attachment, from the durable store when this run is held in memory.
func (q *Query) conversationReader(loc workspace.Location) func(context.Context, conversation.ID) ([]conversation.Event, error) {
	store := q.store
	if q.durable != nil {
		store = q.durable.store
	}
	return func(ctx context.Context, id conversation.ID) ([]conversation.Event, error) {
		return store.Events(ctx, loc, id)
	}
}

func stdinAttachment(text string) conversation.Attachment {
	return conversation.Attachment{Source: StdinSource, MediaType: "text/plain", Content: text,
		Size: int64(len(text)), SHA256: sha256Hex(text)}
}

// sha256Hex is the hex SHA-256 of s, hashed a piece at a time: not a copy
// of a 20 MB paste as bytes.
func sha256Hex(s string) string {
	h := sha256.New()
	buf := make([]byte, min(len(s), 32<<10))
	for len(s) > 0 {
		n := copy(buf, s)
		h.Write(buf[:n])
		s = s[n:]
	}
	return hex.EncodeToString(h.Sum(nil))
}

// delegatedAttachments reads a plugin query's attachments in the addressed
// checkout. Paths must stay inside it (relative, no .., no symbolic link
// out, for each match of a glob too): text read for one checkout never
// comes from another.
func (q *Query) delegatedAttachments(ctx context.Context, in DelegatedInput) ([]conversation.Attachment, error) {
	if len(in.Attachments) == 0 {
		return nil, nil
	}
	// Refused before anything is read; the attacher checks links too.
	for _, spec := range in.Attachments {
		if conversation.AttachKindOf(spec) == conversation.AttachPath && !filepath.IsLocal(spec) {
			return nil, &UserError{Msg: fmt.Sprintf("attachment %q: a plugin query attaches paths inside the addressed checkout only (relative, no ..)", spec)}
		}
	}
	if q.attacher == nil {
		return nil, errors.New("attachments are not available here")
	}
	atts, err := q.attacher.Attach(ctx, ports.AttachRequest{Specs: in.Attachments, Dir: in.Loc.Root, Root: in.Loc.Root, Confine: true})
	if err != nil {
		return nil, &UserError{Msg: "a plugin query attaches paths inside the addressed checkout only: " + err.Error(), Err: err}
	}
	return atts, nil
}

// checkImages refuses image attachments for a model known not to take
// images, in one line, before anything is recorded.
func checkImages(model llm.ModelID, atts []conversation.Attachment) error {
	for _, a := range atts {
		if strings.HasPrefix(a.MediaType, "image/") && !llm.TakesImages(model) {
			return &UserError{Msg: fmt.Sprintf("%s is an image, and %s does not take images: attach text, or use a model that reads images (e.g. anthropic/claude-sonnet-4-5, openai/gpt-4.1)", a.Source, model)}
		}
	}
	return nil
}
