package replay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// replayScript replays statements as one file, "m.sql", each statement on
// its own line(s) after a two-line header, so positions are real file
// positions.
func replayScript(t *testing.T, stmts ...string) (*catalog.Catalog, []scan.Diagnostic) {
	t.Helper()
	src := "-- header\n\n"
	var offsets []int
	for _, s := range stmts {
		offsets = append(offsets, len(src))
		src += s + ";\n"
	}
	cat := catalog.New()
	r := NewReplayer(cat)
	var diags []scan.Diagnostic
	for i, s := range stmts {
		st := scan.NewStatement("m.sql", src, offsets[i])
		st.Text = s
		diags = append(diags, r.Apply(st)...)
	}
	histories[cat] = r.History()
	return cat, diags
}

// histories holds the history replayScript recorded for each catalog it
// returned, so that a test case, which gets the catalog, can read it.
var histories = map[*catalog.Catalog]*catalog.History{}

// changesOf returns what replayScript recorded for cat.
func changesOf(cat *catalog.Catalog) []catalog.Change { return histories[cat].Changes }

func mustTable(t *testing.T, cat *catalog.Catalog, schema, name string) *catalog.Table {
	t.Helper()
	tb := cat.ResolveTable(schema, name)
	if tb == nil {
		t.Fatalf("table %s.%s missing; have %v", schema, name, tableNames(cat))
	}
	return tb
}

func tableNames(cat *catalog.Catalog) []string {
	var out []string
	for _, tb := range cat.Tables() {
		out = append(out, tb.QualifiedName())
	}
	return out
}

func mustIndex(t *testing.T, tb *catalog.Table, name string) *catalog.Index {
	t.Helper()
	ix := tb.Index(name)
	if ix == nil {
		var names []string
		for _, x := range tb.Indexes {
			names = append(names, x.Name)
		}
		t.Fatalf("index %s on %s missing; have %v", name, tb.Name, names)
	}
	return ix
}

func noDiags(t *testing.T, diags []scan.Diagnostic) {
	t.Helper()
	for _, d := range diags {
		t.Errorf("unexpected diagnostic: %s", d)
	}
}

func wantDiag(t *testing.T, diags []scan.Diagnostic, sqlstate, message string) {
	t.Helper()
	for _, d := range diags {
		if d.SQLState == sqlstate && d.Message == message {
			return
		}
	}
	t.Errorf("want diagnostic %s %q; got %v", sqlstate, message, diags)
}

func hasChange(cat *catalog.Catalog, kind catalog.ChangeKind, object string) *catalog.Change {
	changes := changesOf(cat)
	for i, c := range changes {
		if c.Kind == kind && c.Object == object {
			return &changes[i]
		}
	}
	return nil
}

var replayCases = []struct {
	name  string
	sql   []string
	check func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic)
}{
	{"schemas, search_path, quoting and case folding", []string{
		`CREATE SCHEMA Billing`,
		`SET search_path TO billing, public`,
		`CREATE TABLE "Invoices" (Id int, "Amount" int)`,
		`CREATE TABLE Items (a int)`,
		`CREATE TABLE public.other (a int)`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		inv := mustTable(t, cat, "billing", "Invoices")
		if inv.Column("id") == nil || inv.Column("Amount") == nil {
			t.Errorf("columns = %v, want id and Amount", inv.Columns)
		}
		mustTable(t, cat, "billing", "items")
		mustTable(t, cat, "public", "other")
	}},
	{"pg_dump set_config empties the search path", []string{
		`CREATE SCHEMA s`,
		`SELECT pg_catalog.set_config('search_path', '', false)`,
		`CREATE TABLE s.t (a int)`,
		`CREATE TABLE x (a int)`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		if len(cat.SearchPath) != 0 {
			t.Errorf("search path = %v, want empty", cat.SearchPath)
		}
		mustTable(t, cat, "s", "t")
		wantDiag(t, diags, "3F000", "no schema has been selected to create in")
	}},
	{"inline and table constraints with clause positions", []string{
		"CREATE TABLE t (\n  id bigint PRIMARY KEY,\n  a int NOT NULL UNIQUE,\n  b text,\n  CONSTRAINT t_ab UNIQUE NULLS NOT DISTINCT (a, b),\n  CHECK (b <> '')\n)",
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "public", "t")
		pk := mustIndex(t, tb, "t_pkey")
		if !pk.Primary || !pk.Unique || pk.Constraint != "t_pkey" || pk.Pos.String() != "m.sql:4:13" || pk.Method != "btree" || !pk.Valid || !pk.Ready {
			t.Errorf("pkey = %+v, want a primary key at m.sql:4:13", pk)
		}
		if !tb.Column("id").NotNull || !tb.Column("a").NotNull || tb.Column("b").NotNull {
			t.Errorf("NOT NULL wrong: id %v a %v b %v", tb.Column("id").NotNull, tb.Column("a").NotNull, tb.Column("b").NotNull)
		}
		if ix := mustIndex(t, tb, "t_a_key"); ix.Pos.String() != "m.sql:5:18" {
			t.Errorf("t_a_key at %s, want m.sql:5:18", ix.Pos)
		}
		ab := mustIndex(t, tb, "t_ab")
		if !ab.NullsNotDistinct || ab.Pos.String() != "m.sql:7:3" || strings.Join(ab.PartNames(), ",") != "a,b" {
			t.Errorf("t_ab = %+v", ab)
		}
		ck := tb.Check("t_b_check")
		if ck == nil || !ck.Validated || ck.Pos.String() != "m.sql:8:3" || ck.Expr.String() != "b <> ''" {
			t.Errorf("check = %+v", ck)
		}
	}},
	{"LIKE copies NOT NULL always and indexes on request", []string{
		`CREATE TABLE src (a int NOT NULL, b int UNIQUE, CHECK (a > 0))`,
		`CREATE TABLE plain (LIKE src)`,
		`CREATE TABLE withidx (LIKE src INCLUDING INDEXES INCLUDING CONSTRAINTS)`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		plain := mustTable(t, cat, "public", "plain")
		if !plain.Column("a").NotNull || len(plain.Indexes) != 0 || len(plain.Checks) != 0 {
			t.Errorf("plain LIKE: a NOT NULL %v, %d indexes, %d checks", plain.Column("a").NotNull, len(plain.Indexes), len(plain.Checks))
		}
		w := mustTable(t, cat, "public", "withidx")
		mustIndex(t, w, "withidx_b_key")
		if w.Check("src_a_check") == nil {
			t.Errorf("LIKE INCLUDING CONSTRAINTS did not copy src_a_check")
		}
	}},
	{"PARTITION OF copies parent indexes", []string{
		`CREATE TABLE p (id int, k text, UNIQUE (id, k)) PARTITION BY RANGE (id)`,
		`CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (10)`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		p := mustTable(t, cat, "public", "p")
		if p.Kind != catalog.Partitioned {
			t.Errorf("p kind = %v, want Partitioned", p.Kind)
		}
		p1 := mustTable(t, cat, "public", "p1")
		if p1.PartitionOf != "public.p" {
			t.Errorf("PartitionOf = %q", p1.PartitionOf)
		}
		if ix := mustIndex(t, p1, "p1_id_k_key"); ix.ParentIndex != "public.p_id_k_key" {
			t.Errorf("ParentIndex = %q", ix.ParentIndex)
		}
	}},
	{"INHERITS takes the parent's columns", []string{
		`CREATE TABLE base (id int NOT NULL, note text)`,
		`CREATE TABLE child (extra int) INHERITS (base)`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		c := mustTable(t, cat, "public", "child")
		if len(c.Columns) != 3 || !c.Column("id").NotNull || c.Inherits[0] != "public.base" {
			t.Errorf("child = %+v", c)
		}
	}},
	{"CREATE TABLE AS and SELECT INTO give nullable columns", []string{
		`CREATE TABLE src (a int NOT NULL, b text)`,
		`CREATE TABLE copy AS SELECT a, b AS bee, lower(b) FROM src`,
		`SELECT a INTO copy2 FROM src`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		c := mustTable(t, cat, "public", "copy")
		var names []string
		for _, col := range c.Columns {
			names = append(names, col.Name)
			if col.NotNull {
				t.Errorf("%s is NOT NULL, want nullable", col.Name)
			}
		}
		if strings.Join(names, ",") != "a,bee,lower" {
			t.Errorf("columns = %v", names)
		}
		mustTable(t, cat, "public", "copy2")
	}},
	{"IF NOT EXISTS is quiet, a duplicate is 42P07", []string{
		`CREATE TABLE t (a int)`,
		`CREATE TABLE IF NOT EXISTS t (b int)`,
		`CREATE TABLE t (c int)`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		if len(diags) != 1 {
			t.Errorf("diags = %v, want one", diags)
		}
		wantDiag(t, diags, "42P07", `relation "t" already exists`)
		if mustTable(t, cat, "public", "t").Column("b") != nil {
			t.Errorf("IF NOT EXISTS replaced the table")
		}
	}},
	{"add, rename and drop columns; drop takes dependent indexes and checks", []string{
		`CREATE TABLE t (a int, b int)`,
		`ALTER TABLE t ADD COLUMN c text NOT NULL, ADD COLUMN IF NOT EXISTS a int`,
		`CREATE UNIQUE INDEX t_bc ON t (b, c)`,
		`CREATE INDEX t_a ON t (a) WHERE b > 0`,
		`ALTER TABLE t ADD CONSTRAINT b_pos CHECK (b > 0)`,
		`ALTER TABLE t RENAME COLUMN c TO code`,
		`ALTER TABLE t DROP COLUMN b`,
		`ALTER TABLE t ALTER COLUMN a TYPE bigint`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "public", "t")
		if tb.Column("b") != nil || tb.Column("code") == nil || !tb.Column("code").NotNull {
			t.Errorf("columns = %+v", tb.Columns)
		}
		if len(tb.Indexes) != 0 || len(tb.Checks) != 0 {
			t.Errorf("dropping b left %d indexes and %d checks", len(tb.Indexes), len(tb.Checks))
		}
		if tb.Column("a").Type != "bigint" {
			t.Errorf("a type = %q", tb.Column("a").Type)
		}
		if hasChange(cat, catalog.ChangeDropIndex, "t_bc") == nil || hasChange(cat, catalog.ChangeRenameColumn, "code") == nil {
			t.Errorf("changes = %+v", changesOf(cat))
		}
	}},
	{"DROP NOT NULL remembers where", []string{
		`CREATE TABLE t (a int NOT NULL, b int)`,
		`ALTER TABLE t ALTER COLUMN a DROP NOT NULL`,
		`ALTER TABLE t ALTER COLUMN b SET NOT NULL`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "public", "t")
		a := tb.Column("a")
		if a.NotNull || a.NullableSince.String() != "m.sql:4:1" {
			t.Errorf("a = %+v, want nullable since m.sql:4:1", a)
		}
		if !tb.Column("b").NotNull {
			t.Errorf("b not NOT NULL")
		}
		c := hasChange(cat, catalog.ChangeDropNotNull, "a")
		if c == nil || c.Pos.String() != "m.sql:4:1" || c.File != "m.sql" || c.Table != "t" {
			t.Errorf("drop-not-null change = %+v", c)
		}
	}},
	{"a NOT NULL column re-added without NOT NULL is nullable since then", []string{
		`CREATE TABLE t (a int NOT NULL, b int)`,
		`ALTER TABLE t DROP COLUMN a`,
		`ALTER TABLE t ADD COLUMN a int`,
		`ALTER TABLE t DROP COLUMN b`,
		`ALTER TABLE t ADD COLUMN b int`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "public", "t")
		if got := tb.Column("a").NullableSince.String(); got != "m.sql:5:1" {
			t.Errorf("a nullable since %q, want m.sql:5:1", got)
		}
		if !tb.Column("b").NullableSince.IsZero() {
			t.Errorf("b was never NOT NULL but has NullableSince %s", tb.Column("b").NullableSince)
		}
	}},
	{"constraints: PRIMARY KEY, NOT VALID then VALIDATE, DEFERRABLE", []string{
		`CREATE TABLE t (a int, b int, c int UNIQUE DEFERRABLE INITIALLY DEFERRED)`,
		`ALTER TABLE t ADD PRIMARY KEY (a)`,
		`ALTER TABLE t ADD CONSTRAINT b_nn CHECK (b IS NOT NULL) NOT VALID`,
		`ALTER TABLE t ADD CONSTRAINT t_b UNIQUE (b) DEFERRABLE`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "public", "t")
		if !tb.Column("a").NotNull {
			t.Errorf("PRIMARY KEY did not set NOT NULL")
		}
		if ck := tb.Check("b_nn"); ck == nil || ck.Validated {
			t.Errorf("NOT VALID check = %+v, want not validated", ck)
		}
		if ix := mustIndex(t, tb, "t_c_key"); !ix.Deferrable || !ix.InitiallyDeferred {
			t.Errorf("t_c_key = %+v, want deferrable initially deferred", ix)
		}
		if ix := mustIndex(t, tb, "t_b"); !ix.Deferrable || ix.InitiallyDeferred {
			t.Errorf("t_b = %+v, want deferrable", ix)
		}
	}},
	{"VALIDATE CONSTRAINT", []string{
		`CREATE TABLE t (b int)`,
		`ALTER TABLE t ADD CONSTRAINT b_nn CHECK (b IS NOT NULL) NOT VALID`,
		`ALTER TABLE t VALIDATE CONSTRAINT b_nn`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		if ck := mustTable(t, cat, "public", "t").Check("b_nn"); !ck.Validated {
			t.Errorf("b_nn not validated")
		}
		if hasChange(cat, catalog.ChangeValidate, "b_nn") == nil {
			t.Errorf("no validate change")
		}
	}},
	{"UNIQUE USING INDEX renames the index to the constraint", []string{
		`CREATE TABLE t (a int, b int)`,
		`CREATE UNIQUE INDEX CONCURRENTLY t_a_tmp ON t (a, b)`,
		`ALTER TABLE t ADD CONSTRAINT t_a_uniq UNIQUE USING INDEX t_a_tmp`,
		`CREATE UNIQUE INDEX t_pk_tmp ON t (a)`,
		`ALTER TABLE t ADD PRIMARY KEY USING INDEX t_pk_tmp`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "public", "t")
		if tb.Index("t_a_tmp") != nil {
			t.Errorf("old index name still present")
		}
		if ix := mustIndex(t, tb, "t_a_uniq"); ix.Constraint != "t_a_uniq" {
			t.Errorf("constraint = %q", ix.Constraint)
		}
		if ix := mustIndex(t, tb, "t_pk_tmp"); !ix.Primary || !tb.Column("a").NotNull {
			t.Errorf("PRIMARY KEY USING INDEX: %+v", ix)
		}
	}},
	{"rename table and SET SCHEMA", []string{
		`CREATE SCHEMA archive`,
		`CREATE TABLE t (a int UNIQUE)`,
		`ALTER TABLE t RENAME TO t2`,
		`ALTER TABLE t2 SET SCHEMA archive`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "archive", "t2")
		mustIndex(t, tb, "t_a_key")
		if cat.ResolveTable("public", "t") != nil || cat.ResolveTable("public", "t2") != nil {
			t.Errorf("old names still resolve")
		}
	}},
	{"ATTACH and DETACH PARTITION", []string{
		`CREATE TABLE p (id int, k int, UNIQUE (id, k)) PARTITION BY LIST (id)`,
		`CREATE TABLE p1 (id int, k int)`,
		`CREATE UNIQUE INDEX p1_own ON p1 (id, k)`,
		`ALTER TABLE p ATTACH PARTITION p1 FOR VALUES IN (1)`,
		`CREATE TABLE p2 (id int, k int)`,
		`ALTER TABLE p ATTACH PARTITION p2 FOR VALUES IN (2)`,
		`ALTER TABLE p DETACH PARTITION p2`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		p1 := mustTable(t, cat, "public", "p1")
		if p1.PartitionOf != "public.p" || len(p1.Indexes) != 1 || p1.Indexes[0].ParentIndex != "public.p_id_k_key" {
			t.Errorf("p1 = %+v; indexes %+v", p1, p1.Indexes)
		}
		p2 := mustTable(t, cat, "public", "p2")
		if p2.PartitionOf != "" || mustIndex(t, p2, "p2_id_k_key").ParentIndex != "" {
			t.Errorf("p2 still attached")
		}
	}},
	{"ON ONLY then ALTER INDEX ATTACH PARTITION", []string{
		`CREATE TABLE p (id int) PARTITION BY LIST (id)`,
		`CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1)`,
		`CREATE UNIQUE INDEX p_id ON ONLY p (id)`,
		`CREATE UNIQUE INDEX CONCURRENTLY p1_id ON p1 (id)`,
		`ALTER INDEX p_id ATTACH PARTITION p1_id`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		p1 := mustTable(t, cat, "public", "p1")
		if len(p1.Indexes) != 1 || p1.Indexes[0].ParentIndex != "public.p_id" {
			t.Errorf("p1 indexes = %+v", p1.Indexes)
		}
		if !mustIndex(t, mustTable(t, cat, "public", "p"), "p_id").Valid {
			t.Errorf("p_id still invalid after every partition attached")
		}
	}},
	{"CREATE INDEX forms", []string{
		`CREATE TABLE t (a int, b text, c jsonb)`,
		"CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS t_x\n  ON t USING btree (a, lower(b)) INCLUDE (c) NULLS NOT DISTINCT WHERE b IS NOT NULL AND a > 0",
		`CREATE INDEX IF NOT EXISTS t_x ON t (a)`,
		`CREATE INDEX ON t USING hash (b)`,
		`CREATE INDEX ON t ((c->>'k'))`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "public", "t")
		ix := mustIndex(t, tb, "t_x")
		if !ix.Unique || !ix.NullsNotDistinct || ix.Pos.String() != "m.sql:4:1" || ix.Include[0] != "c" ||
			ix.Predicate.String() != "(b IS NOT NULL) AND (a > 0)" || ix.Parts[1].Expr.String() != "lower(b)" {
			t.Errorf("t_x = %+v", ix)
		}
		if ix := mustIndex(t, tb, "t_b_idx"); ix.Method != "hash" {
			t.Errorf("method = %q", ix.Method)
		}
		mustIndex(t, tb, "t_expr_idx")
		if len(tb.Indexes) != 3 {
			t.Errorf("IF NOT EXISTS made a second t_x")
		}
	}},
	{"ALTER INDEX RENAME and DROP INDEX", []string{
		`CREATE TABLE t (a int, b int)`,
		`CREATE INDEX ON t (a)`,
		`ALTER INDEX t_a_idx RENAME TO t_a_new`,
		`CREATE INDEX ON t (b)`,
		`DROP INDEX CONCURRENTLY IF EXISTS t_b_idx`,
		`DROP INDEX IF EXISTS nothing_here`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "public", "t")
		if ix := mustIndex(t, tb, "t_a_new"); ix.RenamedAt.String() != "m.sql:5:1" {
			t.Errorf("RenamedAt = %s", ix.RenamedAt)
		}
		if tb.Index("t_b_idx") != nil || hasChange(cat, catalog.ChangeDropIndex, "t_b_idx") == nil {
			t.Errorf("t_b_idx not dropped")
		}
	}},
	{"DROP TABLE CASCADE and DROP SCHEMA CASCADE", []string{
		`CREATE SCHEMA s`,
		`CREATE TABLE s.a (x int)`,
		`CREATE TABLE base (x int)`,
		`CREATE TABLE kid () INHERITS (base)`,
		`DROP TABLE base CASCADE`,
		`DROP SCHEMA s CASCADE`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		if cat.Schema("s") != nil || cat.ResolveTable("", "base") != nil {
			t.Errorf("tables = %v", tableNames(cat))
		}
	}},
	{"domains, identity, serial and generated columns", []string{
		`CREATE SCHEMA types`,
		`CREATE DOMAIN types.email AS text NOT NULL`,
		`CREATE DOMAIN loose AS text`,
		`CREATE TABLE t (id bigserial, n smallserial, i int GENERATED ALWAYS AS IDENTITY, e types.email, l loose, g int GENERATED ALWAYS AS (i * 2) STORED)`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "public", "t")
		if c := tb.Column("id"); !c.NotNull || c.Type != "bigint" {
			t.Errorf("id = %+v", c)
		}
		if !tb.Column("n").NotNull || !tb.Column("i").NotNull || !tb.Column("i").Identity {
			t.Errorf("smallserial / identity not NOT NULL")
		}
		if c := tb.Column("e"); !c.DomainNotNull || c.NotNull || !c.IsNotNull() {
			t.Errorf("e = %+v, want DomainNotNull", c)
		}
		if tb.Column("l").IsNotNull() || !tb.Column("g").Generated {
			t.Errorf("l or g wrong")
		}
	}},
	{"ALTER DOMAIN SET / DROP NOT NULL reaches the columns", []string{
		`CREATE DOMAIN code AS text`,
		`CREATE DOMAIN other AS text NOT NULL`,
		`CREATE TABLE t (a code, b public.other)`,
		`ALTER DOMAIN code SET NOT NULL`,
		`ALTER DOMAIN public.other DROP NOT NULL`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "public", "t")
		if !tb.Column("a").DomainNotNull || tb.Column("b").DomainNotNull {
			t.Errorf("a %+v b %+v", tb.Column("a"), tb.Column("b"))
		}
	}},
	{"functions running DDL and DO branches replay cannot choose are unmodelled", []string{
		`CREATE TABLE events (a int)`,
		"DO $$ BEGIN IF true THEN ALTER TABLE events ALTER COLUMN a DROP NOT NULL; END IF; END $$",
		"CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'CREATE INDEX ON events (a)'; END $$",
		"CREATE FUNCTION g() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$",
		"DO $$ BEGIN RAISE NOTICE 'hi'; END $$",
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		if len(diags) != 1 || diags[0].Pos.String() != "m.sql:4:26" || diags[0].SQLState != "" ||
			!strings.Contains(diags[0].Message, "only when its IF condition holds") {
			t.Errorf("diagnostics = %v, want one note at the ALTER TABLE in the IF", diags)
		}
		var un []catalog.Change
		for _, c := range changesOf(cat) {
			if c.Kind == catalog.ChangeUnmodelled {
				un = append(un, c)
			}
		}
		if len(un) != 2 {
			t.Fatalf("unmodelled changes = %+v, want 2", un)
		}
		if un[0].Table != "events" || un[0].Schema != "public" || !strings.HasPrefix(un[0].Object, "ALTER TABLE events") || un[0].Pos.String() != "m.sql:4:26" {
			t.Errorf("DO change = %+v", un[0])
		}
		if un[1].Table != "events" || un[1].Pos.String() != "m.sql:5:1" {
			t.Errorf("function change = %+v", un[1])
		}
	}},
	{"ALTER TYPE RENAME follows an enum and its columns", []string{
		`CREATE TYPE step AS ENUM ('a')`,
		`CREATE TABLE runs (kind step)`,
		`CREATE TYPE step_new AS ENUM ('a', 'b')`,
		`ALTER TABLE runs ALTER COLUMN kind TYPE step_new USING kind::text::step_new`,
		`DROP TYPE step`,
		`ALTER TYPE step_new RENAME TO step`,
		`CREATE TYPE step_new AS ENUM ('a', 'b', 'c')`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		if c := mustTable(t, cat, "public", "runs").Column("kind"); c.Type != "step" || !c.Enum {
			t.Errorf("kind = %+v, want of enum type step", c)
		}
	}},
	{"unmodelled statements are skipped silently", []string{
		`CREATE TABLE t (a int)`,
		`CREATE VIEW v AS SELECT * FROM t`,
		`GRANT SELECT ON t TO public`,
		`COMMENT ON TABLE t IS 'x'`,
		`CREATE SEQUENCE s`,
		`INSERT INTO t VALUES (1)`,
		`UPDATE t SET a = 2`,
		`SELECT 1`,
		`CREATE EXTENSION IF NOT EXISTS pgcrypto`,
		`CREATE TYPE mood AS ENUM ('ok')`,
		`ALTER TABLE t OWNER TO someone`,
		`BEGIN`,
		`COMMIT`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		if changes := changesOf(cat); len(changes) != 1 {
			t.Errorf("changes = %+v, want only the CREATE TABLE", changes)
		}
	}},
	{"references to missing objects are notes with SQLSTATE", []string{
		`CREATE TABLE t (a int)`,
		`ALTER TABLE missing ADD COLUMN b int`,
		`ALTER TABLE t DROP COLUMN nope`,
		`ALTER TABLE t ADD COLUMN a int`,
		`DROP INDEX gone`,
		`ALTER TABLE t DROP CONSTRAINT gone`,
		`CREATE TABLE nowhere.x (a int)`,
		`CREATE INDEX ON t (zzz)`,
		`DROP TABLE gone`,
		`ALTER TABLE t ALTER COLUMN q SET NOT NULL`,
		`ALTER TABLE IF EXISTS missing ADD COLUMN b int`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		wantDiag(t, diags, "42P01", `relation "missing" does not exist`)
		wantDiag(t, diags, "42703", `column "nope" of relation "t" does not exist`)
		wantDiag(t, diags, "42701", `column "a" of relation "t" already exists`)
		wantDiag(t, diags, "42704", `index "gone" does not exist`)
		wantDiag(t, diags, "42704", `constraint "gone" of relation "t" does not exist`)
		wantDiag(t, diags, "3F000", `schema "nowhere" does not exist`)
		wantDiag(t, diags, "42703", `column "zzz" does not exist`)
		wantDiag(t, diags, "42P01", `table "gone" does not exist`)
		wantDiag(t, diags, "42703", `column "q" of relation "t" does not exist`)
		if len(diags) != 9 {
			t.Errorf("got %d diagnostics, want 9: %v", len(diags), diags)
		}
		for _, d := range diags {
			if d.Level != scan.Note || d.Pos.File != "m.sql" {
				t.Errorf("diagnostic %s is not a note at a position", d)
			}
		}
	}},
	{"several subcommands in one statement", []string{
		`CREATE TABLE t (a int NOT NULL, b int)`,
		`ALTER TABLE t ALTER COLUMN a DROP NOT NULL, ADD CONSTRAINT t_ab UNIQUE (a, b), DROP COLUMN b`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		tb := mustTable(t, cat, "public", "t")
		if tb.Column("a").NotNull || tb.Column("b") != nil || len(tb.Indexes) != 0 {
			t.Errorf("t = %+v", tb)
		}
	}},
	{"ONLY keeps ALTER TABLE off the inheritance children", []string{
		`CREATE TABLE base (a int)`,
		`CREATE TABLE kid () INHERITS (base)`,
		`ALTER TABLE ONLY base ADD COLUMN b int`,
		`ALTER TABLE base ADD COLUMN c int`,
	}, func(t *testing.T, cat *catalog.Catalog, diags []scan.Diagnostic) {
		noDiags(t, diags)
		kid := mustTable(t, cat, "public", "kid")
		if kid.Column("b") != nil || kid.Column("c") == nil {
			t.Errorf("kid columns = %+v", kid.Columns)
		}
	}},
}

func TestReplay(t *testing.T) {
	for _, tc := range replayCases {
		t.Run(tc.name, func(t *testing.T) {
			cat, diags := replayScript(t, tc.sql...)
			tc.check(t, cat, diags)
		})
	}
}

func TestReplayParseErrorPosition(t *testing.T) {
	src := "-- a\nCREATE TABLE t (\n  naïve int,,\n  b int\n)"
	st := scan.NewStatement("bad.sql", src, 5)
	diags := NewReplayer(catalog.New()).Apply(st)
	if len(diags) != 1 || diags[0].Level != scan.Error {
		t.Fatalf("diags = %v, want one error", diags)
	}
	// The second comma is on line 3, column 13 counted in characters.
	if got := diags[0].Pos.String(); got != "bad.sql:3:13" {
		t.Errorf("error at %s, want bad.sql:3:13 (%s)", got, diags[0])
	}
	if !strings.Contains(diags[0].Message, "syntax error") {
		t.Errorf("message = %q", diags[0].Message)
	}
}

func FuzzReplay(f *testing.F) {
	for _, tc := range replayCases {
		for _, s := range tc.sql {
			f.Add(s)
		}
	}
	for _, s := range doBlockSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		cat := catalog.New()
		r := NewReplayer(cat)
		r.Apply(scan.NewStatement("f.sql", "CREATE TABLE t (a int, b text UNIQUE); CREATE TABLE p (a int) PARTITION BY LIST (a)", 0))
		for _, d := range r.Apply(scan.NewStatement("f.sql", text, 0)) {
			if strings.Contains(d.Message, "internal error") {
				t.Fatalf("replay of %q panicked: %s", text, d)
			}
		}
	})
}

// BenchmarkReplay replays a generated schema of 2,000 tables with three
// indexes each, the size of a large application's dump.
func BenchmarkReplay(b *testing.B) {
	var stmts []scan.Statement
	for i := 0; i < 2000; i++ {
		for _, s := range []string{
			fmt.Sprintf("CREATE TABLE t%d (id bigserial PRIMARY KEY, account_id bigint NOT NULL, key text, ns text, UNIQUE (account_id, key, ns))", i),
			fmt.Sprintf("CREATE UNIQUE INDEX ON t%d (account_id, key) WHERE ns IS NULL", i),
			fmt.Sprintf("ALTER TABLE t%d ALTER COLUMN key DROP NOT NULL", i),
		} {
			stmts = append(stmts, scan.NewStatement("bench.sql", s, 0))
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewReplayer(catalog.New())
		for _, st := range stmts {
			r.Apply(st)
		}
	}
}
