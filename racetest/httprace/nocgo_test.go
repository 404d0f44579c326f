package httprace

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/idemcheck/idemcheck"

// httpPath is the race engine a Go test library needs for HTTP races: the
// core and this probe.
// internal/humanize (counts in words, strconv alone) is on it too.
var httpPath = []string{module + "/racetest", module + "/racetest/httprace", module + "/internal/humanize"}

// TestHTTPPathBuildsWithoutCgo: a test library built on the HTTP probe must
// build where no C compiler is installed, so nothing the core and this
// probe import may need cgo. pg_query_go (reached through sqlparse, audit
// or inspect) does; pgx does not, but it belongs to the SQL side. The test
// asks the go command, as a user's build would.
func TestHTTPPathBuildsWithoutCgo(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the go command is not on PATH; this test needs it in CI")
		}
		t.Skip("the go command is not on PATH; skipping the import-graph check")
	}
	goCmd := func(args ...string) *exec.Cmd {
		cmd := exec.Command(gotool, args...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS="+withoutRace(os.Getenv("GOFLAGS")))
		return cmd
	}
	out, err := goCmd(append([]string{"list", "-deps"}, httpPath...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		inModule := strings.HasPrefix(dep, module+"/")
		if inModule && !slices.Contains(httpPath, dep) || strings.Contains(dep, "pg_query_go") || strings.Contains(dep, "jackc/pgx") {
			t.Errorf("the HTTP race path imports %s", dep)
		}
	}
	if out, err := goCmd(append([]string{"build"}, httpPath...)...).CombinedOutput(); err != nil {
		t.Errorf("CGO_ENABLED=0 go build %s: %v\n%s", strings.Join(httpPath, " "), err, out)
	}
}

// withoutRace drops -race from GOFLAGS: the race detector needs cgo.
func withoutRace(goflags string) string {
	var kept []string
	for _, f := range strings.Fields(goflags) {
		if f != "-race" {
			kept = append(kept, f)
		}
	}
	return strings.Join(kept, " ")
}
