package turn

import (
	"github.com/jpcli/jp/domain/conversation"
	"github.com/jpcli/jp/domain/llm"
)

// unansweredResult stands in for a tool call whose turn was cut off (the
// process was killed) so that the history sent to a provider stays valid.
const unansweredResult = "No result was recorded for this call: the turn was interrupted."

// History turns stored events into the messages sent to a provider (see
// Transcript).
func History(evs []conversation.Event) []llm.Message { return replay(evs).Messages() }

// replay is the transcript of evs.
func replay(evs []conversation.Event) *Transcript {
	t := NewTranscript(len(evs))
	for _, e := range evs {
		t.Add(e)
	}
	return t
}

func attachments(as []conversation.Attachment) []llm.Attachment {
	if len(as) == 0 {
		return nil
	}
	out := make([]llm.Attachment, len(as))
	for i, a := range as {
		if a.IsReference() {
			// Content kept on another machine: the model reads what it was.
			out[i] = llm.Attachment{Name: a.Source, MediaType: "text/plain", Text: a.ReferenceText()}
			continue
		}
		out[i] = llm.Attachment{Name: a.Source, MediaType: a.MediaType, Text: a.Content, Data: a.Data}
	}
	return out
}

// ProviderSteps counts the provider calls a conversation already had (see
// Transcript.ProviderSteps).
func ProviderSteps(evs []conversation.Event) int { return replay(evs).ProviderSteps() }
