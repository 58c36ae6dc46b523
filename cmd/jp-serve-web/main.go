// Command jp-serve-web is the web frontend of jp, a multi-scope command
// plugin (docs/plugins.md): jp serve web serves a page on 127.0.0.1 that browses
// every workspace's checkouts and conversations and runs delegated turns,
// streaming their answers. See docs/web.md.
package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/jpcli/jp/adapters/pluginsdk"
	"github.com/jpcli/jp/cmd/jp-serve-web/web"
	"github.com/jpcli/jp/domain/plugin"
)

//go:embed jp-serve-web.manifest.json
var manifestJSON []byte

func main() {
	m, err := plugin.ParseManifest(manifestJSON)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jp-serve-web:", err)
		os.Exit(1)
	}
	pluginsdk.Main(m, run)
}

// run serves until jp relays a shutdown (Ctrl-C) or goes away.
func run(ctx context.Context, c *pluginsdk.Client) error {
	opts, err := web.ParseOptions(c.Init().Options, c.Args())
	if err != nil {
		return pluginsdk.Exit(2, err.Error())
	}
	var ln net.Listener
	if opts.Socket != "" {
		ln, err = listenUnix(opts.Socket)
	} else {
		ln, err = listen(opts.Port)
	}
	if err != nil {
		return pluginsdk.Exit(1, err.Error())
	}
	logf := func(line string) { _ = c.Log(plugin.LogLevelWarn, line, nil) }
	srv := web.New(web.NewSDKHost(c), time.Now, logf)
	// The address carries this start's token: only who reads this line
	// (the user who started jp serve web) can use the server.
	line := "jp serve web: " + srv.URL(fmt.Sprintf("http://%s/", ln.Addr())) + "\n"
	if opts.Socket != "" {
		line = fmt.Sprintf("jp serve web: on the Unix socket %s (mode 0600); send Authorization: Bearer %s\n", opts.Socket, srv.Token())
	}
	// A block format: jp flushes a block at its end, so the line shows at
	// once even when jp's output is piped (plain text waits for more).
	if err := c.PrintTo("content", plugin.PrintFormatMarkdown, line); err != nil {
		_ = ln.Close()
		return err
	}
	// The log gets the address, never the token.
	_ = c.Log(plugin.LogLevelInfo, "web server listening", map[string]any{"addr": ln.Addr().String()})
	if err := srv.Serve(ctx, ln); err != nil {
		return pluginsdk.Exit(1, "the web server failed: "+err.Error())
	}
	return nil
}

// listen binds 127.0.0.1:port, saying what to do when the port is taken.
func listen(port int) (net.Listener, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("cannot serve on %s: the port is in use (another jp serve web?): stop that server, or set plugins.command.serve-web.options.port to a free port", addr)
	case err != nil:
		return nil, fmt.Errorf("cannot serve on %s: %v", addr, err)
	}
	return ln, nil
}

// listenUnix binds a Unix socket at path that only this user can connect
// to: it is created with mode 0600 (umask 0177 around the bind, so it is
// never open to others, not even for a moment). A stale socket left by
// a server that is gone is replaced; anything else at path is refused.
func listenUnix(path string) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("cannot serve on %s: it exists and is not a socket; remove it or set plugins.command.serve-web.options.socket to another path", path)
		}
		if c, err := net.Dial("unix", path); err == nil {
			_ = c.Close()
			return nil, fmt.Errorf("cannot serve on %s: another server answers there (another jp serve web?): stop it, or set plugins.command.serve-web.options.socket to another path", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("cannot serve on %s: remove the stale socket: %v", path, err)
		}
	}
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("cannot serve on %s: %v", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("cannot serve on %s: %v", path, err)
	}
	return ln, nil
}
