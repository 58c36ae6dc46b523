package ports

import (
	"context"
	"errors"
	"fmt"

	"github.com/jpcli/jp/domain/plugin"
)

// ErrLineTooLong is returned by PluginTransport.Recv for a line longer
// than plugin.MaxLine; the plugin must be ended.
var ErrLineTooLong = errors.New("protocol line too long")

// PluginCatalog finds command plugins and keeps the approvals of plugin
// binaries (docs/plugins.md, "Admission: run, checksum, approval"). It never runs a binary.
type PluginCatalog interface {
	// Discover lists the executables named jp-* in the install directory
	// (<data>/plugins/command) and then in each directory of searchPath,
	// in that order, with the manifest file beside each when there is one
	// (plugin.Binary.ManifestFrom "file", or ManifestError). Files ending
	// in plugin.ManifestSuffix are not binaries.
	Discover(ctx context.Context, searchPath []string) ([]plugin.Binary, error)
	// Digest returns the lowercase hex SHA-256 of the file at path.
	Digest(ctx context.Context, path string) (string, error)
	// Approval returns the approval recorded for a digest; a
	// *NotFoundError when there is none.
	Approval(ctx context.Context, digest string) (plugin.Approval, error)
	// SaveApproval records an approval, replacing one for the same digest.
	SaveApproval(ctx context.Context, a plugin.Approval) error
	// Approvals returns every approval recorded for the plugin name, each
	// with its RealPath set (resolved from Path for older records).
	Approvals(ctx context.Context, name string) ([]plugin.Approval, error)
	// Shipped reports whether jp installed the binary at path itself: the
	// binary sits in the directory of jp's own executable, and the
	// checksum list written there at install (plugin.ShippedList) gives
	// its file name this digest.
	Shipped(ctx context.Context, path, digest string) (bool, error)
}

// PluginSpec says how to start a command plugin.
type PluginSpec struct {
	// Name attributes the plugin's stderr lines.
	Name string
	// Path is the executable; Args are its arguments (without argv[0]).
	Path string
	Args []string
	// Dir is the working directory; Env the whole environment.
	Dir string
	Env []string
	// Stderr receives each line the plugin writes on stderr, in order,
	// from one goroutine; nil discards them.
	Stderr func(line string)
}

// PluginSpawner starts command plugins.
type PluginSpawner interface {
	// Spawn starts the plugin in its own process group (so that the
	// terminal's SIGINT reaches jp, not the plugin), with JSON lines on its
	// stdin and stdout.
	Spawn(ctx context.Context, spec PluginSpec) (PluginTransport, error)
}

// PluginExit is how a plugin process ended.
type PluginExit struct {
	// Code is the exit status; -1 when a signal ended the process.
	Code int
	// Signal names the signal that ended it ("killed"), if one did.
	Signal string
}

// String says how the process ended: "exit status 3" or "signal: killed".
func (e PluginExit) String() string {
	if e.Signal != "" {
		return "signal: " + e.Signal
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// PluginTransport is one running plugin process. Send may be called
// concurrently: writes are serialised by one writer lock, held only while
// one line is written, so a slow reader on one side never holds it across
// anything else. Recv is called by one goroutine at a time. Kill and
// Close unblock Send and Recv.
type PluginTransport interface {
	// Send writes line and a newline to the plugin's stdin. It blocks while
	// the pipe is full; ctx ends the wait.
	Send(ctx context.Context, line []byte) error
	// Recv returns the next line the plugin wrote on stdout, without its
	// newline. It returns io.EOF once stdout is closed, ErrLineTooLong for
	// a line over plugin.MaxLine, and ctx.Err() when ctx ends first.
	Recv(ctx context.Context) ([]byte, error)
	// CloseStdin closes the plugin's stdin: it reads EOF.
	CloseStdin() error
	// Kill kills the plugin's whole process group. It is idempotent.
	Kill() error
	// Exited is closed once the process has exited.
	Exited() <-chan struct{}
	// Wait waits for the process to exit and says how it ended.
	Wait(ctx context.Context) (PluginExit, error)
	// Close kills the process group if it still runs, and releases the
	// pipes and goroutines. It is idempotent.
	Close() error
}
