// Package pluginhost runs command plugins (docs/plugins.md): the
// bootstrap a plugin's declared scope needs, admission, spawning it with
// init, and the message loop that serves its requests (a router from
// message type to small handlers over ports), the prompt channel, the
// checkouts a multi-scope plugin addresses, and delegated turns, which run
// app.Query for the plugin. wire/ builds it.
package pluginhost
