package testkit

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// GitHubReplay is an http.Handler replaying recorded GitHub REST API
// responses from Dir: a request for /repos/o/r/pulls/7 is answered with
// repos_o_r_pulls_7.json, or with Accept: application/vnd.github.diff
// repos_o_r_pulls_7.diff (or a 406 with repos_o_r_pulls_7.diff.406.json).
// A JSON body with "status" other than 2xx is sent with that status. The
// query (paging) is ignored. Each request's Authorization header is
// recorded.
type GitHubReplay struct {
	Dir string

	mu   sync.Mutex
	auth []string
	hits []string
}

// Auth returns the Authorization headers received, in order.
func (g *GitHubReplay) Auth() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.auth...)
}

// Hits returns the paths requested, in order.
func (g *GitHubReplay) Hits() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.hits...)
}

func (g *GitHubReplay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.auth = append(g.auth, r.Header.Get("Authorization"))
	g.hits = append(g.hits, r.URL.Path)
	g.mu.Unlock()
	name := strings.ReplaceAll(strings.Trim(r.URL.Path, "/"), "/", "_")
	if strings.Contains(name, "..") {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("Accept") == "application/vnd.github.diff" {
		if b, err := os.ReadFile(filepath.Join(g.Dir, name+".diff")); err == nil {
			w.Header().Set("Content-Type", "application/vnd.github.diff; charset=utf-8")
			_, _ = w.Write(b)
			return
		}
		if b, err := os.ReadFile(filepath.Join(g.Dir, name+".diff.406.json")); err == nil {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusNotAcceptable)
			_, _ = w.Write(b)
			return
		}
	}
	b, err := os.ReadFile(filepath.Join(g.Dir, name+".json"))
	if err != nil {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`))
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	var e struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(b, &e) == nil && e.Status != "" && !strings.HasPrefix(e.Status, "2") {
		code := http.StatusNotFound
		for _, c := range []int{401, 403, 404, 422} {
			if e.Status == http.StatusText(c) || e.Status == itoa(c) {
				code = c
			}
		}
		w.WriteHeader(code)
	}
	_, _ = w.Write(b)
}

func itoa(n int) string { return strconv.Itoa(n) }
