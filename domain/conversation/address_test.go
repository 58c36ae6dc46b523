package conversation

import "testing"

func TestAttachKindOf(t *testing.T) {
	for spec, want := range map[string]AttachKind{
		"notes.txt": AttachPath, "src/**/*.go": AttachPath, "../x": AttachPath, "-": AttachPath,
		"cmd:git diff": AttachCommand, "mcp://everything/demo://r": AttachMCP,
		"http://127.0.0.1/a": AttachURL, "https://example.com": AttachURL,
		"file:src/a.go": AttachFile, "file:///**/*.md?exclude": AttachFile,
		"jp://jp-c17013123456": AttachConversation, "jp-c17013123456?a:-1": AttachConversation,
		"jp-c": AttachPath, "jp-cx1": AttachPath, "./jp-c1": AttachPath,
		"gh://o/r/pull/1/diff": AttachGitHub, "gh:pull/1/reviews": AttachGitHub,
	} {
		if got := AttachKindOf(spec); got != want {
			t.Errorf("AttachKindOf(%q) = %d, want %d", spec, got, want)
		}
	}
}
