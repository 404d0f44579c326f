package inspect

import (
	"sort"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// structureSchema has what the rules read as structure besides nullness:
// foreign keys (column and table clauses, to a partitioned table, on a
// partition, quoted names) and enum columns (plain, quoted, arrays, in
// another schema).
const structureSchema = `
CREATE SCHEMA app;
CREATE TYPE app."Status" AS ENUM ('queued', 'done');
CREATE TYPE kind AS ENUM ('a', 'b');
CREATE TABLE orgs (id bigint PRIMARY KEY);
CREATE TABLE events (id bigint, day date, PRIMARY KEY (id, day)) PARTITION BY RANGE (day);
CREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE TABLE app."TaskRun" (
    id bigint PRIMARY KEY,
    "orgId" bigint NOT NULL REFERENCES orgs,
    event_id bigint,
    event_day date,
    status app."Status" NOT NULL,
    kinds kind[],
    kind kind,
    CONSTRAINT "TaskRun_event_fkey" FOREIGN KEY (event_id, event_day) REFERENCES events (id, day)
);
CREATE TABLE log (org_id bigint REFERENCES orgs, day date NOT NULL) PARTITION BY RANGE (day);
CREATE TABLE log_2026 PARTITION OF log FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
`

// structureLines renders foreign keys and enum columns, one line each.
func structureLines(cat *catalog.Catalog) []string {
	var out []string
	for _, t := range cat.Tables() {
		for _, fk := range t.ForeignKeys {
			out = append(out, t.QualifiedName()+" fk "+fk.Name+" ("+strings.Join(fk.Columns, ", ")+") -> "+fk.RefTable)
		}
		for _, c := range t.Columns {
			if c.Enum {
				out = append(out, t.QualifiedName()+"."+c.Name+" enum")
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestReadForeignKeysAndEnums: inspect reads the same foreign keys and enum
// columns that replaying the same statements builds.
func TestReadForeignKeysAndEnums(t *testing.T) {
	_, snap := readTest(t, newTestDB(t, structureSchema), Filter{})
	cat := catalog.New()
	r := sqlparse.NewReplayer(cat)
	for _, d := range r.Apply(sqlparse.NewStatement("s.sql", structureSchema, 0)) {
		t.Fatalf("replay: %s", d)
	}
	live, replayed := structureLines(snap.Catalog), structureLines(cat)
	if strings.Join(live, "\n") != strings.Join(replayed, "\n") {
		t.Errorf("inspect:\n  %s\nreplay:\n  %s", strings.Join(live, "\n  "), strings.Join(replayed, "\n  "))
	}
	if len(live) != 6 {
		t.Errorf("want 4 foreign keys and 2 enum columns, got:\n  %s", strings.Join(live, "\n  "))
	}
}
