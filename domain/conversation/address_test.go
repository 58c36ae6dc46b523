package conversation

import "testing"

func TestAttachKindOf(t *testing.T) {
	for spec, want := range map[string]AttachKind{
		"notes.txt": AttachPath, "src/**/*.go": AttachPath, "../x": AttachPath, "-": AttachPath,
		"cmd:git diff": AttachCommand, "mcp://everything/demo://r": AttachMCP,
		"http://127.0.0.1/a": AttachURL, "https://example.com": AttachURL,
	} {
		if got := AttachKindOf(spec); got != want {
			t.Errorf("AttachKindOf(%q) = %d, want %d", spec, got, want)
		}
	}
}
