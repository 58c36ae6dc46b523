package ports

import "github.com/jpcli/jp/domain/plugin"

// PluginCodec is the plugin protocol's wire form: a message as one JSON
// line and back (docs/plugins.md), for the use case that talks to plugins.
// adapters/pluginwire implements it.
type PluginCodec interface {
	// Encode renders m as one JSON line, without the newline.
	Encode(m plugin.Message) ([]byte, error)
	// DecodeHeader reads a line's type, id and workspace. What it could
	// read is returned even with an error (wrapping plugin.ErrNotJSON,
	// ErrNoType or ErrBadField), so that an answer can echo the id.
	DecodeHeader(line []byte) (plugin.Header, error)
	// Decode reads a whole line into v (a pointer to a message); a field
	// error wraps plugin.ErrBadField and names the field. It does not
	// validate: the caller calls the request's Validate.
	Decode(line []byte, v any) error
}
