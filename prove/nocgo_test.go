package prove

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestProverNeedsNoParser: the prover and the witness builder import no
// parser (pg_query_go, through sqlparse's parser or inspect) and build
// without cgo, as docs/architecture.md says; audit imports only catalog.
func TestProverNeedsNoParser(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the go command is not on PATH; this test needs it in CI")
		}
		t.Skip("the go command is not on PATH")
	}
	const module = "github.com/idemcheck/idemcheck"
	pkgs := []string{module + "/prove", module + "/prove/witness"}
	var goflags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if f != "-race" {
			goflags = append(goflags, f)
		}
	}
	env := append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS="+strings.Join(goflags, " "))
	cmd := exec.Command(gotool, append([]string{"list", "-deps"}, pkgs...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "pg_query_go") || dep == module+"/inspect" || dep == module+"/sqlparse/parse" || dep == module+"/sqlparse/replay" {
			t.Errorf("the prover imports %s", dep)
		}
	}
	build := exec.Command(gotool, append([]string{"build"}, pkgs...)...)
	build.Env = env
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
}
