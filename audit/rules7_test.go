package audit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// ofRule keeps the findings of one rule, for tests about that rule in a
// catalog where other rules rightly report too.
func ofRule(fs []audit.Finding, id string) []audit.Finding {
	var out []audit.Finding
	for _, f := range fs {
		if f.Rule == id {
			out = append(out, f)
		}
	}
	return out
}

// lintMigrations replays files in order, each its own migration, and runs
// every rule, as lint does on a tree.
func lintMigrations(t *testing.T, files ...string) []audit.Finding {
	t.Helper()
	cat := catalog.New()
	r := sqlparse.NewReplayer(cat)
	for i, src := range files {
		path := fmt.Sprintf("%06d.up.sql", i+1)
		res := sqlparse.Split(sqlparse.Input{File: sqlparse.File{Path: path, Layout: sqlparse.LayoutPlain}, Text: src})
		for _, st := range res.Statements {
			for _, d := range r.Apply(st) {
				if d.Level == sqlparse.Error {
					t.Fatalf("%s", d)
				}
			}
		}
	}
	return audit.Run(cat, audit.Rules, audit.Options{PGVersion: 16})
}

func positions(fs []audit.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Pos.String())
	}
	return out
}

// A replacement in the next migration leaves a window of duplicates: the
// drop is reported. In the same migration it is not.
func TestUniqueDroppedNeedsTheSameMigration(t *testing.T) {
	create := "CREATE TABLE t (a bigint NOT NULL, b text NOT NULL);\nCREATE UNIQUE INDEX t_ab ON t (a, b);\n"
	later := ofRule(lintMigrations(t, create, "DROP INDEX t_ab;\n", "CREATE UNIQUE INDEX t_ab2 ON t (a, b);\n"), "unique-dropped")
	if got := positions(later); len(got) != 1 || got[0] != "000002.up.sql:1:1" {
		t.Errorf("replacement one migration later: findings at %v, want the DROP at 000002.up.sql:1:1", got)
	}
	same := ofRule(lintMigrations(t, create, "CREATE UNIQUE INDEX t_ab2 ON t (a, b);\nDROP INDEX t_ab;\n"), "unique-dropped")
	if len(same) != 0 {
		t.Errorf("replacement in the same migration reported: %s", same[0].Message)
	}
}

// The DROP NOT NULL comes in a later migration than the index, and in a file
// whose lines come before the index's line: order is by migration first.
func TestNotNullDroppedOrdersByMigration(t *testing.T) {
	fs := ofRule(lintMigrations(t,
		"-- padding\n-- padding\n-- padding\nCREATE TABLE t (a bigint NOT NULL, b text NOT NULL);\nCREATE UNIQUE INDEX t_ab ON t (a, b);\n",
		"ALTER TABLE t ALTER COLUMN b DROP NOT NULL;\n"), "not-null-dropped")
	if got := positions(fs); len(got) != 1 || got[0] != "000002.up.sql:1:1" {
		t.Fatalf("findings at %v, want the DROP NOT NULL at 000002.up.sql:1:1", got)
	}
	if r := fs[0].Related; len(r) != 1 || r[0].Pos.String() != "000001.up.sql:5:1" {
		t.Errorf("related = %+v, want the index at 000001.up.sql:5:1", r)
	}
	// The other way round: nullable first, index later, nothing was opened.
	fs = ofRule(lintMigrations(t,
		"CREATE TABLE t (a bigint NOT NULL, b text NOT NULL);\nALTER TABLE t ALTER COLUMN b DROP NOT NULL;\n",
		"CREATE UNIQUE INDEX t_ab ON t (a, b);\n"), "not-null-dropped")
	if len(fs) != 0 {
		t.Errorf("index created over an already nullable column reported: %s", fs[0].Message)
	}
}

// PostgreSQL refuses a deferrable arbiter (0A000); the rule says so rather
// than talking about NULLs.
func TestOnConflictDeferrableArbiter(t *testing.T) {
	fs := ofRule(lintMigrations(t,
		"CREATE TABLE t (a bigint NOT NULL, b text NOT NULL, CONSTRAINT t_ab UNIQUE (a, b) DEFERRABLE);\n"+
			"INSERT INTO t VALUES (1, 'x') ON CONFLICT (a, b) DO NOTHING;\n"), "on-conflict-hole")
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "the arbiter t.t_ab (a, b) is DEFERRABLE") ||
		!strings.Contains(fs[0].Message, "0A000") {
		t.Errorf("findings %+v, want one about the deferrable arbiter", fs)
	}
}

// A query that names a table no migration creates is left alone: lint may
// be given only part of a schema.
func TestOnConflictUnknownTable(t *testing.T) {
	fs := ofRule(lintMigrations(t, "INSERT INTO elsewhere VALUES (1) ON CONFLICT (a) DO NOTHING;\n"), "on-conflict-hole")
	if len(fs) != 0 {
		t.Errorf("reported: %s", fs[0].Message)
	}
}

// The fix for a missing unique index on a nullable key says "unique when
// present", so that it does not open the optional-unique note it would
// otherwise create.
func TestKeyWithoutUniqueFixOnNullableKey(t *testing.T) {
	fs := ofRule(lintMigrations(t, "CREATE TABLE t (id bigint PRIMARY KEY, dedup_key text);\n"), "key-without-unique")
	if len(fs) != 1 || len(fs[0].Fixes) != 1 {
		t.Fatalf("findings %+v, want one with one fix", fs)
	}
	want := "CREATE UNIQUE INDEX CONCURRENTLY t_dedup_key_key ON t (dedup_key) WHERE dedup_key IS NOT NULL;"
	if got := fs[0].Fixes[0].SQL; got != want {
		t.Errorf("fix SQL %q, want %q", got, want)
	}
}

// The fix keeps the scope of the plain index the author already built.
func TestKeyWithoutUniqueFixKeepsTheScope(t *testing.T) {
	fs := ofRule(lintMigrations(t, "CREATE TABLE r (account_id bigint NOT NULL, request_id text NOT NULL);\n"+
		"CREATE INDEX r_idx ON r (account_id, request_id);\n"), "key-without-unique")
	want := "CREATE UNIQUE INDEX CONCURRENTLY r_account_id_request_id_key ON r (account_id, request_id);"
	if len(fs) != 1 || fs[0].Fixes[0].SQL != want {
		t.Errorf("findings %+v, want one whose fix is %q", fs, want)
	}
}
