package toolview

import "testing"

func TestLine(t *testing.T) {
	diff := "--- a/greet.txt\n+++ b/greet.txt\n@@ -1 +1 @@\n-hello\n+hello, world\n"
	tests := []struct {
		name, tool, args, diff string
		full                   bool
		want                   string
	}{
		{"modify with diff", "fs_modify_file", `{"patterns":[{"old":"hello","new":"hello, world","paths":["greet.txt"]}]}`, diff, false, "✎ fs_modify_file greet.txt (+1 −1)"},
		{"no arguments", "git_status", `{}`, "", false, "$ git_status"},
		{"move", "fs_move_file", `{"path":"a.go","new_path":"b/a.go"}`, "", false, "✎ fs_move_file a.go → b/a.go"},
		{"command", "shell", `{"command":"go test  ./...\n"}`, "", false, "$ shell go test ./..."},
		{"full arguments", "fs_read_file", `{"path":"a.txt", "start_line": 2}`, "", true, `$ fs_read_file {"path":"a.txt","start_line":2}`},
		{"not JSON", "x", `nope`, "", false, "$ x"},
		{"long subject is cut", "fs_read_file", `{"path":"` + string(make([]byte, 0)) + `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`, "", false,
			"$ fs_read_file aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.tool, []byte(tt.args), tt.diff, tt.full); got != tt.want {
				t.Errorf("Line = %q, want %q", got, tt.want)
			}
		})
	}
}
