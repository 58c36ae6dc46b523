package logging

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogsCarryNoSecrets: secret-named attributes and secrets inside
// values and errors are redacted, on stderr and in the file, in text and
// in JSON.
func TestLogsCarryNoSecrets(t *testing.T) {
	t.Parallel()
	for _, json := range []bool{false, true} {
		var stderr bytes.Buffer
		file := filepath.Join(t.TempDir(), "jp.log")
		l := NewWithOptions(&stderr, Options{File: file, JSON: json, Verbosity: 2})
		l.Info("request",
			"api_key", "k-123456789",
			"Authorization", "Bearer abcdef123456",
			"url", "https://x.test/v1?api_key=q1w2e3r4t5&model=m",
			"header", "Authorization: Bearer zyxwvu987654",
			"err", errors.New("provider said: invalid key sk-ant-0123456789abcdef"),
			"model", "anthropic/claude")
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"stderr": stderr.String(), "file": string(b)} {
			for _, secret := range []string{"k-123456789", "abcdef123456", "q1w2e3r4t5", "zyxwvu987654", "0123456789abcdef"} {
				if strings.Contains(out, secret) {
					t.Errorf("json=%v %s carries %q: %s", json, name, secret, out)
				}
			}
			if !strings.Contains(out, "anthropic/claude") || !strings.Contains(out, "model=m") || !strings.Contains(out, Redacted) {
				t.Errorf("json=%v %s lost what is not secret: %s", json, name, out)
			}
			if json != strings.HasPrefix(out, "{") {
				t.Errorf("json=%v %s: %s", json, name, out)
			}
		}
	}
}

// TestLogFileLevel: FileLevel keeps debug records in the file while
// stderr stays at the -v level.
func TestLogFileLevel(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	file := filepath.Join(t.TempDir(), "jp.log")
	debug := Level(2)
	l := NewWithOptions(&stderr, Options{File: file, FileLevel: &debug})
	l.Debug("detail")
	_ = l.Close()
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), "detail") || stderr.Len() != 0 {
		t.Errorf("file %q, stderr %q", b, stderr.String())
	}
}
