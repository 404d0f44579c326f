package cmd

import (
	"path/filepath"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"
)

// Shape 9 of issue 24: replay left notes PostgreSQL never raises. A unique
// index dropped with CASCADE kept the foreign keys that used it, so adding
// them again was "already exists"; a migration that altered golang-migrate's
// own schema_migrations met "does not exist".
func TestLintReplayGapsShape9(t *testing.T) {
	root := layoutFixture("golang-migrate-cascade")
	r := run(t, "lint", "-v", "--color", "never", root)
	assertCode(t, r, ExitOK)
	assertContains(t, "stdout", r.stdout,
		filepath.Join(root, "migrations/000003_invite_token.up.sql")+":1:1: info optional-unique",
		"in 4 files (10 statements), 2 files skipped, 2 notes")
	assertLacks(t, "stdout", r.stdout, "already exists", "does not exist", "SQLSTATE")
}

// Each layout knows its tool's own tables: a migration that alters one
// replays without a note, and a plain tree, whose tool is not known, still
// gets the note.
func TestLintKnowsEachToolsOwnTables(t *testing.T) {
	cases := []struct{ name, layout, file, sql string }{
		{"golang-migrate", "", "1_a.up.sql", "ALTER TABLE schema_migrations ADD COLUMN note text;"},
		{"sqlx reversible", "", "1_a.up.sql", "CREATE INDEX ON _sqlx_migrations (installed_on);"},
		{"goose", "", "1_a.sql", "-- +goose Up\nALTER TABLE goose_db_version ADD COLUMN note text;"},
		{"dbmate", "", "1_a.sql", "-- migrate:up\nALTER TABLE schema_migrations ADD COLUMN note text;\n-- migrate:down\n"},
		{"sql-migrate", "", "1_a.sql", "-- +migrate Up\nALTER TABLE gorp_migrations ADD COLUMN note text;"},
		{"tern", "tern", "001_a.sql", "ALTER TABLE schema_version ADD COLUMN note text;"},
		{"flyway", "", "V1__a.sql", "ALTER TABLE flyway_schema_history ADD COLUMN note text; DROP INDEX flyway_schema_history_s_idx;"},
		{"liquibase", "", "a.sql", "--liquibase formatted sql\n--changeset a:1\nALTER TABLE databasechangelog ADD COLUMN note text;\nALTER TABLE databasechangeloglock ADD COLUMN note text;"},
		{"diesel", "", "2024-01-01-000000_a/up.sql", "ALTER TABLE __diesel_schema_migrations ADD COLUMN note text;"},
		{"refinery", "", "1_a/up.sql", "ALTER TABLE refinery_schema_history ADD COLUMN note text;"},
		{"prisma", "", "20240101000000_a/migration.sql", "ALTER TABLE \"_prisma_migrations\" ADD COLUMN note text;"},
		{"rails structure.sql", "", "structure.sql", "CREATE TABLE users (id bigint PRIMARY KEY);\nALTER TABLE ONLY public.ar_internal_metadata ADD COLUMN note text;\nALTER TABLE schema_migrations ADD COLUMN note text;"},
		{"synapse store", "schema-deltas", "full_schemas/1/a.sql", "ALTER TABLE applied_schema_deltas ADD COLUMN note text;"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testtree.Write(t, map[string]string{c.file: c.sql})
			args := []string{"lint", "-v", "--color", "never", "--fail-on", "none"}
			if c.layout != "" {
				args = append(args, "--layout", c.layout)
			}
			r := run(t, append(args, dir)...)
			assertCode(t, r, ExitOK)
			assertLacks(t, "stdout", r.stdout, "does not exist", "SQLSTATE")
			assertLacks(t, "stderr", r.stder, "layout plain")
		})
	}
	dir := testtree.Write(t, map[string]string{"a.sql": "ALTER TABLE schema_migrations ADD COLUMN note text;"})
	r := run(t, "lint", "-v", "--color", "never", "--fail-on", "none", "--layout", "plain", dir)
	assertContains(t, "stdout", r.stdout, `relation "schema_migrations" does not exist (SQLSTATE 42P01)`)
}
