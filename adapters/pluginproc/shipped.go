package pluginproc

import (
	"fmt"
	"strings"
)

// parseShippedList reads a plugin.ShippedList: file name to lowercase hex
// SHA-256. A line that is not "<64 hex> <name>" (sha256sum's "*name" and
// "name" both) is an error naming it.
func parseShippedList(data []byte) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sum, name, ok := strings.Cut(line, " ")
		name = strings.TrimPrefix(strings.TrimSpace(name), "*")
		if !ok || len(sum) != 64 || strings.Trim(strings.ToLower(sum), "0123456789abcdef") != "" || name == "" || strings.ContainsAny(name, "/\\") {
			return nil, fmt.Errorf("line %d is not \"<sha256>  <file name>\"", i+1)
		}
		out[name] = strings.ToLower(sum)
	}
	return out, nil
}
