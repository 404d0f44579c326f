package cmd

import (
	"path/filepath"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"
)

// A layout or path that yields no statements is an error with the reason:
// linting nothing would pass CI while checking nothing.
func TestLintYieldsNothing(t *testing.T) {
	tree := layoutFixture("golang-migrate")
	r := run(t, "lint", "--layout", "dbmate", tree)
	assertCode(t, r, ExitUsage)
	assertContains(t, "stdout", r.stdout,
		"error: "+tree+": --layout dbmate yields no statements from 3 files; without --layout the files are read as golang-migrate; there is nothing to check")

	comments := writeFile(t, "0001_todo.up.sql", "-- to be written\n")
	r = run(t, "lint", comments)
	assertCode(t, r, ExitUsage)
	assertContains(t, "stdout", r.stdout, "error: "+comments+": no statements in 1 file read as golang-migrate; there is nothing to check")

	// A tree whose files the configuration excludes was asked to yield
	// nothing: that is not an error.
	dir := testtree.Write(t, map[string]string{
		".idemcheck.yaml": "exclude: [\"db/*\"]\n",
		"db/1_a.up.sql":   "CREATE TABLE a (id int);\n",
		"db/1_a.down.sql": "DROP TABLE a;\n",
	})
	r = run(t, "lint", "--config", filepath.Join(dir, ".idemcheck.yaml"), filepath.Join(dir, "db"))
	assertCode(t, r, ExitOK)
}

// Down migrations named on the command line are never replayed: beside up
// files they are skipped with a note, alone they are an error.
func TestLintNamedDownMigrations(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"1_events.up.sql": holeSQL,
		// Replayed, this would close the hole and hide the finding.
		"1_events.down.sql": "ALTER TABLE events ALTER COLUMN external_subscription_id SET NOT NULL;\n",
	})
	up, down := filepath.Join(dir, "1_events.up.sql"), filepath.Join(dir, "1_events.down.sql")
	r := run(t, "lint", "-v", up, down)
	assertCode(t, r, ExitFindings)
	assertContains(t, "stdout", r.stdout, "error nullable-key",
		"note: skipped "+down+": a down migration; lint replays only up migrations", "in 1 file (2 statements), 1 file skipped")

	r = run(t, "lint", down)
	assertCode(t, r, ExitUsage)
	assertContains(t, "stdout", r.stdout, "error: "+down+" is a down migration; lint replays only up migrations")
}
