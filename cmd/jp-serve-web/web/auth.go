package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
)

// The token: jp serve web makes a new random one at every start (256
// bits from crypto/rand) and prints it in the address. A request is
// answered only when it carries it, in one of three ways:
//
//   - the query parameter token=..., once: the answer sets the cookie and,
//     for a page, redirects to the same address without the token (so it
//     stays out of the history and of Referer headers);
//   - the cookie jp_serve_web_<port>, HttpOnly and SameSite=Strict (one
//     name per port: cookies do not tell ports apart);
//   - the header Authorization: Bearer ..., for scripts.
//
// Every comparison is in constant time.

// tokenBytes is the token's size: 32 random bytes, 64 hex digits.
const tokenBytes = 32

// newSecret returns n random bytes in hex. crypto/rand does not fail on
// the systems jp runs on; if it did, serving without a secret would be
// worse than stopping.
func newSecret(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("jp serve web: no randomness for its token: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// Token is the secret a request must carry. Print it only to the user
// who started the server.
func (s *Server) Token() string { return s.token }

// URL is the address to open: base (http://127.0.0.1:PORT/) with the
// token.
func (s *Server) URL(base string) string { return base + "?token=" + s.token }

// tokenEqual compares a presented token with the server's in constant
// time.
func (s *Server) tokenEqual(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// cookieName is the token cookie of the server answering on host.
func cookieName(host string) string {
	port := "0"
	if i := strings.LastIndexByte(host, ':'); i >= 0 && i+1 < len(host) {
		port = host[i+1:]
	}
	var b strings.Builder
	b.WriteString("jp_serve_web_")
	for _, c := range port {
		if c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// authorize checks the request's token. It returns false after writing
// the refusal (401 without a token, 403 with a wrong one), or after the
// redirect that drops a valid token from a page's address.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	presented := false
	if h := r.Header.Get("Authorization"); h != "" {
		presented = true
		if tok, ok := strings.CutPrefix(h, "Bearer "); ok && s.tokenEqual(strings.TrimSpace(tok)) {
			return true
		}
	}
	if c, err := r.Cookie(cookieName(r.Host)); err == nil && c.Value != "" {
		presented = true
		if s.tokenEqual(c.Value) {
			return true
		}
	}
	if q := r.URL.Query(); q.Has("token") {
		presented = true
		if s.tokenEqual(q.Get("token")) {
			http.SetCookie(w, &http.Cookie{
				Name: cookieName(r.Host), Value: s.token, Path: "/",
				HttpOnly: true, SameSite: http.SameSiteStrictMode,
			})
			if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") {
				q.Del("token")
				// One leading slash: "//host" or "/\host" would leave the site.
				u := url.URL{Path: "/" + strings.TrimLeft(r.URL.Path, "/\\"), RawQuery: q.Encode()}
				http.Redirect(w, r, u.String(), http.StatusSeeOther)
				return false
			}
			return true
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	if !presented {
		w.Header().Set("WWW-Authenticate", `Bearer realm="jp serve web"`)
		http.Error(w, "jp serve web needs its token: open the address it printed (http://127.0.0.1:PORT/?token=...), or send Authorization: Bearer <token>", http.StatusUnauthorized)
		return false
	}
	http.Error(w, "jp serve web: wrong token: open the address the running jp serve web printed", http.StatusForbidden)
	return false
}
