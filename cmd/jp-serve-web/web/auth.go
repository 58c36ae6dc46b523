package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"
)

// The token: jp serve web makes a new random one at every start (256
// bits from crypto/rand) and prints it in the address's fragment,
// http://127.0.0.1:PORT/#token=... A browser never sends a fragment to a
// server, nor in a Referer header. A request is answered only when it
// carries the token in the header Authorization: Bearer ...; every
// comparison is in constant time.
//
// The token never sits in a cookie: cookies are not told apart by port
// (RFC 6265, section 8.5), so any other server on 127.0.0.1 the browser
// visits (a link in an answer is enough) would receive it. A cookie, or a
// token in the query string, is not accepted.
//
// A browser's navigation cannot carry a header, so a page asked for
// without the token gets the boot page (assets/boot.html: no data at
// all, answered 401). Its script (static/boot.js) takes the token from
// the fragment into the tab's sessionStorage (which another port cannot
// read), drops the fragment from the address, asks for the same page
// again with the header and shows it. The page's own script sends the
// header on every API call and reads the event stream with fetch. The
// static assets (the page's code, style and icon) hold nothing of the
// user's and are served without the token.

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
// token in its fragment.
func (s *Server) URL(base string) string { return base + "#token=" + s.token }

// tokenEqual compares a presented token with the server's in constant
// time.
func (s *Server) tokenEqual(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// public reports whether a request may be answered without the token:
// the static assets, the page's code and style, hold nothing of the
// user's, and a page's <link> and <script> cannot carry a header.
func public(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && strings.HasPrefix(r.URL.Path, "/static/")
}

// authorize checks the request's token. It returns false after writing
// the refusal: 401 without a token (for a page, the boot page, which
// brings the token from the address's fragment), 403 with a wrong one.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	h := r.Header.Get("Authorization")
	if h != "" {
		if tok, ok := strings.CutPrefix(h, "Bearer "); ok && s.tokenEqual(strings.TrimSpace(tok)) {
			return true
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	if h != "" {
		http.Error(w, "jp serve web: wrong token: open the address the running jp serve web printed", http.StatusForbidden)
		return false
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="jp serve web"`)
	if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/") {
		s.bootPage(w)
		return false
	}
	http.Error(w, needsToken, http.StatusUnauthorized)
	return false
}

// contentSecurityPolicy lets the page load scripts, styles and images
// from this server alone and run no inline script or style: what a model,
// tool or file wrote cannot run even if it slipped past the escaping. The
// boot page carries it too: the pages are shown inside its document.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// needsToken is the refusal of a request without the token.
const needsToken = "jp serve web needs its token: open the address it printed (http://127.0.0.1:PORT/#token=...), or send Authorization: Bearer <token>"

// bootPage answers a page asked for without the token (a browser's
// navigation): 401, with the page that brings the token from the
// address's fragment and asks again with it. It holds nothing of the
// user's.
func (s *Server) bootPage(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write(bootHTML)
}
