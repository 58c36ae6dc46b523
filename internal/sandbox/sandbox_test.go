//go:build linux

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	Init()
	goleak.VerifyTestMain(m)
}

// need skips t where the kernel cannot sandbox: a failure, except under
// CI=true, where the reason is printed and the test skipped (the kernel
// is not the project's to choose).
func need(t *testing.T) {
	t.Helper()
	if err := Status(); err != nil {
		if runtime.GOOS != "linux" || os.Getenv("CI") == "true" {
			t.Skipf("no sandbox on this machine: %v", err)
		}
		t.Fatalf("no sandbox on this machine (set CI=true to skip): %v", err)
	}
	t.Logf("sandbox: %s", Describe())
}

type fixture struct {
	home, checkout, tmp, outside string
	policy                       Policy
}

func newFixture(t *testing.T, lvl Level) fixture {
	t.Helper()
	base := t.TempDir()
	f := fixture{home: filepath.Join(base, "home"), checkout: filepath.Join(base, "src"), tmp: filepath.Join(base, "tmp"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{filepath.Join(f.home, ".ssh"), f.checkout, f.tmp, f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(f.home, ".ssh", "id_rsa"), []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.home, "notes.txt"), []byte("plain notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.policy = Policy{Level: lvl, Checkout: f.checkout, TempDir: f.tmp, DenyRead: DefaultDenyRead([]string{"HOME=" + f.home})}
	return f
}

func (f fixture) run(t *testing.T, script string) (string, error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argv, err := Wrap(self, f.policy, []string{"/bin/sh", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = f.checkout
	cmd.Env = Env(append(os.Environ(), "HOME="+f.home), f.tmp)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestSandboxDeniesWriteOutsideCheckout(t *testing.T) {
	need(t)
	f := newFixture(t, WorkspaceWrite)
	target := filepath.Join(f.outside, "pwned")
	out, err := f.run(t, "echo x > "+target)
	if err == nil {
		t.Fatalf("write outside the checkout succeeded: %s", out)
	}
	if _, serr := os.Stat(target); serr == nil {
		t.Fatal("the file outside the checkout was created")
	}
	if !strings.Contains(f.policy.Note(out), "Permission denied") {
		t.Errorf("note does not name the denial: %q (output %q)", f.policy.Note(out), out)
	}
}

func TestSandboxDeniesSecretRead(t *testing.T) {
	need(t)
	f := newFixture(t, WorkspaceWrite)
	out, err := f.run(t, "cat "+filepath.Join(f.home, ".ssh", "id_rsa"))
	if err == nil || strings.Contains(out, "PRIVATE KEY") {
		t.Fatalf("read ~/.ssh/id_rsa: err=%v out=%q", err, out)
	}
	// Other files in home stay readable.
	out, err = f.run(t, "cat "+filepath.Join(f.home, "notes.txt")+" && ls "+f.home)
	if err != nil || !strings.Contains(out, "plain notes") {
		t.Fatalf("read ~/notes.txt: err=%v out=%q", err, out)
	}
}

func TestSandboxDeniesNetwork(t *testing.T) {
	need(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HELLO\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	f := newFixture(t, WorkspaceWrite)
	// The test binary itself is the client: a connect through the helper.
	self, _ := os.Executable()
	script := "exec " + self + " -test.run=TestConnectProbe -test.v"
	t.Setenv("JP_SANDBOX_PROBE_PORT", strconv.Itoa(port))
	out, err := f.run(t, script)
	if err == nil || strings.Contains(out, "HELLO") {
		t.Fatalf("TCP connect succeeded: %s", out)
	}
	if !strings.Contains(strings.ToLower(out), "permission denied") {
		t.Errorf("connect failed without a denial: %s", out)
	}
	// With the network allowed the same connect works.
	f.policy.Network = true
	out, err = f.run(t, script)
	if err != nil || !strings.Contains(out, "HELLO") {
		t.Fatalf("TCP connect with the network allowed: %v %s", err, out)
	}
}

// TestConnectProbe is the client TestSandboxDeniesNetwork runs inside the
// sandbox; on its own it does nothing.
func TestConnectProbe(t *testing.T) {
	port := os.Getenv("JP_SANDBOX_PROBE_PORT")
	if port == "" {
		t.Skip("run by TestSandboxDeniesNetwork")
	}
	c, err := net.Dial("tcp4", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 6)
	n, _ := c.Read(buf)
	t.Logf("%s", buf[:n])
}

func TestSandboxNoNewPrivileges(t *testing.T) {
	need(t)
	f := newFixture(t, WorkspaceWrite)
	out, err := f.run(t, "grep NoNewPrivs /proc/self/status")
	if err != nil || !strings.Contains(out, "NoNewPrivs:\t1") {
		t.Fatalf("no_new_privs not set: %v %q", err, out)
	}
}

func TestSandboxWorkInsideCheckout(t *testing.T) {
	need(t)
	f := newFixture(t, WorkspaceWrite)
	mk := "all:\n\tmkdir -p build && printf 'int main(void){return 0;}\\n' > build/m.c && echo built > build/out.txt\n"
	if err := os.WriteFile(filepath.Join(f.checkout, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `set -e
make -s
cat build/out.txt
t=$(mktemp); echo temp > "$t"; cat "$t"
rm -rf build
echo ok > /dev/null
echo done`
	if _, err := exec.LookPath("make"); err != nil {
		script = strings.Replace(script, "make -s", "mkdir -p build && echo built > build/out.txt", 1)
	}
	out, err := f.run(t, script)
	if err != nil || !strings.Contains(out, "built") || !strings.Contains(out, "temp") || !strings.Contains(out, "done") {
		t.Fatalf("work inside the checkout failed: %v\n%s", err, out)
	}
}

func TestSandboxReadOnlyLevel(t *testing.T) {
	need(t)
	f := newFixture(t, ReadOnly)
	if err := os.WriteFile(filepath.Join(f.checkout, "a.txt"), []byte("A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := f.run(t, "cat a.txt && echo B > b.txt")
	if err == nil || !strings.Contains(out, "A") {
		t.Fatalf("read-only: %v %q", err, out)
	}
	if _, err := os.Stat(filepath.Join(f.checkout, "b.txt")); err == nil {
		t.Fatal("read-only level wrote into the checkout")
	}
}

func TestEnvDropsSecrets(t *testing.T) {
	env := Env([]string{"PATH=/bin", "OPENAI_API_KEY=sk-1", "GITHUB_TOKEN=x", "TMPDIR=/tmp", "LANG=C"}, "/t")
	want := []string{"PATH=/bin", "LANG=C", "TMPDIR=/t", "TMP=/t", "TEMP=/t"}
	if !slices.Equal(env, want) {
		t.Fatalf("Env = %v, want %v", env, want)
	}
}

func TestReadableSkipsDenied(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"a/secret", "a/open", "b"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	read, lists := readable([]string{filepath.Join(base, "a", "secret")})
	if slices.Contains(read, filepath.Join(base, "a", "secret")) || !slices.Contains(read, filepath.Join(base, "a", "open")) || !slices.Contains(read, filepath.Join(base, "b")) {
		t.Fatalf("read = %v", read)
	}
	if !slices.Contains(lists, filepath.Join(base, "a")) || !slices.Contains(lists, "/") {
		t.Fatalf("lists = %v", lists)
	}
}
