package cmd

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"
)

func TestLintClean(t *testing.T) {
	r := run(t, "lint", writeFile(t, "schema.sql", cleanSQL))
	assertCode(t, r, ExitOK)
	assertContains(t, "stdout", r.stdout, "0 errors, 0 warnings, 0 info in 1 file (2 statements)")
}

func TestLintFindingFails(t *testing.T) {
	path := writeFile(t, "schema.sql", holeSQL)
	r := run(t, "lint", path)
	assertCode(t, r, ExitFindings)
	assertContains(t, "stdout", r.stdout,
		path+":7:1: error nullable-key",
		"external_subscription_id may be NULL",
		"  fix: ",
		"1 error, 0 warnings, 0 info in 1 file (2 statements)")
}

func TestLintParseErrorBesideGoodFile(t *testing.T) {
	dir := testtree.Write(t, map[string]string{"1_events.sql": holeSQL, "2_broken.sql": brokenSQL})
	r := run(t, "lint", dir)
	assertCode(t, r, ExitUsage)
	assertContains(t, "stdout", r.stdout, "error nullable-key", "2_broken.sql:1:", ": error: ", "1 input error")
}

func TestLintMissingPath(t *testing.T) {
	r := run(t, "lint", "/nonexistent/idemcheck-test/migrations")
	assertCode(t, r, ExitUsage)
	assertContains(t, "stdout", r.stdout, "/nonexistent/idemcheck-test/migrations")
}

// Without a path, lint says what it expects instead of reading nothing.
func TestLintWithoutPath(t *testing.T) {
	r := run(t, "lint")
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, "lint needs at least one path: a migration directory, a .sql file, or - for stdin (for example: idemcheck lint db/migrations)")
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing", r.stdout)
	}
}

func TestLintStdin(t *testing.T) {
	r := invocation{stdin: holeSQL}.run(t, "lint", "-")
	assertCode(t, r, ExitFindings)
	assertContains(t, "stdout", r.stdout, "<stdin>:7:1: error nullable-key")
}

func TestLintFailOn(t *testing.T) {
	warning := writeFile(t, "tags.sql", warningSQL)
	info := writeFile(t, "users.sql", infoSQL)
	hole := writeFile(t, "events.sql", holeSQL)
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"warning fails by default", []string{"lint", warning}, ExitFindings},
		{"warning passes --fail-on error", []string{"lint", "--fail-on", "error", warning}, ExitOK},
		{"info passes by default", []string{"lint", info}, ExitOK},
		{"info fails --fail-on info", []string{"lint", "--fail-on", "info", info}, ExitFindings},
		{"error passes --fail-on none", []string{"lint", "--fail-on", "none", hole}, ExitOK},
		{"error fails --fail-on error", []string{"lint", "--fail-on", "error", hole}, ExitFindings},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertCode(t, run(t, c.args...), c.want)
		})
	}
}

func TestLintRuleSelection(t *testing.T) {
	hole := writeFile(t, "events.sql", holeSQL)

	r := run(t, "lint", "--rule", "optional-unique", hole)
	assertCode(t, r, ExitOK)
	assertLacks(t, "stdout", r.stdout, "nullable-key")

	r = run(t, "lint", "--disable", "nullable-key", hole)
	assertCode(t, r, ExitOK)
	assertLacks(t, "stdout", r.stdout, "nullable-key")

	r = run(t, "lint", "--rule", "nullable-key", hole)
	assertCode(t, r, ExitFindings)

	r = run(t, "lint", "--severity", "nullable-key=info", hole)
	assertCode(t, r, ExitOK)
	assertContains(t, "stdout", r.stdout, ": info nullable-key", "0 errors, 0 warnings, 1 info")

	r = run(t, "lint", "--severity", "nullable-key=info", "--fail-on", "info", hole)
	assertCode(t, r, ExitFindings)
}

func TestLintUsageErrors(t *testing.T) {
	path := writeFile(t, "schema.sql", cleanSQL)
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no path", []string{"lint"}, "at least one path"},
		{"unknown format", []string{"lint", "--format", "xml", path}, "want text or json or sarif or github or gitlab"},
		{"pg version too old", []string{"lint", "--pg-version", "12", path}, "13..18"},
		{"pg version too new", []string{"lint", "--pg-version", "19", path}, "13..18"},
		{"unknown rule", []string{"lint", "--rule", "nope", path}, "nullable-key"},
		{"unknown disabled rule", []string{"lint", "--disable", "nope", path}, `unknown rule "nope"`},
		{"unknown severity rule", []string{"lint", "--severity", "nope=info", path}, `unknown rule "nope"`},
		{"bad severity", []string{"lint", "--severity", "nullable-key=fatal", path}, "fatal"},
		{"severity without level", []string{"lint", "--severity", "nullable-key", path}, "ID=LEVEL"},
		{"bad fail-on", []string{"lint", "--fail-on", "warn", path}, "error, warning, info, none"},
		{"bad layout", []string{"lint", "--layout", "rails", path}, "golang-migrate"},
		{"bad color", []string{"lint", "--color", "rainbow", path}, "auto, always, never"},
		{"unknown flag", []string{"lint", "--frobnicate", path}, "frobnicate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, c.args...)
			assertCode(t, r, ExitUsage)
			assertContains(t, "stderr", r.stder, c.stderr)
			if r.stdout != "" {
				t.Errorf("a usage error printed a report:\n%s", r.stdout)
			}
		})
	}
}

func TestLintColor(t *testing.T) {
	path := writeFile(t, "events.sql", holeSQL)
	const escape = "\x1b["
	cases := []struct {
		name  string
		inv   invocation
		flags []string
		color bool
	}{
		{"terminal", invocation{terminal: true}, nil, true},
		{"pipe", invocation{}, nil, false},
		{"terminal with NO_COLOR", invocation{terminal: true, env: map[string]string{"NO_COLOR": "1"}}, nil, false},
		{"pipe with CLICOLOR_FORCE", invocation{env: map[string]string{"CLICOLOR_FORCE": "1"}}, nil, true},
		{"pipe with CLICOLOR_FORCE=0", invocation{env: map[string]string{"CLICOLOR_FORCE": "0"}}, nil, false},
		{"always on a pipe", invocation{}, []string{"--color", "always"}, true},
		{"always beats NO_COLOR", invocation{env: map[string]string{"NO_COLOR": "1"}}, []string{"--color", "always"}, true},
		{"never on a terminal", invocation{terminal: true}, []string{"--color", "never"}, false},
		{"json is never coloured", invocation{terminal: true}, []string{"--format", "json"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"lint"}, c.flags...), path)
			r := c.inv.run(t, args...)
			assertCode(t, r, ExitFindings)
			if got := strings.Contains(r.stdout, escape); got != c.color {
				t.Errorf("coloured = %v, want %v:\n%q", got, c.color, r.stdout)
			}
		})
	}
}

func TestLintJSON(t *testing.T) {
	path := writeFile(t, "events.sql", holeSQL)
	r := run(t, "lint", "--format", "json", path)
	assertCode(t, r, ExitFindings)
	var doc struct {
		Tool     string
		Inputs   []struct{ Layout string }
		Findings []struct {
			Rule, Severity, Object string
			Position               struct{ File string }
			Fixes                  []struct{ SQL string }
		}
		Summary struct{ Files, Statements, Errors int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, r.stdout)
	}
	if doc.Tool != "idemcheck" || len(doc.Inputs) != 1 || doc.Summary.Files != 1 || doc.Summary.Statements != 2 || doc.Summary.Errors != 1 {
		t.Errorf("unexpected document header or summary: %+v", doc)
	}
	if len(doc.Findings) != 1 {
		t.Fatalf("want one finding, got %+v", doc.Findings)
	}
	f := doc.Findings[0]
	if f.Rule != "nullable-key" || f.Severity != "error" || f.Object != "public.events.index_unique_transaction_id" || f.Position.File != path || len(f.Fixes) == 0 {
		t.Errorf("unexpected finding: %+v", f)
	}
}

func TestLintVerbose(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"0001_events.up.sql":   holeSQL,
		"0001_events.down.sql": "DROP TABLE events;\n",
		"0002_users.up.sql":    infoSQL,
		"0002_users.down.sql":  "DROP TABLE users;\n",
	})
	r := run(t, "lint", "-v", dir)
	assertCode(t, r, ExitFindings)
	assertContains(t, "stderr", r.stder, "layout golang-migrate", "2 files used", "2 files skipped", "4 statements", "0001_events.up.sql", "0002_users.up.sql")
	assertContains(t, "stdout", r.stdout, "info optional-unique", "0001_events.down.sql: a down migration", "0002_users.down.sql: a down migration",
		"in 2 files (4 statements), 2 files skipped")
	quiet := run(t, "lint", dir)
	if quiet.stder != "" {
		t.Errorf("without -v stderr should be empty, got:\n%s", quiet.stder)
	}
}

func TestLintCompletesFlagValues(t *testing.T) {
	r := run(t, "__complete", "lint", "--rule", "")
	assertCode(t, r, ExitOK)
	assertContains(t, "completion", r.stdout, "nullable-key\n", "optional-unique\n")
	for flag, word := range map[string]string{"--format": "json\n", "--fail-on": "none\n", "--color": "never\n"} {
		r := run(t, "__complete", "lint", flag, "")
		assertContains(t, "completion of "+flag, r.stdout, word)
	}
}

// TestLintQueries: --queries adds a sqlc query file, whose INSERT ... ON
// CONFLICT statements are checked against the schema's unique indexes;
// without the flag they are not read.
func TestLintQueries(t *testing.T) {
	const dir = "../testdata/rules/on-conflict-hole/sqlc/"
	r := run(t, "lint", "--format", "json", "--rule", "on-conflict-hole", "--queries", dir+"queries.sql", dir+"schema.sql")
	assertCode(t, r, ExitFindings)
	var doc struct {
		Findings []struct {
			Message string `json:"message"`
			Pos     struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"position"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	var got []string
	for _, f := range doc.Findings {
		got = append(got, fmt.Sprintf("%s:%d %s", f.Pos.File, f.Pos.Line, f.Message))
	}
	want := []string{
		dir + "queries.sql:2 .*lets external_subscription_id be NULL, and when it is the conflict never fires: a repeated request inserts a second row instead of DO NOTHING$",
		dir + "queries.sql:7 .*has no unique index over exactly \\(organization_id, transaction_id\\), so PostgreSQL raises 42P10",
	}
	if len(got) != len(want) {
		t.Fatalf("findings %q, want %d (ListUsageEvents is a SELECT)", got, len(want))
	}
	for i := range want {
		if !regexp.MustCompile(want[i]).MatchString(got[i]) {
			t.Errorf("finding %q, want %q", got[i], want[i])
		}
	}
	r = run(t, "lint", "--rule", "on-conflict-hole", dir+"schema.sql")
	assertCode(t, r, ExitOK)
}
