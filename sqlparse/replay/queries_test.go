package replay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/catalog"
)

func TestInsertOnConflictIsRecorded(t *testing.T) {
	cat, diags := replayScript(t,
		"INSERT INTO events (org, tx) VALUES ($1, $2) ON CONFLICT (tx, lower(org)) WHERE deleted_at IS NULL DO UPDATE SET org = excluded.org",
		"INSERT INTO billing.events VALUES (1) ON CONFLICT ON CONSTRAINT events_pkey DO NOTHING",
		"INSERT INTO events VALUES (1) ON CONFLICT DO NOTHING",
		"INSERT INTO events VALUES (1)",
		"WITH x AS (SELECT 1) INSERT INTO events SELECT * FROM x ON CONFLICT (tx) DO NOTHING",
	)
	noDiags(t, diags)
	if len(histories[cat].Queries) != 4 {
		t.Fatalf("recorded %d queries, want 4 (a plain INSERT is not one): %+v", len(histories[cat].Queries), histories[cat].Queries)
	}
	q := histories[cat].Queries[0]
	if q.Table != "events" || q.Schema != "" || !q.DoUpdate || q.Pos.Line != 3 || q.Pos.File != "m.sql" {
		t.Errorf("first query = %+v", q)
	}
	var target []string
	for _, p := range q.Target {
		target = append(target, p.String())
	}
	if strings.Join(target, ", ") != "tx, (lower(org))" || q.Where == nil || q.Where.String() != "deleted_at IS NULL" {
		t.Errorf("target %v where %v", target, q.Where)
	}
	if c := histories[cat].Queries[1]; c.Schema != "billing" || c.Constraint != "events_pkey" || c.DoUpdate || len(c.Target) != 0 {
		t.Errorf("ON CONSTRAINT query = %+v", c)
	}
	if c := histories[cat].Queries[2]; len(c.Target) != 0 || c.Constraint != "" {
		t.Errorf("bare ON CONFLICT query = %+v", c)
	}
	if c := histories[cat].Queries[3]; len(c.Target) != 1 || c.Target[0].Column != "tx" {
		t.Errorf("INSERT with a WITH clause = %+v", c)
	}
}

func TestDropDomainCascadeDropsColumnsAndIndexes(t *testing.T) {
	cat, diags := replayScript(t,
		"CREATE DOMAIN ref AS text",
		"CREATE TABLE orders (shop bigint NOT NULL, r ref NOT NULL, note text)",
		"CREATE UNIQUE INDEX orders_r ON orders (shop, r)",
		"DROP DOMAIN ref",
		"DROP DOMAIN ref CASCADE",
	)
	wantDiag(t, diags, "2BP01", "cannot drop type ref because column r of table orders depends on it")
	tb := mustTable(t, cat, "public", "orders")
	if tb.Column("r") != nil || tb.Index("orders_r") != nil || tb.Column("note") == nil {
		t.Errorf("after CASCADE: columns %v, index still there: %v", tb.Columns, tb.Index("orders_r") != nil)
	}
	ch := hasChange(cat, catalog.ChangeDropIndex, "orders_r")
	if ch == nil || ch.Pos.Line != 7 || ch.Index == nil || !ch.Index.Unique {
		t.Errorf("drop of orders_r recorded as %+v, want at the CASCADE (line 7) with the index", ch)
	}
	if cat.ResolveDomain("", "ref") != nil {
		t.Error("the domain is still there after CASCADE")
	}
}

// TestInsertColumnsAndValues: the INSERT's column list and, per position,
// whether its VALUES write NULL, a constant, or something that may be NULL.
func TestInsertColumnsAndValues(t *testing.T) {
	cat, diags := replayScript(t,
		"INSERT INTO runs (env, task, key) VALUES ($1, 'send', NULL) ON CONFLICT DO NOTHING",
		"INSERT INTO runs VALUES (1, 'a'::text, lower($1)), (2, 'b', 'k') ON CONFLICT DO NOTHING",
		"INSERT INTO runs (env, key) VALUES (1, 'k'), (2, NULL), (3, DEFAULT) ON CONFLICT DO NOTHING",
		"INSERT INTO runs (env) SELECT id FROM envs ON CONFLICT DO NOTHING",
	)
	noDiags(t, diags)
	if len(histories[cat].Queries) != 4 {
		t.Fatalf("recorded %d queries", len(histories[cat].Queries))
	}
	u, n, c := catalog.ValueUnknown, catalog.ValueNull, catalog.ValueNotNull
	cases := []struct {
		cols   string
		values []catalog.InsertValue
	}{
		{"env,task,key", []catalog.InsertValue{u, c, n}},
		{"", []catalog.InsertValue{c, c, u}},
		{"env,key", []catalog.InsertValue{c, n}},
		{"env", nil},
	}
	for i, tc := range cases {
		q := histories[cat].Queries[i]
		if strings.Join(q.Columns, ",") != tc.cols || fmt.Sprint(q.Values) != fmt.Sprint(tc.values) {
			t.Errorf("query %d: columns %v values %v, want %s %v", i, q.Columns, q.Values, tc.cols, tc.values)
		}
	}
	runs := &catalog.Table{Name: "runs", Columns: []*catalog.Column{{Name: "env"}, {Name: "task"}, {Name: "key"}}}
	if v, ok := histories[cat].Queries[1].Inserted(runs, "key"); !ok || v != u {
		t.Errorf("positional key = %v %v", v, ok)
	}
	if _, ok := histories[cat].Queries[2].Inserted(runs, "task"); ok {
		t.Error("a column left out of the list counts as written")
	}
	if v, ok := histories[cat].Queries[3].Inserted(runs, "env"); !ok || v != u {
		t.Errorf("INSERT ... SELECT env = %v %v", v, ok)
	}
}
