package safegit

import (
	"slices"
	"strings"
	"testing"
)

func TestDrivers(t *testing.T) {
	t.Parallel()
	out := []byte("filter.lfs.clean\x00filter.lfs.smudge\x00filter.my.dotted.process\x00warning\x00filter.\x00")
	if got, want := Drivers(out), []string{"lfs", "my.dotted"}; !slices.Equal(got, want) {
		t.Fatalf("Drivers = %q, want %q", got, want)
	}
}

func TestArgvTurnsOffWhatRunsPrograms(t *testing.T) {
	t.Parallel()
	argv, err := Argv([]string{"lfs"}, "status", "--short")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(argv, " ")
	for _, want := range []string{"git --no-pager ", "-c core.fsmonitor=false", "-c core.hooksPath=/dev/null",
		"-c credential.helper=", "-c protocol.ext.allow=never", "-c filter.lfs.clean=", "-c filter.lfs.process=",
		"-c filter.lfs.required=false"} {
		if !strings.Contains(line, want) {
			t.Errorf("argv lacks %q: %s", want, line)
		}
	}
	if !strings.HasSuffix(line, " status --short") {
		t.Errorf("argv does not end with the subcommand: %s", line)
	}
	if _, err := Argv([]string{"a=b"}, "status"); err == nil || !strings.Contains(err.Error(), `"a=b"`) {
		t.Errorf("a driver name -c cannot carry: err = %v", err)
	}
	env := Env([]string{"GIT_PAGER=less", "HOME=/h"})
	if !slices.Contains(env, "GIT_PAGER=cat") || slices.Index(env, "GIT_PAGER=cat") < slices.Index(env, "GIT_PAGER=less") {
		t.Errorf("Env does not override the pager last: %q", env)
	}
}
