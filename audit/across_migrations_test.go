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

// lintMigrations replays files in order, each its own migration, and
// judges the catalog as lint does on a tree (lintCatalog).
func lintMigrations(t *testing.T, files ...string) []audit.Finding {
	t.Helper()
	cat := catalog.New()
	r := sqlparse.NewReplayer(cat)
	for i, src := range files {
		path := fmt.Sprintf("%06d.up.sql", i+1)
		res := sqlparse.Split(sqlparse.Input{Path: path, Text: src})
		for _, st := range res.Statements {
			for _, d := range r.Apply(st) {
				if d.Level == sqlparse.Error {
					t.Fatalf("%s", d)
				}
			}
		}
	}
	return lintCatalog(t, cat, r.History(), nil, 16)
}

func positions(fs []audit.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Pos.String())
	}
	return out
}

// A drop is judged against the migrations after it: a replacement, or the
// key's column dropped, in a later migration silences it; a replacement
// over a superset is info at the drop, pointing at the replacement; with
// neither, the warning sits at the drop with the index's creation and the
// table's last change as related locations.
func TestUniqueDroppedLaterMigrations(t *testing.T) {
	create := "CREATE TABLE t (a bigint NOT NULL, b text NOT NULL, nid bigint NOT NULL);\nCREATE UNIQUE INDEX t_ab ON t (a, b);\n"
	for name, later := range map[string]string{
		"same key":      "CREATE UNIQUE INDEX t_ab2 ON t (b, a);\n",
		"subset":        "CREATE UNIQUE INDEX t_b ON t (b);\n",
		"column":        "ALTER TABLE t DROP COLUMN b;\n",
		"table":         "DROP TABLE t;\n",
		"renamed table": "ALTER TABLE t RENAME TO u;\nCREATE UNIQUE INDEX u_ab ON u (a, b);\n",
	} {
		if fs := ofRule(lintMigrations(t, create, "DROP INDEX t_ab;\n", later), "unique-dropped"); len(fs) != 0 {
			t.Errorf("%s in a later migration: reported %s", name, fs[0].Message)
		}
	}

	fs := ofRule(lintMigrations(t, create, "DROP INDEX t_ab;\n", "-- per tenant now\nCREATE UNIQUE INDEX t_nid_ab ON t (nid, a, b);\n"), "unique-dropped")
	if got := positions(fs); len(got) != 1 || got[0] != "000002.up.sql:1:1" {
		t.Fatalf("superset one migration later: findings at %v, want the DROP at 000002.up.sql:1:1", got)
	}
	if f := fs[0]; f.Severity != audit.Info || !strings.Contains(f.Message, "uniqueness narrowed to per-nid") {
		t.Errorf("superset: %s %q, want info saying uniqueness narrowed to per-nid", f.Severity, f.Message)
	}
	if r := fs[0].Related; len(r) != 2 || r[1].Pos.String() != "000003.up.sql:2:1" {
		t.Errorf("superset related = %+v, want the creation and the replacement at 000003.up.sql:2:1", r)
	}

	fs = ofRule(lintMigrations(t, create, "DROP INDEX t_ab;\n", "ALTER TABLE t ADD COLUMN note text;\n"), "unique-dropped")
	if got := positions(fs); len(got) != 1 || got[0] != "000002.up.sql:1:1" || fs[0].Severity != audit.Warning {
		t.Fatalf("no replacement: findings %+v, want one warning at the DROP", fs)
	}
	var related []string
	for _, r := range fs[0].Related {
		related = append(related, r.Pos.String())
	}
	if strings.Join(related, " ") != "000001.up.sql:2:1 000003.up.sql:1:1" {
		t.Errorf("related at %v, want the index at 000001.up.sql:2:1 and the end state at 000003.up.sql:1:1", related)
	}
}

// A later migration that indexes the dropped key again without UNIQUE
// declares the repeats intended (trigger.dev's "add missing ... index" a
// year after the drop): info. The same plain index in the drop's own
// migration is the UNIQUE forgotten in a rebuild, and one over another key
// says nothing: warnings.
func TestUniqueDroppedReindexedLater(t *testing.T) {
	create := "CREATE TABLE deps (id bigint PRIMARY KEY, attempt_id bigint, run_id bigint NOT NULL);\n" +
		"CREATE UNIQUE INDEX deps_attempt_id_key ON deps (attempt_id);\n"
	fs := ofRule(lintMigrations(t, create, "DROP INDEX deps_attempt_id_key;\n",
		"CREATE INDEX deps_attempt_id_idx ON deps (attempt_id);\n"), "unique-dropped")
	if len(fs) != 1 || fs[0].Severity != audit.Info ||
		!strings.Contains(fs[0].Message, "a later migration indexes (attempt_id) again without UNIQUE (deps_attempt_id_idx), so the loss is intended") {
		t.Fatalf("plain index a migration later: %+v, want one info naming deps_attempt_id_idx", fs)
	}
	if r := fs[0].Related; len(r) != 2 || r[1].Pos.String() != "000003.up.sql:1:1" {
		t.Errorf("related = %+v, want the creation and the plain index at 000003.up.sql:1:1", r)
	}
	for name, files := range map[string][]string{
		"same migration": {create, "DROP INDEX deps_attempt_id_key;\nCREATE INDEX deps_attempt_id_idx ON deps (attempt_id);\n"},
		"another key":    {create, "DROP INDEX deps_attempt_id_key;\n", "CREATE INDEX deps_run_attempt ON deps (run_id, attempt_id);\n"},
		"partial":        {create, "DROP INDEX deps_attempt_id_key;\n", "CREATE INDEX deps_attempt_live ON deps (attempt_id) WHERE run_id > 0;\n"},
	} {
		fs := ofRule(lintMigrations(t, files...), "unique-dropped")
		if len(fs) != 1 || fs[0].Severity != audit.Warning {
			t.Errorf("%s: %+v, want one warning", name, fs)
		}
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

// Issue 25: a key column dropped with its index and added back months later
// as a new, optional column under a new index that reads unique when
// present is no dropped NOT NULL: optional-unique reports the index, and
// not-null-dropped (whose fix would allow one keyless row per scope) is
// silent. Near misses: the same re-creation in the drop's own migration is
// a rebuild that forgot NOT NULL (recreated_column.sql), and a new index
// where the column is a hole beside an identity is reported.
func TestNotNullDroppedKeyAddedBackLater(t *testing.T) {
	create := "CREATE TABLE organizations (id bigint PRIMARY KEY);\n" +
		"CREATE TABLE teams (id bigint PRIMARY KEY, organization_id bigint NOT NULL REFERENCES organizations (id), " +
		"slug text NOT NULL, code text NOT NULL, deleted_at timestamptz);\n" +
		"CREATE UNIQUE INDEX teams_org_slug ON teams (organization_id, slug);\n"
	fs := lintMigrations(t, create, "ALTER TABLE teams DROP COLUMN slug;\n",
		"ALTER TABLE teams ADD COLUMN slug text;\n"+
			"CREATE UNIQUE INDEX teams_org_slug ON teams (organization_id, slug) WHERE deleted_at IS NULL;\n")
	if got := ofRule(fs, "not-null-dropped"); len(got) != 0 {
		t.Errorf("not-null-dropped on a key added back later as optional: %s", got[0].Message)
	}
	if got := ofRule(fs, "optional-unique"); len(got) != 1 {
		t.Errorf("optional-unique findings: %+v, want one on teams_org_slug", got)
	}
	fs = lintMigrations(t, create, "ALTER TABLE teams DROP COLUMN slug;\n",
		"ALTER TABLE teams ADD COLUMN slug text;\n"+
			"CREATE UNIQUE INDEX teams_org_slug ON teams (organization_id, code, slug);\n")
	if got := ofRule(fs, "not-null-dropped"); len(got) != 1 || !strings.Contains(got[0].Message, "slug is re-created without NOT NULL") {
		t.Errorf("added back beside an identity: %+v, want not-null-dropped on slug", got)
	}
}

// Issue 25: a migration drops a unique index and re-creates it without
// UNIQUE, and a later one restores uniqueness over a superset of the key
// through an expression of its column (lower(version)): uniqueness
// narrowed, info. Without the later index it stays a warning.
func TestUniqueDroppedSupersetThroughExpressionLater(t *testing.T) {
	create := "CREATE TABLE deployments (id bigint PRIMARY KEY, project_id bigint NOT NULL, version text NOT NULL, region text NOT NULL);\n" +
		"CREATE UNIQUE INDEX deployments_project_version ON deployments (project_id, version);\n"
	rebuild := "DROP INDEX deployments_project_version;\nCREATE INDEX deployments_project_version ON deployments (project_id, version);\n"
	fs := ofRule(lintMigrations(t, create, rebuild,
		"CREATE UNIQUE INDEX deployments_region ON deployments (project_id, lower(version), region);\n"), "unique-dropped")
	if len(fs) != 1 || fs[0].Severity != audit.Info || !strings.Contains(fs[0].Message, "uniqueness narrowed to per-region") {
		t.Fatalf("superset later: %+v, want one info, uniqueness narrowed", fs)
	}
	fs = ofRule(lintMigrations(t, create, rebuild), "unique-dropped")
	if len(fs) != 1 || fs[0].Severity != audit.Warning {
		t.Errorf("no superset: %+v, want one warning", fs)
	}
}
