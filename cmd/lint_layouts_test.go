package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/sqlparse/layout"
)

// layoutFixture is a tree under testdata/layouts.
func layoutFixture(rel string) string { return filepath.Join("..", "testdata", "layouts", rel) }

// Trees whose order or file choice the layouts used to get wrong: each is
// replayed whole, in its tool's order, so the hole its last migrations open
// is reported and no statement meets a table that does not exist yet.
func TestLintLayoutOrder(t *testing.T) {
	cases := []struct {
		name, path string
		finding    string // position and rule of the finding that only the last migrations make
		summary    string
	}{
		{"nested version folders", "nested/migrations",
			"nested/migrations/10/2_cart_checkout_key.up.sql:2:1: info optional-unique",
			"in 5 files (5 statements), 3 files skipped"},
		{"temporal manifests", "temporal",
			"temporal/versioned/v1.10/add_signal_key.sql:1:1: warning nullable-key",
			"in 5 files (5 statements), 1 file skipped"},
		{"prisma folders sharing a timestamp", "prisma-shared-timestamp",
			"20240517083000_b_hold_keys/migration.sql:3:1: info optional-unique",
			"in 3 files (3 statements)"},
		{"several up files per version", "shared-version",
			"shared-version/migrations/0001_create_b_invites.up.sql:3:1: info optional-unique",
			"in 4 files (5 statements), 2 files skipped"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, "lint", "-v", "--fail-on", "none", "--color", "never", layoutFixture(c.path))
			assertCode(t, r, ExitOK)
			assertContains(t, "stdout", r.stdout, c.finding, c.summary)
			assertLacks(t, "stdout", r.stdout, "does not exist", "duplicate migration version", "input error")
		})
	}
}

// Every file a layout leaves out is named in a note, and counted in the
// summary and in the JSON report.
func TestLintListsSkippedFiles(t *testing.T) {
	root := layoutFixture("temporal/versioned")
	r := run(t, "lint", "-v", "--fail-on", "none", root)
	assertContains(t, "stdout", r.stdout,
		"note: skipped "+filepath.Join(root, "v1.10/draft_combined.sql")+": not named in v1.10/manifest.json, so temporal-sql-tool does not run it",
		"1 file skipped")
	assertContains(t, "stderr", r.stder, "layout temporal, 5 files used, 1 file skipped")

	r = run(t, "lint", "--format", "json", "--fail-on", "none", layoutFixture("multi-dialect"))
	for _, want := range []string{`"skipped_files": 6`, `"skipped": 6`, `1_sessions.mysql.up.sql: a mysql migration`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("JSON lacks %s:\n%s", want, r.stdout)
		}
	}
}

// TestLintHelpNamesEveryLayout: lint's help lists the tools whose trees it
// reads; a layout added to the registry must be named there too, and
// --layout must refuse a name the registry does not hold.
func TestLintHelpNamesEveryLayout(t *testing.T) {
	help := newLintCmd(&Streams{}).Long
	for _, d := range layout.Defs() {
		if d.Tool != "" && !strings.Contains(strings.Join(strings.Fields(help), " "), d.Tool) {
			t.Errorf("lint's help does not name %s (layout %s)", d.Tool, d.Name)
		}
	}
	r := run(t, "lint", "--layout", "nosuch", layoutFixture("goose"))
	for _, d := range layout.Defs() {
		if !strings.Contains(r.stder, string(d.Name)) {
			t.Errorf("--layout nosuch does not list %s: %s", d.Name, r.stder)
		}
	}
}
