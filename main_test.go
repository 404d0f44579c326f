package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The tests of this package run the idemcheck binary, as users and CI
// systems do: exit statuses only survive a built binary (go run maps every
// failure to 1), and the integrations' command lines call it by name.
//
// binDir holds the binary TestMain built; tests put it first on PATH.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "idemcheck-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "idemcheck"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// environ is the process environment with the built binary first on PATH,
// then extra (NAME=value) on top.
func environ(extra ...string) []string {
	env := append(os.Environ(), "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return append(env, extra...)
}

// shellResult is what one shell command did.
type shellResult struct {
	code int
	// output is stdout and stderr through one pipe, in the order the
	// command wrote them, as a terminal shows them (two pipes would let
	// idemcheck -v's stderr and its report interleave at random).
	output string
}

// runShell runs script with bash in dir. The exit status is returned, not
// judged: the tests say which one they expect.
func runShell(t *testing.T, dir, script string, env []string, bashArgs ...string) shellResult {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the integrations run bash")
	}
	args := append(append([]string{"--noprofile", "--norc"}, bashArgs...), "-c", script)
	cmd := exec.Command("bash", args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	res := shellResult{output: out.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("bash: %v", err)
		}
		res.code = ee.ExitCode()
	}
	return res
}

// repoRoot is this repository's root: the tests run in it.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// copyDir copies the regular files under src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func mustContain(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}
