package idemtest_test

import (
	"slices"
	"strings"
	"testing"
)

// TestBuildsWithoutCgo: test images often have no C compiler, so HTTP and
// Handler must build with CGO_ENABLED=0, and nothing they import may need
// cgo or a database driver: pg_query (reached through sqlparse, its parse
// and replay packages, inspect or claimaudit) needs cgo, and pgx belongs to
// the SQL side. idemsql builds without cgo too, leaving out only the audit's
// words (claimaudit, inspect, sqlparse); the SQL probe reads claim
// statements with sqlparse/scan, which is pure Go. The go command is asked,
// as a user's build would.
func TestBuildsWithoutCgo(t *testing.T) {
	noCgo := []string{"CGO_ENABLED=0", withoutRace()}
	cases := []struct {
		pkg       string
		forbidden []string
	}{
		{module + "/idemtest", []string{"pg_query_go", "jackc/pgx", "/sqlparse", "/inspect", "/audit", "/catalog", "/claimaudit", "/sqlrace"}},
		{module + "/idemtest/idemsql", []string{"pg_query_go", "/sqlparse$", "/sqlparse/parse", "/sqlparse/replay", "/inspect", "/claimaudit"}},
	}
	for _, c := range cases {
		out, err := goCommand(t, noCgo, "list", "-deps", c.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("CGO_ENABLED=0 go list -deps %s: %v\n%s", c.pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, module+"/racetest") {
			t.Fatalf("go list -deps %s does not list racetest: %q", c.pkg, deps)
		}
		for _, dep := range deps {
			for _, f := range c.forbidden {
				// A trailing $ matches the end of the path only.
				if exact, ok := strings.CutSuffix(f, "$"); ok && strings.HasSuffix(dep, exact) || !ok && strings.Contains(dep, f) {
					t.Errorf("%s imports %s without cgo", c.pkg, dep)
				}
			}
		}
		if out, err := goCommand(t, noCgo, "vet", c.pkg).CombinedOutput(); err != nil {
			t.Errorf("CGO_ENABLED=0 go vet %s (which builds it, tests included): %v\n%s", c.pkg, err, out)
		}
	}
	// With cgo, idemsql quotes the audit: the same packages are in.
	out, err := goCommand(t, []string{"CGO_ENABLED=1"}, "list", "-deps", module+"/idemtest/idemsql").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps idemsql: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), module+"/internal/claimaudit") {
		t.Errorf("with cgo, idemsql does not import claimaudit: the audit would not be quoted")
	}
}
