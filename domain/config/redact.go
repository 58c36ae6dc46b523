package config

import "strings"

// Redacted replaces a secret value wherever configuration is shown.
const Redacted = "<redacted>"

// Redact returns a deep copy of a configuration tree (or any value of
// one) with its secrets replaced by Redacted: every string under a
// headers or env table (header values, environment values), and every
// string whose key names a secret (client_secret, *_secret, *token*,
// *key*, *password*, any case; a *_env key names a variable and is
// kept). Other values are copied as they are;
// numbers and booleans under such names (max_tokens) are kept. v is not
// changed.
func Redact(v any) any { return redactValue(v, false) }

// secretContainers are tables whose every string value is a secret.
var secretContainers = map[string]bool{"headers": true, "env": true}

// secretName reports whether a key names a secret value.
func secretName(k string) bool {
	k = strings.ToLower(k)
	if strings.HasSuffix(k, "_env") {
		// api_key_env, bearer_token_env: the name of a variable, not its
		// value.
		return false
	}
	return k == "secret" || strings.HasSuffix(k, "_secret") || strings.Contains(k, "token") ||
		strings.Contains(k, "key") || strings.Contains(k, "password")
}

// redactValue copies v; all says every string in it is a secret.
func redactValue(v any, all bool) any {
	switch v := v.(type) {
	case string:
		if all {
			return Redacted
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = redactValue(e, all || secretContainers[strings.ToLower(k)] || isString(e) && secretName(k))
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(v))
		for k, e := range v {
			if all || secretName(k) {
				e = Redacted
			}
			out[k] = e
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redactValue(e, all)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(v))
		for i, e := range v {
			out[i] = redactValue(e, all).(map[string]any)
		}
		return out
	case []string:
		out := append([]string(nil), v...)
		if all {
			for i := range out {
				out[i] = Redacted
			}
		}
		return out
	}
	return v
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}
