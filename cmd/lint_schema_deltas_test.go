package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// Shape 5 of issue 24: a schema folder of stores, each with full schema
// snapshots and delta folders, was read as one tree per version folder,
// each replayed from empty (input errors, exit 2). It is one tree, replayed
// in the order of Synapse's runner: the bookkeeping file, the newest
// snapshot of every store, then each delta version with the files of every
// store sorted by name.
func TestLintFullSchemaPlusDeltas(t *testing.T) {
	root := layoutFixture("schema-deltas")
	schema := filepath.Join(root, "storage", "schema")
	r := run(t, "lint", "-v", "--color", "never", root)
	assertCode(t, r, ExitOK)
	order := []string{
		"common/schema_version.sql",
		"common/full_schemas/10/full.sql.postgres",
		"main/full_schemas/10/full.sql.postgres",
		"state/full_schemas/10/full.sql.postgres",
		"main/delta/11/01payments_request_key.sql",
		"main/delta/11/02payments_request_key_idx.sql.postgres",
		"state/delta/12/00state_group_heads.sql",
		"common/delta/12/01jobs_ordering.sql",
		"main/delta/12/02refunds.sql",
	}
	var listing []string
	for _, f := range order {
		listing = append(listing, "  "+filepath.Join(schema, f))
	}
	assertContains(t, "stderr", r.stder,
		schema+": layout schema-deltas, 9 files used, 7 files skipped, 12 statements\n"+strings.Join(listing, "\n")+"\n")
	assertContains(t, "stdout", r.stdout,
		filepath.Join(schema, "main/delta/11/02payments_request_key_idx.sql.postgres")+":1:1: info optional-unique",
		"in 9 files (12 statements), 7 files skipped",
		"skipped "+filepath.Join(schema, "main/delta/11/03backfill_request_keys.py")+": not SQL",
		"skipped "+filepath.Join(schema, "main/delta/15/01not_yet.sql")+": delta 15 is above SCHEMA_VERSION 14",
		"skipped "+filepath.Join(schema, "main/full_schemas/10/full.sql.sqlite")+": another dialect")
	assertLacks(t, "stdout", r.stdout, "does not exist", "already exists", "input error", "syntax error")
}
