package replay

import (
	"sort"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// fkScript exercises every way a foreign key or an enum column comes and
// goes: column and table clauses, generated names (a clash included), ALTER
// TABLE ... ADD ... NOT VALID, rename of the constraint, the column and the
// referenced table, DROP COLUMN and DROP CONSTRAINT, a partition that
// inherits its parent's keys, DROP TABLE ... CASCADE, and enum types
// created, used, arrayed and dropped with their columns.
const fkScript = `
CREATE TYPE run_status AS ENUM ('queued', 'running', 'done');
CREATE TYPE "Kind" AS ENUM ('a', 'b');
CREATE TYPE dropped_kind AS ENUM ('x');
CREATE TABLE orgs (id bigint PRIMARY KEY);
CREATE TABLE projects (
    id bigint PRIMARY KEY,
    org_id bigint NOT NULL REFERENCES orgs,
    parent_id bigint REFERENCES projects (id),
    kind "Kind",
    status run_status NOT NULL,
    statuses run_status[],
    old_kind dropped_kind,
    other_id bigint,
    FOREIGN KEY (other_id) REFERENCES orgs (id)
);
CREATE TABLE projects_org_id_fkey1 (id int);
ALTER TABLE projects ADD FOREIGN KEY (org_id) REFERENCES orgs (id) NOT VALID;
ALTER TABLE projects RENAME CONSTRAINT projects_other_id_fkey TO projects_other;
ALTER TABLE projects RENAME COLUMN parent_id TO parent_project_id;
ALTER TABLE orgs RENAME TO organizations;
ALTER TABLE projects DROP CONSTRAINT projects_org_id_fkey;
CREATE TABLE tasks (
    project_id bigint,
    org_id bigint,
    created_on date NOT NULL,
    CONSTRAINT tasks_project FOREIGN KEY (project_id) REFERENCES projects (id)
) PARTITION BY RANGE (created_on);
CREATE TABLE tasks_2026 PARTITION OF tasks FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
ALTER TABLE tasks ADD CONSTRAINT tasks_org FOREIGN KEY (org_id) REFERENCES organizations (id);
CREATE TABLE scratch (id bigint PRIMARY KEY);
CREATE TABLE notes (scratch_id bigint REFERENCES scratch, keep_id bigint REFERENCES organizations, gone bigint REFERENCES organizations);
ALTER TABLE notes DROP COLUMN gone;
DROP TABLE scratch CASCADE;
DROP TYPE dropped_kind CASCADE;
`

// serverForeignKeys lists "table constraint (columns) -> referenced" for
// every foreign key of the public schema.
const serverForeignKeys = `
SELECT c.relname || ' ' || k.conname || ' (' ||
       (SELECT string_agg(a.attname, ', ' ORDER BY u.ord) FROM unnest(k.conkey) WITH ORDINALITY u(n, ord)
        JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n) || ') -> ' || k.confrelid::regclass::text
FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND k.contype = 'f'`

// serverEnumColumns lists "table.column" for every column of an enum type.
const serverEnumColumns = `
SELECT c.relname || '.' || a.attname
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped AND t.typtype = 'e'`

func TestReplayForeignKeysAndEnumsAgainstServer(t *testing.T) {
	stmts, err := pg.SplitWithParser(fkScript, true)
	if err != nil {
		t.Fatal(err)
	}
	conn := testDB(t)
	execAll(t, conn, stmts)
	cat := replayAll(t, stmts)

	var fks, enums []string
	for _, tb := range cat.Schema("public").Tables {
		for _, fk := range tb.ForeignKeys {
			ref := strings.TrimPrefix(fk.RefTable, "public.")
			fks = append(fks, tb.Name+" "+fk.Name+" ("+strings.Join(fk.Columns, ", ")+") -> "+ref)
		}
		for _, c := range tb.Columns {
			if c.Enum {
				enums = append(enums, tb.Name+"."+c.Name)
			}
		}
	}
	sort.Strings(fks)
	sort.Strings(enums)
	if d := diffLists(queryStrings(t, conn, serverForeignKeys), fks); d != "" {
		t.Errorf("foreign keys differ:\n%s", d)
	}
	if d := diffLists(queryStrings(t, conn, serverEnumColumns), enums); d != "" {
		t.Errorf("enum columns differ:\n%s", d)
	}
	if len(fks) < 6 || len(enums) < 2 {
		t.Errorf("the script did not exercise enough: %d foreign keys, %d enum columns", len(fks), len(enums))
	}
}

// TestReplayForeignKeyMissingTable: a reference to a table that does not
// exist is the server's 42P01, and no foreign key is recorded.
func TestReplayForeignKeyMissingTable(t *testing.T) {
	cat := catalog.New()
	r := NewReplayer(cat)
	r.Apply(scan.NewStatement("a.sql", "CREATE TABLE a (id int)", 0))
	diags := r.Apply(scan.NewStatement("b.sql", "ALTER TABLE a ADD FOREIGN KEY (id) REFERENCES nowhere (id)", 0))
	if len(diags) != 1 || diags[0].SQLState != "42P01" {
		t.Fatalf("diagnostics = %v", diags)
	}
	if fks := cat.ResolveTable("", "a").ForeignKeys; len(fks) != 0 {
		t.Errorf("foreign keys = %+v", fks)
	}
}
