package attach

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jpcli/jp/internal/testkit"
	"github.com/jpcli/jp/ports"
)

const ghSecret = "ghp_secretTOKEN123"

// ghAttacher replays testdata/github with env as the environment.
func ghAttacher(t *testing.T, env map[string]string) (*Attacher, *testkit.GitHubReplay) {
	t.Helper()
	replay := &testkit.GitHubReplay{Dir: filepath.Join("testdata", "github")}
	srv := httptest.NewServer(replay)
	t.Cleanup(srv.Close)
	if _, ok := env["JP_GITHUB_API_URL"]; !ok {
		env["JP_GITHUB_API_URL"] = srv.URL
	}
	return &Attacher{HTTPClient: srv.Client(), Getenv: func(k string) string { return env[k] }}, replay
}

func TestGitHubPullDiffRendersAsTheRustJp(t *testing.T) {
	a, replay := ghAttacher(t, map[string]string{"GITHUB_TOKEN": ghSecret})
	atts, err := a.Attach(context.Background(), ports.AttachRequest{Specs: []string{"gh://octo-org/hello/pull/7/diff"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := "PR #7: Greet by name\n\nSource: gh://octo-org/hello/pull/7/diff\nURL:    https://github.com/octo-org/hello/pull/7\nAuthor: mona\nState:  open\nBase:   main (9fceb02)\nHead:   greet-name (6dcb09b)\n\nFiles included: 2, excluded by default filter: 1.\n\n---\n\nAdds a name argument.\r\n\r\nFixes #3.\n\ndiff --git a/main.go b/main.go\n"
	got := atts[0].Content
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got:\n%q\nwant prefix:\n%q", got, want)
	}
	if strings.Contains(got, "Cargo.lock") || !strings.Contains(got, "+Give a name to greet it.\n") {
		t.Fatalf("default excludes not applied:\n%s", got)
	}
	if atts[0].Source != "gh://octo-org/hello/pull/7/diff" || !atts[0].Local {
		t.Fatalf("source %q local %v", atts[0].Source, atts[0].Local)
	}
	for _, h := range replay.Auth() {
		if h != "Bearer "+ghSecret {
			t.Fatalf("Authorization = %q", h)
		}
	}
}

func TestGitHubPullDiffExcludesAndNoDefaults(t *testing.T) {
	a, _ := ghAttacher(t, map[string]string{})
	atts, err := a.Attach(context.Background(), ports.AttachRequest{Specs: []string{"gh://octo-org/hello/pull/7/diff?exclude=docs/**&no_defaults=true"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got := atts[0].Content
	if !strings.Contains(got, "Files included: 2, excluded by `?exclude` only: 1 (defaults disabled).") || !strings.Contains(got, "diff --git a/Cargo.lock") || strings.Contains(got, "docs/usage.md") {
		t.Fatalf("got:\n%s", got)
	}
}

func TestGitHubPullDiffTooLargeFallsBackToFiles(t *testing.T) {
	a, replay := ghAttacher(t, map[string]string{})
	atts, err := a.Attach(context.Background(), ports.AttachRequest{Specs: []string{"gh://octo-org/hello/pull/8/diff?no_defaults=1"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got := atts[0].Content
	for _, want := range []string{
		"State:  merged\n",
		"Note: PR diff exceeded GitHub's 20,000-line cap; reconstructed from the paginated /pulls/8/files endpoint. 1 file(s) had their patch omitted by GitHub (too large or binary); the `diff --git` headers are still present. 1 additional changed file(s) beyond the 2-file cap were not fetched; the reconstructed diff is incomplete.",
		"diff --git a/lib/a.go b/vendor/lib/a.go\nrename from lib/a.go\nrename to vendor/lib/a.go\n@@ -1 +1,2 @@\n package lib\n+// moved\n",
		"diff --git a/vendor/big.bin b/vendor/big.bin\n[patch omitted by GitHub: file is binary or exceeds the per-file Files API limit; status=added, +0/-0 (0 changes)]\n",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %q in:\n%s", want, got)
		}
	}
	if h := replay.Hits(); len(h) != 3 || h[2] != "/repos/octo-org/hello/pulls/8/files" {
		t.Fatalf("requests: %v", h)
	}
}

func TestGitHubPullReviewsRendersAsTheRustJp(t *testing.T) {
	a, _ := ghAttacher(t, map[string]string{"JP_GITHUB_TOKEN": ghSecret, "GITHUB_TOKEN": "other"})
	atts, err := a.Attach(context.Background(), ports.AttachRequest{Specs: []string{"gh://octo-org/hello/pull/7/reviews"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := "PR #7 reviews: 2 submitted\n1 outdated comment(s) hidden; pass `?include_outdated=true` to include them.\n\nSource: gh://octo-org/hello/pull/7/reviews\n\n---\n\nReviews:\n\n- **hubot** (submitted, changes requested):\n  > Looks close.\n  > One question inline.\n- **mona** (submitted, comment): (no summary)\n\n---\n\nInline comments by file:\n\n## main.go\n\n### Line 7 (RIGHT)\n\n- **hubot** (submitted, changes requested, id=10): os is not imported.\n  - **mona** (reply, submitted, comment, id=11): Fixed.\n"
	if got := atts[0].Content; got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	atts, err = a.Attach(context.Background(), ports.AttachRequest{Specs: []string{"gh://octo-org/hello/pull/7/reviews?include_outdated=true"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(atts[0].Content, "### Line 1 (RIGHT, outdated)\n\n- **hubot** (submitted, changes requested, outdated, id=12): Old remark.\n") {
		t.Fatalf("outdated comment missing:\n%s", atts[0].Content)
	}
}

func TestGitHubErrorsNeverShowTheToken(t *testing.T) {
	var logs bytes.Buffer
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil))) })
	a, replay := ghAttacher(t, map[string]string{"GITHUB_TOKEN": ghSecret})
	_, err := a.Attach(context.Background(), ports.AttachRequest{Specs: []string{"gh://octo-org/hello/pull/9/diff"}, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "HTTP 404 Not Found: Not Found") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), ghSecret) || strings.Contains(logs.String(), ghSecret) {
		t.Fatalf("token leaked: %v / %s", err, logs.String())
	}
	if len(replay.Auth()) != 1 || replay.Auth()[0] != "Bearer "+ghSecret {
		t.Fatalf("token not sent: %v", replay.Auth())
	}
	// An unreachable server: the error names the URL, never the token.
	a.Getenv = func(k string) string {
		return map[string]string{"GITHUB_TOKEN": ghSecret, "JP_GITHUB_API_URL": "http://127.0.0.1:1"}[k]
	}
	_, err = a.Attach(context.Background(), ports.AttachRequest{Specs: []string{"gh://octo-org/hello/pull/7/diff"}, Dir: t.TempDir()})
	if err == nil || strings.Contains(err.Error(), ghSecret) || strings.Count(err.Error(), "\n") > 0 {
		t.Fatalf("err = %v", err)
	}
}

func TestGitHubSpecForms(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{".git/config": "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:octo-org/hello.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"})
	origin := func() (string, string, error) { return githubOrigin(root) }
	gs, err := parseGHSpec("gh:pull/7/reviews", origin)
	if err != nil || gs.owner != "octo-org" || gs.repo != "hello" || gs.number != 7 || !gs.reviews {
		t.Fatalf("shortform: %+v %v", gs, err)
	}
	for _, bad := range []string{"gh:/pull/7/diff", "gh://o/r/issues/7", "gh://o/r/pull/x/diff", "gh:pull/7/diff?foo=1", "gh://o/r/pull/7", "gh://o/../pull/7/diff"} {
		if _, err := parseGHSpec(bad, origin); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	if _, err := parseGHSpec("gh:pull/7/diff", func() (string, string, error) { return githubOrigin(t.TempDir()) }); err == nil || !strings.Contains(err.Error(), "no GitHub origin remote") {
		t.Fatalf("no origin: %v", err)
	}
}
