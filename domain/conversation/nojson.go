package conversation

import "errors"

// errNoJSON is what encoding/json gets for an Event or a Metadata: their
// stored forms (jp's and the Rust jp's) belong to the storage adapter
// (adapters/eventcodec), and a struct holding one must encode it through
// there. Without these methods encoding/json would write the Go fields by
// reflection, a form no reader of jp's files knows, without a word.
var errNoJSON = errors.New("conversation events and metadata have no JSON form of their own: encode and decode them with adapters/eventcodec")

// MarshalJSON refuses (see errNoJSON).
func (Event) MarshalJSON() ([]byte, error) { return nil, errNoJSON }

// UnmarshalJSON refuses (see errNoJSON).
func (*Event) UnmarshalJSON([]byte) error { return errNoJSON }

// MarshalJSON refuses (see errNoJSON).
func (Metadata) MarshalJSON() ([]byte, error) { return nil, errNoJSON }

// UnmarshalJSON refuses (see errNoJSON).
func (*Metadata) UnmarshalJSON([]byte) error { return errNoJSON }

// MarshalJSON refuses (see errNoJSON): metadata.local.json's form is
// eventcodec.LocalJSON's.
func (LocalMetadata) MarshalJSON() ([]byte, error) { return nil, errNoJSON }

// UnmarshalJSON refuses (see errNoJSON).
func (*LocalMetadata) UnmarshalJSON([]byte) error { return errNoJSON }
