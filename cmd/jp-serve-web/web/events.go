package web

import (
	"encoding/json"
	"fmt"

	"github.com/jpcli/jp/adapters/eventcodec"
	"github.com/jpcli/jp/domain/conversation"
)

// decodeEvents reads the events of a read_events answer, each in its
// stored form.
func decodeEvents(raws []json.RawMessage) ([]conversation.Event, error) {
	evs := make([]conversation.Event, len(raws))
	for i, b := range raws {
		if err := eventcodec.Unmarshal(b, &evs[i]); err != nil {
			return nil, fmt.Errorf("jp sent an event that could not be read (event %d): %w", i+1, err)
		}
	}
	return evs, nil
}
