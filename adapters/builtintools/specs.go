package builtintools

// spec is a built-in tool's description and JSON Schema as offered to the
// model.
type spec struct {
	description string
	schema      string
}

var specs = map[string]spec{
	ReadFile: {
		description: "Read a text file of the project. Long files come in pages of up to 2000 lines with a marker saying how to read on; start_line and end_line (1-based, inclusive) pick a range.",
		schema: `{"type":"object","properties":{
"path":{"type":"string","description":"The file, relative to the project root."},
"start_line":{"type":"integer","minimum":1,"description":"First line to read (default 1)."},
"end_line":{"type":"integer","minimum":1,"description":"Last line to read (default: the end, or the page limit)."}},
"required":["path"],"additionalProperties":false}`,
	},
	ListFiles: {
		description: "List the project's files (never those .gitignore ignores, nor .git), optionally under a directory and matching a glob (** matches any depth; a glob without / matches file names).",
		schema: `{"type":"object","properties":{
"pattern":{"type":"string","description":"A glob such as **/*.go or *.md (default: every file)."},
"path":{"type":"string","description":"A directory to list, relative to the project root (default: the root)."}},
"additionalProperties":false}`,
	},
	GrepFiles: {
		description: "Search the project's text files for a regular expression (RE2 syntax), honouring .gitignore. Output is path:line:text, with context lines as path-line-text.",
		schema: `{"type":"object","properties":{
"pattern":{"type":"string","description":"The regular expression."},
"paths":{"type":"array","items":{"type":"string"},"description":"Globs of the files to search (default: all)."},
"context":{"type":"integer","minimum":0,"maximum":20,"description":"Lines of context around each match (default 0)."},
"max_matches":{"type":"integer","minimum":1,"maximum":2000,"description":"Stop after this many matching lines (default 200)."},
"ignore_case":{"type":"boolean","description":"Match without regard to case."}},
"required":["pattern"],"additionalProperties":false}`,
	},
	CreateFile: {
		description: "Create a new file with the given content (its directories are created). Fails if the file exists: use fs_modify_file to change one.",
		schema: `{"type":"object","properties":{
"path":{"type":"string","description":"The new file, relative to the project root."},
"content":{"type":"string","description":"The file's whole text."}},
"required":["path","content"],"additionalProperties":false}`,
	},
	ModifyFile: {
		description: "Change files by exact-text replacement. Each pattern replaces its old text with new in each of its paths; old must occur exactly once in each file. If any old text is missing or ambiguous, nothing is written. Read a file before changing it.",
		schema: `{"type":"object","properties":{
"patterns":{"type":"array","minItems":1,"items":{"type":"object","properties":{
"old":{"type":"string","description":"The exact text to replace, including enough lines to be unique."},
"new":{"type":"string","description":"The replacement text."},
"paths":{"type":"array","items":{"type":"string"},"description":"The files to apply it to, relative to the project root."}},
"required":["old","new","paths"],"additionalProperties":false}}},
"required":["patterns"],"additionalProperties":false}`,
	},
	DeleteFile: {
		description: "Delete a file of the project.",
		schema: `{"type":"object","properties":{
"path":{"type":"string","description":"The file, relative to the project root."}},
"required":["path"],"additionalProperties":false}`,
	},
	MoveFile: {
		description: "Move or rename a file within the project. Fails if new_path exists.",
		schema: `{"type":"object","properties":{
"path":{"type":"string","description":"The file to move, relative to the project root."},
"new_path":{"type":"string","description":"Where it goes, relative to the project root."}},
"required":["path","new_path"],"additionalProperties":false}`,
	},
	GitStatus: {
		description: "Show the working tree's git status (short format, with the branch).",
		schema:      `{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"},"description":"Limit to these paths."}},"additionalProperties":false}`,
	},
	GitDiff: {
		description: "Show unstaged changes as a unified diff (staged: the changes staged for commit).",
		schema: `{"type":"object","properties":{
"staged":{"type":"boolean","description":"Show the staged changes instead."},
"paths":{"type":"array","items":{"type":"string"},"description":"Limit to these paths."}},
"additionalProperties":false}`,
	},
	GitLog: {
		description: "Show recent commits: short hash, date, author and subject.",
		schema: `{"type":"object","properties":{
"max_count":{"type":"integer","minimum":1,"maximum":500,"description":"How many commits (default 20)."},
"paths":{"type":"array","items":{"type":"string"},"description":"Only commits touching these paths."}},
"additionalProperties":false}`,
	},
	Shell: {
		description: "Run a command line with /bin/sh in the project root. stdout and stderr come back together, cut at 64 KiB; the command is stopped after its timeout.",
		schema: `{"type":"object","properties":{
"command":{"type":"string","description":"The command line."},
"timeout_secs":{"type":"integer","minimum":1,"description":"Stop it after this many seconds (at most the configured timeout)."}},
"required":["command"],"additionalProperties":false}`,
	},
	WebFetch: {
		description: "Fetch a web page or file over http(s) with GET and return its text: HTML is turned into Markdown, other text comes as it is. The answer starts with the final URL (after redirects) and the status.",
		schema: `{"type":"object","properties":{
"url":{"type":"string","description":"The absolute http or https URL."}},
"required":["url"],"additionalProperties":false}`,
	},
}
