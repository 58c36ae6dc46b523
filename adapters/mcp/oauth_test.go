package mcp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jpcli/jp/adapters/mcp/mcptest"
	"github.com/jpcli/jp/ports"
)

// follow plays the user's browser: it opens the authorization URL and
// follows the redirect back to jp's loopback listener.
func follow(u string) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

func oauthPool(t *testing.T, a *OAuth) *Pool {
	t.Helper()
	p, _, _ := newTestPool(t, nil)
	p.o.Auth = a
	return p
}

func TestOAuthTurnWithoutLoginFailsAtOnceSayingWhatToRun(t *testing.T) {
	srv := mcptest.NewOAuthServer(time.Hour)
	t.Cleanup(srv.Close) // after the pools' shutdowns, which end the sessions
	p := oauthPool(t, &OAuth{Dir: t.TempDir(), Log: loggerOr(nil)})
	_, _, err := p.Lease(context.Background(), remoteSpec(srv.URL+"/mcp", ""), limits)
	var login *LoginRequiredError
	if !errors.As(err, &login) || !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("err = %v, want a LoginRequiredError", err)
	}
	if err.Error() != "MCP server remote needs a login (it asks for a login): run jp mcp login remote" {
		t.Fatalf("err = %q", err)
	}
	if n, _, _ := srv.Counts(); n != 0 {
		t.Fatalf("a non-interactive lease asked for %d authorizations", n)
	}
}

func TestOAuthLoginStoresTokensThatTheNextPoolReuses(t *testing.T) {
	srv := mcptest.NewOAuthServer(time.Hour)
	t.Cleanup(srv.Close) // after the pools' shutdowns, which end the sessions
	dir := filepath.Join(t.TempDir(), "oauth")
	var printed strings.Builder
	p := oauthPool(t, &OAuth{Dir: dir, Browser: follow, Out: &printed, Log: loggerOr(nil)})
	spec := remoteSpec(srv.URL+"/mcp", "")
	n, err := p.Login(context.Background(), spec)
	if err != nil || n != 1 {
		t.Fatalf("Login = %d, %v", n, err)
	}
	if !strings.Contains(printed.String(), srv.URL+"/authorize?") {
		t.Fatalf("the authorization URL was not printed: %q", printed.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files = %v", files)
	}
	if st, _ := os.Stat(files[0]); st.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v", st.Mode().Perm())
	}
	// A later process (a new pool), not interactive: the stored tokens.
	q := oauthPool(t, &OAuth{Dir: dir, Log: loggerOr(nil)})
	ts, release := mustLease(t, q, spec, limits)
	defer release()
	r, err := ts.Call(context.Background(), "remote__echo", []byte(`{"message":"stored"}`))
	if err != nil || r.Content != "Echo: stored" {
		t.Fatalf("call = %+v, %v", r, err)
	}
	if authz, _, grants := srv.Counts(); authz != 1 || grants["authorization_code"] != 1 {
		t.Fatalf("%d authorizations, grants %v: the stored login was not reused", authz, grants)
	}
	removed, err := q.Logout(context.Background(), spec)
	if err != nil || !removed {
		t.Fatalf("Logout = %v, %v", removed, err)
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Fatalf("token file after logout: %v", err)
	}
}

func TestOAuthLoginRefusesACommandServer(t *testing.T) {
	p := oauthPool(t, &OAuth{Dir: t.TempDir(), Log: loggerOr(nil)})
	_, err := p.Login(context.Background(), fakeSpec(t, t.TempDir(), ""))
	if err == nil || !strings.Contains(err.Error(), "only a remote server (mcp.servers.fake.url) has a login") {
		t.Fatalf("err = %v", err)
	}
}
