package builtintools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"

	"github.com/jpcli/jp/ports"
)

// Limits of web_fetch.
const (
	maxRedirects         = 5
	defaultFetchTimeout  = 30 * time.Second
	defaultFetchMaxBytes = 1 << 20
)

// errPrivateAddr is a dial to an address web_fetch does not reach.
var errPrivateAddr = errors.New("refused")

// privateAddr reports whether ip is loopback, link-local, private
// (RFC 1918, RFC 4193), shared (RFC 6598), unspecified or multicast:
// addresses on the user's machine or network, not on the web.
func privateAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(ip) || netip.MustParsePrefix("0.0.0.0/8").Contains(ip)
}

// fetchClient is web_fetch's HTTP client: no proxy (a proxy would make
// the dialled address the proxy's), every connection's address checked
// after DNS resolution in the dialer's Control hook (so a name that
// resolves to a private address, or a redirect to one, is refused on the
// address actually dialled), at most maxRedirects redirects, http and
// https only. allow (tests) admits a dialled host:port the check would
// refuse.
func fetchClient(allowPrivate bool, allow func(hostport string) bool) *http.Client {
	d := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			if allowPrivate || (allow != nil && allow(address)) {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: cannot read the address %s", errPrivateAddr, address)
			}
			if privateAddr(ap.Addr()) {
				return fmt.Errorf("%w: %s is a loopback, link-local or private address", errPrivateAddr, ap.Addr())
			}
			return nil
		},
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConns:          2,
		IdleConnTimeout:       5 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("a redirect to %s: only http and https are fetched", req.URL.Scheme)
			}
			return nil
		},
	}
}

func (s *Server) webFetch(ctx context.Context, args json.RawMessage) (ports.ToolResult, error) {
	var a struct {
		URL string `json:"url"`
	}
	if err := decode(args, &a); err != nil {
		return ports.ToolResult{}, err
	}
	u, err := fetchURL(a.URL)
	if err != nil {
		return ports.ToolResult{}, err
	}
	cfg := s.cfg[WebFetch]
	timeout := defaultFetchTimeout
	if cfg.TimeoutSecs > 0 {
		timeout = time.Duration(cfg.TimeoutSecs) * time.Second
	}
	limit := int64(defaultFetchMaxBytes)
	if cfg.MaxBytes > 0 {
		limit = int64(cfg.MaxBytes)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return ports.ToolResult{}, refuse("url %q: %v", a.URL, err)
	}
	req.Header.Set("User-Agent", "jp-web-fetch/1")
	req.Header.Set("Accept", "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.1")
	client := fetchClient(cfg.AllowPrivate, s.fetchAllow)
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		switch {
		case errors.Is(err, errPrivateAddr):
			return ports.ToolResult{}, refuse("web_fetch refused %s: %v (conversation.tools.web_fetch.allow_private = true allows it)", a.URL, unwrapURLError(err))
		case tctx.Err() != nil && ctx.Err() == nil:
			return ports.ToolResult{}, refuse("web_fetch %s: no answer within %s (the timeout)", a.URL, timeout)
		}
		return ports.ToolResult{}, refuse("web_fetch %s: %v", a.URL, unwrapURLError(err))
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if tctx.Err() != nil && ctx.Err() == nil {
			return ports.ToolResult{}, refuse("web_fetch %s: the body did not arrive within %s (the timeout)", final, timeout)
		}
		return ports.ToolResult{}, refuse("web_fetch %s: reading the body: %v", final, err)
	}
	cut := int64(len(body)) > limit
	if cut {
		body = body[:limit]
	}
	ctype, text, err := fetchedText(final, resp.Header.Get("Content-Type"), body)
	if err != nil {
		return ports.ToolResult{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\nStatus: %s\nContent-Type: %s\n\n", final, resp.Status, ctype)
	b.WriteString(strings.ToValidUTF8(text, "\uFFFD"))
	if cut {
		fmt.Fprintf(&b, "\n[… cut at %d bytes: conversation.tools.web_fetch.max_bytes]\n", limit)
	}
	r := ports.ToolResult{Content: b.String()}
	if resp.StatusCode >= 400 {
		r.IsError = true
	}
	return r, nil
}

// fetchURL parses web_fetch's url: absolute http or https, without a
// user name or password.
func fetchURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, refuse("url must be an absolute http or https URL, got %q", raw)
	}
	if u.User != nil {
		return nil, refuse("url must not carry a user name or password")
	}
	return u, nil
}

// fetchedText is a fetched body as text, by its content type (sniffed
// when the header gives none): HTML converted to Markdown, text and
// JSON/XML/JavaScript as they are; anything else is refused.
func fetchedText(final, header string, body []byte) (ctype, text string, err error) {
	ctype, _, _ = mime.ParseMediaType(header)
	if ctype == "" {
		ctype = http.DetectContentType(body)
		ctype, _, _ = mime.ParseMediaType(ctype)
	}
	switch {
	case ctype == "text/html" || ctype == "application/xhtml+xml":
		md, err := htmltomarkdown.ConvertString(string(body), converter.WithDomain(final))
		if err != nil {
			return "", "", refuse("web_fetch %s: converting the HTML: %v", final, err)
		}
		text = md
	case strings.HasPrefix(ctype, "text/") || ctype == "application/json" || strings.HasSuffix(ctype, "+json") ||
		ctype == "application/xml" || strings.HasSuffix(ctype, "+xml") || ctype == "application/javascript":
		text = string(body)
	default:
		return "", "", refuse("web_fetch %s: the content is %s, not text; web_fetch returns text only", final, ctype)
	}
	return ctype, text, nil
}

// unwrapURLError drops the "Get \"URL\": " prefix of a client error.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
