package pluginproc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// The test binary doubles as the plugin: with JP_PLUGINPROC_HELPER set it
// runs one of the behaviours below instead of the tests.
const helperEnv = "JP_PLUGINPROC_HELPER"

func TestMain(m *testing.M) {
	if h := os.Getenv(helperEnv); h != "" {
		os.Exit(helper(h))
	}
	goleak.VerifyTestMain(m)
}

func helper(name string) int {
	in := bufio.NewReader(os.Stdin)
	switch name {
	case "echo": // echo every line; say hello on stderr
		fmt.Fprintln(os.Stderr, "hello from stderr")
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return 0
			}
			fmt.Print(line)
		}
	case "pgid": // report the process group and a grandchild, then wait
		cmd := exec.Command("sleep", "300")
		if err := cmd.Start(); err != nil {
			return 1
		}
		fmt.Printf("%d %d\n", syscall.Getpgrp(), cmd.Process.Pid)
		_, _ = io.Copy(io.Discard, in)
		return 0
	case "long": // one line longer than the test's limit
		fmt.Println(strings.Repeat("x", 100))
		fmt.Println("short")
		_, _ = io.Copy(io.Discard, in)
		return 0
	case "noread": // never read stdin
		fmt.Println("up")
		select {}
	case "drainonusr1": // report the pid; read stdin only once sent SIGUSR1
		usr1 := make(chan os.Signal, 1)
		signal.Notify(usr1, syscall.SIGUSR1)
		fmt.Println(os.Getpid())
		<-usr1
		_, _ = io.Copy(io.Discard, in)
		return 0
	case "halfline": // half a line, then the rest once told
		fmt.Print(`{"type":`)
		_, _ = in.ReadString('\n')
		fmt.Println(`"x"}`)
		_, _ = io.Copy(io.Discard, in)
		return 0
	case "exit3":
		return 3
	case "nonewline":
		fmt.Print(`{"type":"exit","code":0}`)
		return 0
	}
	return 99
}

// spawn starts the helper behaviour name.
func spawn(t *testing.T, name string, stderr func(string)) *Transport {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Spawner{}.Spawn(t.Context(), specFor(exe, name, stderr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close() })
	return tr.(*Transport)
}
