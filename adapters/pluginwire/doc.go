// Package pluginwire is the plugin protocol's wire codec: a message as one
// JSON line and back (docs/plugins.md). The messages themselves, their
// validity rules and their errors are the protocol's model, in
// domain/plugin; app/pluginhost reaches this codec through
// ports.PluginCodec (Codec), and adapters/pluginsdk imports it directly.
package pluginwire
