package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/mcp/mcptest"
)

// TestMCPOAuthLoginTokensAndLogout drives a remote MCP server protected
// by OAuth through jp: a turn that needs a login says so in one line;
// jp mcp login stores the tokens in a 0600 file; the next run reuses
// them; an expired token is refreshed and stored again (keeping fields
// another version wrote); jp mcp logout removes them; and no token
// reaches stderr or jp.log at -vvvv.
func TestMCPOAuthLoginTokensAndLogout(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("curl (installed by .ci/install-deps) plays the browser: %v", err)
	}
	srv := mcptest.NewOAuthServer(time.Hour)
	defer srv.Close()
	e := newJPEnv(t)
	e.run("init")
	e.write(".jp/config.toml", "[mcp.servers.remote]\nurl = \""+srv.URL+"/mcp\"\n")
	// The "browser" follows the authorization server's redirect to jp's
	// loopback listener, as a user's would after consenting.
	e.env = append(e.env, "BROWSER=curl -fsSL --max-time 20 -o /dev/null")
	var logs strings.Builder
	jp := jpRecorder(t, e, &logs)

	// A turn meeting the server before any login fails at once, in one
	// line naming the command to run.
	checkLoginNeeded(t, jp, srv)

	out, _ := jp(true, "-vvvv", "mcp", "login", "remote")
	if !strings.Contains(out, "Logged in to MCP server remote (1 tools)") {
		t.Fatalf("login said %q", out)
	}
	files, _ := filepath.Glob(filepath.Join(e.data, "jp", "mcp", "oauth", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files = %v", files)
	}
	tokenFile := files[0]
	checkMode(t, tokenFile)
	first := readToken(t, tokenFile)

	// The next run reuses the stored tokens: no authorization, no grant.
	out, _ = jp(true, "-vvvv", "mcp", "call", "remote", "echo", `{"message": "again"}`)
	if strings.TrimSpace(out) != "Echo: again" {
		t.Fatalf("call = %q", out)
	}
	authz, regs, grants := srv.Counts()
	if authz != 1 || regs != 1 || grants["authorization_code"] != 1 || grants["refresh_token"] != 0 {
		t.Fatalf("after reuse: %d authorizations, %d registrations, grants %v", authz, regs, grants)
	}

	// Time passes: the stored access token expired. The next run
	// refreshes it and stores the new one, keeping what it does not know.
	expireToken(t, tokenFile)
	e.write("echo.json", `{"responses": [{"events": [{"tool_call": {"name": "remote__echo", "arguments": {"message": "refreshed"}}}]}, {"events": [{"text": "ok"}]}]}`)
	out, _ = jp(true, "-vvvv", "q", "--new", "--cfg", "conversation.tools.defaults.run=unattended", "--cfg", "providers.demo.script="+filepath.Join(e.dir, "echo.json"), "go")
	if !strings.Contains(out, "ok") {
		t.Fatalf("the turn said %q", out)
	}
	if _, _, grants := srv.Counts(); grants["refresh_token"] != 1 {
		t.Fatalf("grants after expiry = %v, want one refresh", grants)
	}
	second := readToken(t, tokenFile)
	if second == first || second == "" {
		t.Fatal("the refreshed token was not stored")
	}
	checkMode(t, tokenFile)
	if b, _ := os.ReadFile(tokenFile); !strings.Contains(string(b), `"x_from_a_later_jp": "kept"`) {
		t.Fatalf("a field another version wrote was lost:\n%s", b)
	}

	// No token in any log line.
	checkNoTokenLogged(t, logs.String(), filepath.Join(e.data, "jp", "logs", "jp.log"), srv.Issued())

	out, _ = jp(true, "mcp", "logout", "remote")
	if !strings.Contains(out, "Logged out of MCP server remote") {
		t.Fatalf("logout said %q", out)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Fatalf("the token file survived logout: %v", err)
	}
	out, _ = jp(true, "mcp", "logout", "remote")
	if !strings.Contains(out, "No stored login for MCP server remote") {
		t.Fatalf("second logout said %q", out)
	}
}

// jpRecorder runs jp in e, failing the test when it does not succeed or
// fail as wanted; every run's stderr goes to logs.
func jpRecorder(t *testing.T, e *jpEnv, logs *strings.Builder) func(wantOK bool, args ...string) (string, string) {
	return func(wantOK bool, args ...string) (string, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := e.command(ctx, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		logs.WriteString(errb.String())
		if (err == nil) != wantOK {
			t.Fatalf("jp %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
}

// checkLoginNeeded: a turn meeting the server before any login fails at
// once, in one line naming the command to run, and asks for no
// authorization.
func checkLoginNeeded(t *testing.T, jp func(bool, ...string) (string, string), srv *mcptest.OAuthServer) {
	t.Helper()
	_, stderr := jp(false, "q", "--new", "hello")
	if want := "MCP server remote needs a login (it asks for a login): run jp mcp login remote"; !strings.Contains(stderr, want) {
		t.Fatalf("stderr = %q, want the line %q", stderr, want)
	}
	if n, _, _ := srv.Counts(); n != 0 {
		t.Fatalf("a turn started %d authorization requests", n)
	}
}

// expireToken makes the stored access token expired and adds a field a
// later jp might write.
func expireToken(t *testing.T, tokenFile string) {
	t.Helper()
	var raw map[string]any
	b, _ := os.ReadFile(tokenFile)
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	raw["token"].(map[string]any)["expiry"] = "2001-01-01T00:00:00Z"
	raw["x_from_a_later_jp"] = "kept"
	b, _ = json.Marshal(raw)
	if err := os.WriteFile(tokenFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkNoTokenLogged: no issued token is in stderr or jp.log, which do
// say something about MCP.
func checkNoTokenLogged(t *testing.T, stderr, logFile string, issued []string) {
	t.Helper()
	jl, _ := os.ReadFile(logFile)
	all := stderr + string(jl)
	if !strings.Contains(all, "MCP") {
		t.Fatalf("the -vvvv logs say nothing about MCP; is the log captured?\n%s", all)
	}
	for _, tok := range issued {
		if strings.Contains(all, tok) {
			t.Fatalf("token %s reached a log", tok)
		}
	}
}

func checkMode(t *testing.T, p string) {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("%s has mode %v, want 0600", p, st.Mode().Perm())
	}
	dir, _ := os.Stat(filepath.Dir(p))
	if dir.Mode().Perm() != 0o700 {
		t.Fatalf("%s has mode %v, want 0700", filepath.Dir(p), dir.Mode().Perm())
	}
}

func readToken(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Token struct {
			AccessToken string `json:"access_token"`
		} `json:"token"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Token.AccessToken
}
