#!/usr/bin/env bash
# make demo: a short offline tour of jp on the built-in demo model. It runs
# in a throw-away workspace and data directory, so it touches nothing of
# yours.
set -euo pipefail
JP="${JP_BIN:?JP_BIN must point at the directory holding the jp binary}/jp"
tour=$(mktemp -d "${TMPDIR:-/tmp}/jp-demo.XXXXXX")
trap 'rm -rf "$tour"' EXIT
export HOME="$tour/home" XDG_DATA_HOME="$tour/data" XDG_CONFIG_HOME="$tour/config"
# The example plugins (jp-titles, jp-prune) sit beside jp; jp finds jp-* on $PATH.
export PATH="$(dirname "$JP"):$PATH"
unset ANTHROPIC_API_KEY OPENAI_API_KEY JP_HEADLESS
mkdir -p "$HOME" "$tour/project"
cd "$tour/project"

bold=$'\e[1m'; dim=$'\e[2m'; off=$'\e[0m'
[ -t 1 ] || { bold=""; dim=""; off=""; }
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$off"; }
show() { printf '%s$ %s%s\n' "$dim" "$*" "$off"; "$@"; }

step "1. A workspace: jp init writes .jp/.id (commit it with your project)"
show "$JP" init

step "2. A question, answered offline by the demo model (the last line is the turn's token usage)"
show "$JP" q "hello, jp"
printf 'TODO: write the release notes.\n' > todo.txt
echo "${dim}(-a attaches a file, a directory, a glob, cmd:COMMAND or a URL, and sticks to the conversation: read again each turn; piped stdin is attached too)${off}"
show "$JP" q -a todo.txt "what is on my list?"

step "3. A turn with tool calls: a local tool, and a headless script that answers the permission prompt"
cat >> .jp/config.toml <<'TOML'
[conversation.tools.word_count]
command = ["sh", "-c", "f=$(jq -r .path); wc -w < \"$f\""]
description = "Count the words in a file of the project."
parameters = { type = "object", properties = { path = { type = "string" } }, required = ["path"] }
TOML
echo "${dim}(a checkout's configuration runs no program and sends nothing until you trust it; jp init trusted what it wrote,${off}"
echo "${dim} and jp workspace trust lists the new tool command and trusts it: a git pull that changes such keys asks again)${off}"
show "$JP" workspace trust
printf 'jp keeps conversations per workspace and runs tools.\n' > notes.txt
printf 'A second file with a few more words in it.\n' > more.txt
cat > script.json <<'JSON'
{"responses": [
  {"events": [{"text": "Let me count the words in both files."},
              {"tool_call": {"name": "word_count", "arguments": {"path": "notes.txt"}}},
              {"tool_call": {"name": "word_count", "arguments": {"path": "more.txt"}}}]},
  {"events": [{"text": "notes.txt has 8 words and more.txt has 10."}]}
]}
JSON
printf 'permission word_count Y\n' > answers.txt
echo "${dim}(answers.txt says 'permission word_count Y': run, and remember for this run, so the second call is not asked)${off}"
show "$JP" q --new --headless answers.txt --cfg providers.demo.script=script.json "How many words are in my notes?"

step "3b. Built-in tools: the model reads, greps and edits a file; you approve the diff first"
printf 'Hello world from the demo.\nSecond line.\n' > greet.txt
cat > edit.json <<'JSON'
{"responses": [
  {"events": [{"text": "Let me look at greet.txt."},
              {"tool_call": {"name": "fs_read_file", "arguments": {"path": "greet.txt"}}}]},
  {"events": [{"tool_call": {"name": "fs_grep_files", "arguments": {"pattern": "world", "paths": ["*.txt"]}}}]},
  {"events": [{"tool_call": {"name": "fs_modify_file", "arguments": {"patterns": [{"old": "Hello world", "new": "Hello jp", "paths": ["greet.txt"]}]}}}]},
  {"events": [{"text": "Done: greet.txt now greets jp."}]}
]}
JSON
printf 'permission fs_modify_file y\n' > edit.jph
echo "${dim}(jp init enabled the built-in tools: reading ones run unattended, fs_modify_file asks and shows its diff; edit.jph answers y)${off}"
show "$JP" q --new --headless edit.jph --cfg providers.demo.script=edit.json "Make greet.txt greet jp."
show cat greet.txt

step "4. A queued reply: compose the next message while the assistant keeps working"
cat > slow.json <<'JSON'
{"responses": [{"events": [{"text": "Here is a long answer, word by word: "}, {"text": "lorem ", "repeat": 30, "sleep_ms": 20}]}]}
JSON
cat > queue.jph <<'JPH'
# After the 5th word, press Ctrl-C, pick [q] Queue reply, and type the next message.
after 5 deltas
select @interrupt:streaming q
compose @queue_reply "Now summarise that in one line."
JPH
echo "${dim}(queue.jph presses Ctrl-C after 5 words, answers the menu with [q] and composes the next message;${off}"
echo "${dim} the answer finishes, then the queued reply is sent as the next turn of the same run)${off}"
show "$JP" q --new --headless queue.jph --cfg providers.demo.script=slow.json "Tell me something long."

step "5. Everything is recorded"
echo "${dim}(after a conversation's first turn its model writes a title: the demo model's is the first words, capitalised; conversation.title.model)${off}"
show "$JP" conversation ls
id=$("$JP" conversation ls --format json | jq -r '.[0].id')
show "$JP" conversation show "$id"

step "5b. The context meter (ctx: the estimated next request against the model's window), before and after compacting"
seq 1 2500 > numbers.txt
show "$JP" q --new "a conversation that grows"
show "$JP" q -a - "here is a long attachment (-a -: this message only)" < numbers.txt
show "$JP" q "how full is the window now?"
show "$JP" c compact -s
show "$JP" q "and after compacting?"
echo "${dim}(conversation.compaction.auto compacts by itself between turns when the meter passes 75% of the window)${off}"

step "6. Fork, search, and JSON lines for scripts"
echo "${dim}(jp c commands take an ID prefix and default to the active conversation, marked * in jp c ls)${off}"
show "$JP" c fork --turn 1
show "$JP" c grep 'words in'
echo "${dim}(a conversation that grows is compacted: overlays make the model see less of older turns, nothing is removed)${off}"
"$JP" q --new "Where is the parser defined? It lives in parser.go." > /dev/null 2>&1
"$JP" q "And the lexer?" > /dev/null 2>&1
"$JP" q "Which one should change for the new syntax?" > /dev/null 2>&1
"$JP" q "Then let's change it." > /dev/null 2>&1
show "$JP" c compact --dry-run
show "$JP" c compact --summarize
show "$JP" c print --compacted
show "$JP" q --tmp --format json "one answer for a script, then gone"

step "7. Plugins: a shell script, and a Go plugin that asks a question through jp's prompts"
cat >> .jp/config.toml <<'TOML'
[plugins.command.titles]
run = "unattended"
[plugins.command.prune]
run = "unattended"
TOML
echo "${dim}(plugins from \$PATH must be approved once; this workspace's config allows the two examples, once trusted)${off}"
"$JP" workspace trust > /dev/null
show "$JP" titles
printf 'confirm @plugin:prune yes\n' > prune.jph
echo "${dim}(jp prune asks 'Delete K stale conversations? (they are archived, not removed)'; prune.jph answers yes, as you would at the prompt)${off}"
JP_HEADLESS=prune.jph show "$JP" prune --days 0
show "$JP" conversation ls --archived

step "8. Workspaces and their checkouts"
show "$JP" workspace ls

step "9. The web frontend: jp serve web, a plugin that sees every workspace on the machine"
cat >> .jp/config.toml <<'TOML'
[plugins.command.serve-web]
run = "unattended"
options = { port = 0 }   # any free port (the default is 3141)
TOML
"$JP" workspace trust > /dev/null
echo "${dim}(it runs until Ctrl-C; the tour starts it in the background, fetches the page once, and stops it)${off}"
printf '%s$ %s%s\n' "$dim" "jp serve web" "$off"
"$JP" serve web > "$tour/web.log" 2>&1 &
web=$!
trap 'kill -INT "$web" 2>/dev/null || true; wait "$web" 2>/dev/null || true; rm -rf "$tour"' EXIT
url=""
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/#token=[0-9a-f]*' "$tour/web.log" | head -n 1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$tour/web.log"; echo "jp serve web did not start" >&2; exit 1; }
cat "$tour/web.log"
port=${url#http://127.0.0.1:}; port=${port%%/*}
token=${url#*token=}
get() { # get TOKEN: GET / with that token (none when empty)
  local auth=""
  [ -z "$1" ] || auth="Authorization: Bearer $1"$'\r\n'
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf 'GET / HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n%s\r\n' "$port" "$auth" >&3
  cat <&3; exec 3<&-
}
page=$(get "")
echo "${dim}(GET without the token: $(printf '%s' "$page" | head -n 1 | tr -d '\r'): only who has the printed address gets in)${off}"
printf '%s' "$page" | head -n 1 | grep -q ' 401 ' || { echo "jp serve web answered without its token" >&2; exit 1; }
page=$(get "$token")
echo "${dim}(GET with the token: $(printf '%s' "$page" | head -n 1 | tr -d '\r'); the page lists workspace 'project' with its checkout)${off}"
printf '%s' "$page" | grep -q 'project' || { echo "the page does not list the workspace" >&2; exit 1; }
echo "${dim}(open that address in a browser while jp serve web runs: docs/web.md)${off}"
# A picture of step 3b's conversation (its file edit shows as the terminal's
# line with its diff), drawn by headless Chromium when there is one. The
# window is taller than the page: headless Chromium's viewport is 87 px
# shorter than its window, and a page it scrolled is captured with a blank
# band above its sticky header (a capture artefact, not in a real window).
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$chrome" ]; then
  conv=""
  # --all: step 7's prune archived the earlier conversations.
  for id in $("$JP" conversation ls --all --format json | jq -r '.[].id'); do
    if "$JP" conversation show "$id" 2>/dev/null | grep -q fs_modify_file; then conv=$id; break; fi
  done
  [ -n "$conv" ] || { echo "step 3b's conversation is not listed" >&2; exit 1; }
  shot="${TMPDIR:-/tmp}/jp-demo-web.png"
  sandbox=""; [ "$(id -u)" != 0 ] || sandbox="--no-sandbox" # root cannot use Chromium's sandbox
  timeout 60 "$chrome" --headless $sandbox --disable-gpu --hide-scrollbars --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$tour/chromium" --window-size=1100,2200 \
    --virtual-time-budget=5000 --screenshot="$shot" \
    "http://127.0.0.1:$port/w/$(cat .jp/.id)/c/$conv?root=$(jq -rn --arg p "$PWD" '$p|@uri')#token=$token" > "$tour/chromium.log" 2>&1 ||
    { cat "$tour/chromium.log"; echo "chromium could not draw the page" >&2; exit 1; }
  [ -s "$shot" ] || { echo "chromium saved no screenshot" >&2; exit 1; }
  echo "${dim}(headless Chromium drew the conversation from step 3b: saved as $shot)${off}"
else
  echo "${dim}(no Chromium here: install it to have the tour save a picture of the page)${off}"
fi
kill -INT "$web"; wait "$web" || true

step "10. A session: jp chat keeps the conversation open (a script types here; Ctrl-D or an empty message ends it)"
cat > chat.jph <<'JPH'
compose @query What is in @todo.txt?
compose @query /model
compose @query Thanks.
compose @query empty
JPH
cat chat.jph
show "$JP" chat --new --headless chat.jph
echo "${dim}(in a terminal: Up recalls earlier messages, / completes commands (/help), @ completes files: docs/session.md)${off}"

step "11. Rewind: undo what the model did to files after a turn"
printf 'first draft\n' > plan.txt
cat > rewind.json <<'JSON'
{"responses": [
  {"events": [{"tool_call": {"name": "fs_modify_file", "arguments": {"patterns": [{"old": "first draft", "new": "second draft", "paths": ["plan.txt"]}]}}}]},
  {"events": [{"text": "Revised the plan."}]},
  {"events": [{"tool_call": {"name": "fs_create_file", "arguments": {"path": "oops.txt", "content": "a wrong turn\n"}}},
              {"tool_call": {"name": "fs_delete_file", "arguments": {"path": "plan.txt"}}}]},
  {"events": [{"text": "Replaced the plan."}]}
]}
JSON
printf 'permission fs_modify_file y\n' > rw1.jph
printf 'permission fs_create_file y\npermission fs_delete_file y\n' > rw2.jph
"$JP" q --new --quiet --hide-tool-calls --headless rw1.jph --cfg providers.demo.script=rewind.json "Revise the plan." 2>/dev/null
"$JP" q --quiet --hide-tool-calls --headless rw2.jph "Start over." 2>/dev/null
echo "${dim}(turn 2 deleted plan.txt and created oops.txt; jp kept the files' earlier contents in the user-local store)${off}"
show "$JP" c rewind --turn 1 --dry-run
show "$JP" c rewind --turn 1
show cat plan.txt
[ ! -e oops.txt ] && [ "$(cat plan.txt)" = "second draft" ] || { echo "the rewind did not restore the files" >&2; exit 1; }

step "12. The sandbox: with --auto all the model runs shell unattended, confined to the checkout"
mkdir -p "$HOME/.ssh" && printf 'not a real key\n' > "$HOME/.ssh/id_rsa"
cat > sandbox.json <<'JSON'
{"responses": [
  {"events": [{"text": "Building in the checkout."},
              {"tool_call": {"name": "shell", "arguments": {"command": "mkdir -p build && echo built > build/out.txt && cat build/out.txt"}}}]},
  {"events": [{"tool_call": {"name": "shell", "arguments": {"command": "cat ~/.ssh/id_rsa; echo x > ../outside.txt"}}}]},
  {"events": [{"text": "The build ran; the key and everything outside the checkout stayed out of reach."}]}
]}
JSON
echo "${dim}(shell runs in jp's sandbox: writes only in the checkout, no secrets, no network; --auto all runs sandboxed commands without asking)${off}"
show "$JP" q --new --auto all --cfg providers.demo.script=sandbox.json "Build it, then show me my SSH key."
[ ! -e ../outside.txt ] || { echo "the sandbox let a write outside the checkout through" >&2; exit 1; }

printf '\n%sDone.%s Try it in your own project: make install, then jp init and jp q. See README.md and docs/.\n' "$bold" "$off"
