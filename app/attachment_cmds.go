package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jpcli/jp/domain/config"
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/workspace"
	"github.com/jpcli/jp/internal/safetext"
	"github.com/jpcli/jp/ports"
)

// The use cases behind jp attachment add/rm/ls/print. As in the Rust jp,
// a conversation's attachments are its configuration's
// conversation.attachments: add and rm record the changed list as a
// config_delta of the conversation (SetConversationConfig), and every
// later turn reads it again.

// AttachmentList is what jp attachment ls shows.
type AttachmentList struct {
	// Conversation is the conversation whose configuration was read; ""
	// when there is none (the workspace's configuration alone).
	Conversation conversation.ID
	Attachments  []string
}

// conversationResolved loads the configuration of the conversation in.
// Conversation (the active one when ""), conversation layers included.
// With none active and optional, the workspace's configuration alone.
func (q *Query) conversationResolved(ctx context.Context, in ConversationConfigInput, optional bool) (workspace.Location, conversation.ID, config.Resolved, error) {
	loc, id, err := q.conversationOf(ctx, in)
	if err != nil {
		return loc, "", config.Resolved{}, err
	}
	if id == "" && !optional {
		return loc, "", config.Resolved{}, &UserError{Msg: "there is no active conversation to attach to: start one with jp query, or pick one with jp conversation use ID"}
	}
	layers, err := conversationLayers(ctx, q.store, loc, id)
	if err != nil {
		return loc, id, config.Resolved{}, err
	}
	res, err := q.config.Load(ctx, ports.ConfigSource{
		UserConfigDir: in.UserConfigDir, WorkspaceRoot: loc.Root, LaunchDir: in.LaunchDir,
		Env: in.Environ, Conversation: layers, AskTrust: true,
	})
	return loc, id, res, err
}

// Attachments lists the attachments of the conversation's configuration
// (jp attachment ls).
func (q *Query) Attachments(ctx context.Context, in ConversationConfigInput) (AttachmentList, error) {
	_, id, res, err := q.conversationResolved(ctx, in, in.Conversation == "")
	if err != nil {
		return AttachmentList{}, err
	}
	return AttachmentList{Conversation: id, Attachments: res.Config.Conversation.Attachments}, nil
}

// AddAttachments adds specs to the conversation's attachments (jp
// attachment add). A path is recorded as the Rust jp records it, file:PATH
// relative to the checkout's root: it must exist inside the checkout (it
// is read once to check). Other kinds are recorded as given (the
// jp-cID shorthand as its jp:// URL). What is already attached is not
// added twice.
func (q *Query) AddAttachments(ctx context.Context, in ConversationConfigInput, specs []string) (ConversationConfigResult, error) {
	if len(specs) == 0 {
		return ConversationConfigResult{}, &UsageError{Msg: "jp attachment add: give one or more attachments (a path, file:PATH, gh://..., jp://jp-cID, cmd:..., a URL)"}
	}
	loc, id, res, err := q.conversationResolved(ctx, in, false)
	if err != nil {
		return ConversationConfigResult{}, err
	}
	list := slices.Clone(res.Config.Conversation.Attachments)
	for _, spec := range specs {
		norm, err := q.normalizeAttachment(ctx, loc, in.LaunchDir, spec)
		if err != nil {
			return ConversationConfigResult{}, err
		}
		if !slices.Contains(list, norm) {
			list = append(list, norm)
		}
	}
	return q.setAttachments(ctx, in, id, list, res.Trust)
}

// RemoveAttachments removes specs from the conversation's attachments (jp
// attachment rm), each matched as given or as add records it. A spec that
// is not attached is an error naming it, and nothing is removed.
func (q *Query) RemoveAttachments(ctx context.Context, in ConversationConfigInput, specs []string) (ConversationConfigResult, error) {
	if len(specs) == 0 {
		return ConversationConfigResult{}, &UsageError{Msg: "jp attachment rm: give the attachments to remove, as jp attachment ls lists them"}
	}
	loc, id, res, err := q.conversationResolved(ctx, in, false)
	if err != nil {
		return ConversationConfigResult{}, err
	}
	list := slices.Clone(res.Config.Conversation.Attachments)
	for _, spec := range specs {
		forms := []string{spec, rustFileForm(loc.Root, in.LaunchDir, spec), shorthandURL(spec)}
		n := len(list)
		list = slices.DeleteFunc(list, func(s string) bool { return slices.Contains(forms, s) })
		if len(list) == n {
			return ConversationConfigResult{}, &UserError{Msg: fmt.Sprintf("%s is not attached to conversation %s (jp attachment ls lists its attachments); nothing was removed", safetext.String(spec), id)}
		}
	}
	return q.setAttachments(ctx, in, id, list, res.Trust)
}

// setAttachments records list as the conversation's attachments.
// before is the checkout's trust before the change.
func (q *Query) setAttachments(ctx context.Context, in ConversationConfigInput, id conversation.ID, list []string, before config.TrustReview) (ConversationConfigResult, error) {
	if list == nil {
		list = []string{}
	}
	// A JSON array of strings is a TOML array of basic strings.
	b, err := json.Marshal(list)
	if err != nil {
		return ConversationConfigResult{}, err
	}
	set := in
	set.Conversation = string(id)
	// The whole list replaces the one below it; the delta records what
	// changed (new items, or the list as a replacement after rm).
	set.Overrides = []string{`conversation.attachments={ strategy = "replace", value = ` + string(b) + ` }`}
	return q.setConversationConfig(ctx, set, &before)
}

// PreviewAttachment reads spec as a turn would (jp attachment print): a
// path relative to the launch directory, and nothing recorded.
func (q *Query) PreviewAttachment(ctx context.Context, in ConversationConfigInput, spec string) ([]conversation.Attachment, error) {
	if q.attacher == nil {
		return nil, errors.New("attachments are not available here")
	}
	opened, err := q.ws.OpenOrDefault(ctx, in.Target, in.LaunchDir, false)
	if err != nil {
		return nil, err
	}
	loc := opened.Location
	res, err := q.config.Load(ctx, ports.ConfigSource{UserConfigDir: in.UserConfigDir, WorkspaceRoot: loc.Root, LaunchDir: in.LaunchDir, Env: in.Environ, AskTrust: true})
	if err != nil {
		return nil, err
	}
	atts, err := q.attacher.Attach(ctx, ports.AttachRequest{Specs: []string{spec}, Dir: in.LaunchDir, Root: loc.Root, MCP: res.Config.MCP,
		Conversation: q.conversationReader(loc)})
	if err != nil {
		return nil, &UserError{Msg: err.Error(), Err: err}
	}
	return atts, nil
}

// normalizeAttachment is spec as add records it, checked.
func (q *Query) normalizeAttachment(ctx context.Context, loc workspace.Location, launchDir, spec string) (string, error) {
	switch conversation.AttachKindOf(spec) {
	case conversation.AttachPath:
		if loc.Root == "" {
			return "", &UserError{Msg: fmt.Sprintf("%s: a path is attached to a conversation relative to the checkout, and there is none here", safetext.String(spec))}
		}
		typed := spec
		if spec = rustFileForm(loc.Root, launchDir, spec); spec == "" {
			return "", &UserError{Msg: fmt.Sprintf("%s: refused: a conversation's attachments stay inside the checkout; attach other files to one message with jp query -a", safetext.String(typed))}
		}
		fallthrough
	case conversation.AttachFile:
		if q.attacher == nil {
			return "", errors.New("attachments are not available here")
		}
		if _, err := q.attacher.Attach(ctx, ports.AttachRequest{Specs: []string{spec}, Dir: loc.Root, Root: loc.Root, Confine: true}); err != nil {
			return "", &UserError{Msg: err.Error(), Err: err}
		}
		return spec, nil
	case conversation.AttachConversation:
		return shorthandURL(spec), nil
	}
	return spec, nil
}

// rustFileForm is a path spec (relative to launchDir) as the Rust jp
// records it: file:PATH, PATH relative to root with forward slashes; ""
// when it lies outside root. Any other spec is returned as it is.
func rustFileForm(root, launchDir, spec string) string {
	if conversation.AttachKindOf(spec) != conversation.AttachPath || root == "" {
		return spec
	}
	abs := spec
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(launchDir, spec)
	}
	rel, err := filepath.Rel(root, filepath.Clean(abs))
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	return "file:" + filepath.ToSlash(rel)
}

// shorthandURL is the jp://jp-cID URL of the Rust jp's jp-cID[?SELECTOR]
// shorthand (a bare selector after ? becomes select=); spec otherwise.
func shorthandURL(spec string) string {
	if conversation.AttachKindOf(spec) != conversation.AttachConversation || strings.HasPrefix(spec, "jp://") {
		return spec
	}
	id, q, ok := strings.Cut(spec, "?")
	if !ok || q == "" {
		return "jp://" + id
	}
	for _, name := range []string{"select", "raw"} {
		if q == name || strings.HasPrefix(q, name+"=") || strings.HasPrefix(q, name+"&") {
			return "jp://" + id + "?" + q
		}
	}
	return "jp://" + id + "?select=" + q
}
