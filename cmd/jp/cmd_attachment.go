package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jpcli/jp/app"
	"github.com/jpcli/jp/internal/safetext"
)

// AttachmentCmd is jp attachment (alias a): the active conversation's
// attachments, kept in its configuration (conversation.attachments) and
// read again on every turn, as in the Rust jp.
type AttachmentCmd struct {
	Add   AttachmentAddCmd   `cmd:"" aliases:"a" help:"Attach to the active conversation: a path (recorded as file:PATH, relative to the checkout), file:PATH, gh://OWNER/REPO/pull/N/diff, jp://jp-cID, cmd:COMMAND, an http(s) URL or mcp://SERVER/URI."`
	Rm    AttachmentRmCmd    `cmd:"" aliases:"r" help:"Remove attachments from the active conversation, as jp attachment ls lists them."`
	Ls    AttachmentLsCmd    `cmd:"" aliases:"l" help:"List the active conversation's attachments (its configuration's conversation.attachments)."`
	Print AttachmentPrintCmd `cmd:"" aliases:"p" help:"Print an attachment as the model would get it, without attaching it."`
}

// AttachmentAddCmd is jp attachment add (and the Rust jp's jp aa).
type AttachmentAddCmd struct {
	Attachments []string `arg:"" help:"Attachments to add."`
}

// Run records the new list as a config_delta of the conversation.
func (c *AttachmentAddCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	_, err = a.Query.AddAttachments(rt.Ctx, rt.conversationConfigInput(), c.Attachments)
	return err
}

// AttachmentRmCmd is jp attachment rm.
type AttachmentRmCmd struct {
	Attachments []string `arg:"" help:"Attachments to remove."`
}

// Run records the shorter list as a config_delta of the conversation.
func (c *AttachmentRmCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	_, err = a.Query.RemoveAttachments(rt.Ctx, rt.conversationConfigInput(), c.Attachments)
	return err
}

// AttachmentLsCmd is jp attachment ls.
type AttachmentLsCmd struct {
	FormatFlag
}

// Run lists them: "Attachments" and one row each, or a sentence when
// there are none; JSON keeps the array either way.
func (c *AttachmentLsCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	list, err := a.Query.Attachments(rt.Ctx, rt.conversationConfigInput())
	if err != nil {
		return err
	}
	if c.JSON() {
		items := list.Attachments
		if items == nil {
			items = []string{}
		}
		b, err := json.Marshal(map[string]any{"title": "Attachments", "details": items})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(rt.Streams.Out, "%s\n", b)
		return err
	}
	if len(list.Attachments) == 0 {
		_, err = fmt.Fprintln(rt.Streams.Out, "No attachments in current context.")
		return err
	}
	width := 0
	rows := make([]string, len(list.Attachments))
	for i, s := range list.Attachments {
		rows[i] = safetext.String(s)
		width = max(width, len([]rune(rows[i])))
	}
	var b strings.Builder
	b.WriteString("Attachments\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s%s |\n", r, strings.Repeat(" ", width-len([]rune(r))))
	}
	_, err = fmt.Fprint(rt.Streams.Out, b.String())
	return err
}

// AttachmentPrintCmd is jp attachment print.
type AttachmentPrintCmd struct {
	Attachment string `arg:"" help:"The attachment to preview (a path, file:PATH, gh://..., jp://jp-cID, cmd:..., a URL)."`
}

// Run prints each attachment's text, a blank line between two; an image
// is named on stderr instead.
func (c *AttachmentPrintCmd) Run(rt *Runtime) error {
	a, err := rt.App()
	if err != nil {
		return err
	}
	atts, err := a.Query.PreviewAttachment(rt.Ctx, rt.conversationConfigInput(), c.Attachment)
	if err != nil {
		return err
	}
	for i, att := range atts {
		if i > 0 {
			fmt.Fprintln(rt.Streams.Out)
		}
		if att.Data != nil || att.MediaType != "text/plain" {
			fmt.Fprintf(rt.Streams.Err, "Attachment '%s' is binary and cannot be previewed.\n", safetext.String(att.Source))
			continue
		}
		// Text from elsewhere (a pull request, a page) reaches the
		// terminal without its control characters.
		fmt.Fprintln(rt.Streams.Out, safetext.String(att.Content))
	}
	return nil
}

func (rt *Runtime) conversationConfigInput() app.ConversationConfigInput {
	return app.ConversationConfigInput{
		Target: rt.Globals.Workspace, LaunchDir: rt.Paths.LaunchDir,
		UserConfigDir: rt.Paths.ConfigDir, Environ: rt.Environ,
	}
}
