package idemtest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/idemcheck/idemcheck"

// goCommand is the go command for tests that ask it what a user's build
// would do. Without it the test skips, except under CI=true.
func goCommand(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the go command is not on PATH; CI needs it for this test")
		}
		t.Skip("the go command is not on PATH")
	}
	cmd := exec.Command(gotool, args...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// withoutRace drops -race from GOFLAGS, for builds without cgo: the race
// detector needs it.
func withoutRace() string {
	var kept []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if f != "-race" {
			kept = append(kept, f)
		}
	}
	return "GOFLAGS=" + strings.Join(kept, " ")
}
