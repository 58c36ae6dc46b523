package pluginwire

import "github.com/jpcli/jp/domain/plugin"

// Codec is ports.PluginCodec: Encode, DecodeHeader and Unmarshal (with
// field errors) for the use cases.
type Codec struct{}

// Encode is Encode.
func (Codec) Encode(m plugin.Message) ([]byte, error) { return Encode(m) }

// DecodeHeader is DecodeHeader.
func (Codec) DecodeHeader(line []byte) (plugin.Header, error) { return DecodeHeader(line) }

// Decode is Unmarshal, its errors naming the field.
func (Codec) Decode(line []byte, v any) error {
	if err := Unmarshal(line, v); err != nil {
		return plugin.FieldError(err)
	}
	return nil
}
