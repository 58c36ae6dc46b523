package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// bin is where .ci/install-deps installs the suite and Node.js 22.
const bin = "node_modules/.bin"

// parallel is how many scenarios run at once: each is a node process
// (the suite and its test server) and a jp process.
const parallel = 4

// scenarioTimeout bounds one scenario's client (the suite's --timeout).
const scenarioTimeout = 45 * time.Second

// TestConformanceClientScenarios runs every client scenario of the suite
// that is not a draft or an extension against jp.
func TestConformanceClientScenarios(t *testing.T) {
	suite, err := filepath.Abs(filepath.Join(bin, "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(suite); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the MCP conformance suite is not installed (run .ci/install-deps): %v", err)
		}
		t.Skipf("the MCP conformance suite is not installed; run .ci/install-deps to run it")
	}
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatalf("client.sh needs jq (installed by .ci/install-deps): %v", err)
	}
	binDir, _ := filepath.Abs(bin)
	env := append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	jp := buildJP(t)
	env = append(env, "JP="+jp)
	client, _ := filepath.Abs("client.sh")

	scenarios := clientScenarios(t, suite, env)
	expected := expectedFailures(t)
	for name := range expected {
		if !slices.Contains(scenarios, name) {
			t.Errorf("expected-failures.txt lists %s, which is not a client scenario of the suite (any more)", name)
		}
	}
	checkDocsTable(t, scenarios, expected)
	sem := make(chan struct{}, parallel)
	t.Run("scenario", func(t *testing.T) {
		for _, sc := range scenarios {
			t.Run(sc, func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				r := runScenario(t, suite, client, sc, env)
				reason, listed := expected[sc]
				passed := r.err == nil && r.failures == 0 && r.successes > 0
				switch {
				case passed && listed:
					t.Errorf("%s passes now (%d checks): take it off expected-failures.txt (%s)", sc, r.successes, reason)
				case !passed && !listed:
					t.Errorf("%s failed: %d checks passed, %d failed%s\n%s", sc, r.successes, r.failures, errSuffix(r.err), r.out)
				case listed:
					t.Logf("%s fails as expected (%s): %d passed, %d failed", sc, reason, r.successes, r.failures)
				default:
					t.Logf("%s passes: %d checks", sc, r.successes)
				}
			})
		}
	})
}

type result struct {
	successes, failures int
	err                 error
	out                 string
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf(" (%v)", err)
}

// runScenario runs one scenario and counts its checks.
func runScenario(t *testing.T, suite, client, scenario string, env []string) result {
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*scenarioTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, suite, "client", "--command", client, "--scenario", scenario,
		"--timeout", fmt.Sprint(scenarioTimeout.Milliseconds()), "-o", out)
	cmd.Env = append(slices.Clip(env), "NO_COLOR=1") // scenarios run in parallel: never write into the shared env
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	r := result{err: cmd.Run()}
	files, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	more, _ := filepath.Glob(filepath.Join(out, "*", "*", "checks.json"))
	files = append(files, more...)
	if len(files) == 0 {
		r.err = fmt.Errorf("no checks.json written: %v", r.err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var checks []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range checks {
			switch c.Status {
			case "SUCCESS":
				r.successes++
			case "FAILURE":
				r.failures++
			}
		}
		logs, _ := filepath.Glob(filepath.Join(filepath.Dir(f), "std*.txt"))
		for _, l := range logs {
			if b, err := os.ReadFile(l); err == nil && len(b) > 0 {
				buf.WriteString("--- " + filepath.Base(l) + " ---\n")
				buf.Write(b)
			}
		}
	}
	r.out = buf.String()
	return r
}

// clientScenarios lists the suite's client scenarios, less the drafts
// and extensions.
func clientScenarios(t *testing.T, suite string, env []string) []string {
	cmd := exec.Command(suite, "list")
	cmd.Env = env
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("conformance list: %v", err)
	}
	line := regexp.MustCompile(`^\s+- (\S+) \[([^\]]*)\]$`)
	var out []string
	inClient := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "Client scenarios") {
			inClient = true
			continue
		}
		if l != "" && !strings.HasPrefix(l, " ") {
			inClient = false
		}
		m := line.FindStringSubmatch(l)
		if !inClient || m == nil {
			continue
		}
		versions := strings.Split(m[2], ",")
		if slices.Contains(versions, "draft") || slices.Contains(versions, "extension") {
			continue
		}
		out = append(out, m[1])
	}
	if len(out) < 10 {
		t.Fatalf("found %d client scenarios in `conformance list`; its format changed:\n%s", len(out), b)
	}
	return out
}

// expectedFailures reads expected-failures.txt: scenario, then reason.
func expectedFailures(t *testing.T) map[string]string {
	b, err := os.ReadFile("expected-failures.txt")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, reason, _ := strings.Cut(l, " ")
		if strings.TrimSpace(reason) == "" {
			t.Errorf("expected-failures.txt:%d: %s has no reason", i+1, name)
		}
		out[name] = strings.TrimSpace(reason)
	}
	return out
}

// buildJP compiles jp for client.sh.
func buildJP(t *testing.T) string {
	out := filepath.Join(t.TempDir(), "jp")
	cmd := exec.Command("go", "build", "-o", out, "../../../cmd/jp")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build jp: %v\n%s", err, b)
	}
	return out
}

// checkDocsTable checks the conformance results table of docs/mcp.md:
// one row per scenario, "passes", or "fails: <why>" for exactly the
// scenarios expected-failures.txt lists.
func checkDocsTable(t *testing.T, scenarios []string, expected map[string]string) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "<!-- conformance results:")
	if !ok {
		t.Fatal("docs/mcp.md has no conformance results table (marker <!-- conformance results: ... -->)")
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\| (.+) \\|$")
	rows := map[string]string{}
	for i, l := range strings.Split(table, "\n") {
		if i > 0 && !strings.HasPrefix(l, "|") {
			break
		}
		if m := row.FindStringSubmatch(l); m != nil {
			rows[m[1]] = m[2]
		}
	}
	for _, sc := range scenarios {
		got, ok := rows[sc]
		_, fails := expected[sc]
		switch {
		case !ok:
			t.Errorf("docs/mcp.md: the conformance table has no row for %s", sc)
		case fails && !strings.HasPrefix(got, "fails: "):
			t.Errorf("docs/mcp.md: %s is an expected failure, but the table says %q", sc, got)
		case !fails && got != "passes":
			t.Errorf("docs/mcp.md: %s passes, but the table says %q", sc, got)
		}
		delete(rows, sc)
	}
	for sc := range rows {
		t.Errorf("docs/mcp.md: the conformance table lists %s, which is not a client scenario of the suite", sc)
	}
}
