package replay

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/parse"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// generatedNameCases are scripts the server accepts; the names PostgreSQL
// generates for their indexes and constraints must be the ones replay
// generates. Each runs in its own schema.
var generatedNameCases = map[string][]string{
	"basic": {
		`CREATE TABLE t (id serial PRIMARY KEY, a int UNIQUE, b int, c int, UNIQUE (a, b), CHECK (a > 0), CHECK (a > b), CHECK (c IS NOT NULL AND c > 1))`,
		`CREATE INDEX ON t (b)`,
		`CREATE UNIQUE INDEX ON t (lower(b::text))`,
		`CREATE INDEX ON t (b, c) INCLUDE (a)`,
		`CREATE UNIQUE INDEX ON t ((a + 1), lower(c::text), lower(b::text))`,
		`CREATE INDEX ON t ((b::text))`,
		`CREATE INDEX ON t (coalesce(a, 0))`,
		`ALTER TABLE t ADD UNIQUE (c) INCLUDE (a)`,
	},
	"clashes": {
		`CREATE TABLE t_a_key (x int)`,
		`CREATE TABLE t_pkey (x int)`,
		`CREATE TABLE t (id int PRIMARY KEY, a int UNIQUE, b int)`,
		`ALTER TABLE t ADD UNIQUE (a)`,
		`CREATE INDEX ON t (a)`,
		`CREATE INDEX ON t (a)`,
		`ALTER TABLE t ADD CHECK (a > 0)`,
		`ALTER TABLE t ADD CHECK (a > 0)`,
		`CREATE TABLE u (a int, b int, CONSTRAINT u_a_key CHECK (a > 0), UNIQUE (a), CONSTRAINT u_b_idx CHECK (b > 0))`,
		`CREATE INDEX ON u (b)`,
	},
	"long names": {
		`CREATE TABLE ` + strings.Repeat("x", 60) + ` (` + strings.Repeat("c", 50) + ` int UNIQUE, ` + strings.Repeat("d", 50) + ` int, id int PRIMARY KEY, CHECK (` + strings.Repeat("d", 50) + ` > 0))`,
		`CREATE INDEX ON ` + strings.Repeat("x", 60) + ` (` + strings.Repeat("c", 50) + `, ` + strings.Repeat("d", 50) + `)`,
		`CREATE UNIQUE INDEX ON ` + strings.Repeat("x", 60) + ` (` + strings.Repeat("c", 50) + `, ` + strings.Repeat("d", 50) + `)`,
		`CREATE TABLE short (` + strings.Repeat("q", 63) + ` int UNIQUE)`,
	},
	"multi-byte": {
		`CREATE TABLE "` + strings.Repeat("é", 25) + `" ("` + strings.Repeat("ü", 20) + `" int UNIQUE, "ß" int, id int PRIMARY KEY)`,
		`CREATE INDEX ON "` + strings.Repeat("é", 25) + `" ("` + strings.Repeat("ü", 20) + `", "ß")`,
		`CREATE TABLE "Ærø" ("Größe" int UNIQUE, CHECK ("Größe" > 0))`,
		`CREATE TABLE "` + strings.Repeat("ж", 31) + `" (a int PRIMARY KEY)`,
	},
	"partitions and like": {
		`CREATE TABLE p (a int, b text, c int, CONSTRAINT pck CHECK (c > 0), UNIQUE (a, b) INCLUDE (c), CHECK (a > 1)) PARTITION BY LIST (a)`,
		`CREATE UNIQUE INDEX ON p (a, lower(b))`,
		`CREATE INDEX ON p ((b || 'x'))`,
		`CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1)`,
		`CREATE TABLE p2 (a int, b text, c int, CONSTRAINT pck CHECK (c > 0), CONSTRAINT p_a_check CHECK (a > 1))`,
		`CREATE INDEX ON p2 (a, lower(b))`,
		`ALTER TABLE p ATTACH PARTITION p2 FOR VALUES IN (2)`,
		`CREATE TABLE l (LIKE p INCLUDING ALL)`,
		`CREATE TABLE l2 (LIKE p INCLUDING INDEXES)`,
		`CREATE TABLE l3 (LIKE p)`,
	},
	"drop and rename by generated name": {
		`CREATE TABLE t (a int UNIQUE, b int, CHECK (b > 0))`,
		`ALTER TABLE t DROP CONSTRAINT t_a_key`,
		`ALTER TABLE t DROP CONSTRAINT t_b_check`,
		`CREATE INDEX ON t (a)`,
		`ALTER INDEX t_a_idx RENAME TO t_a_renamed`,
		`CREATE INDEX ON t (a)`,
		`CREATE UNIQUE INDEX ON t (b)`,
		`DROP INDEX t_b_idx`,
		`ALTER TABLE t ADD PRIMARY KEY (b)`,
		`ALTER TABLE t RENAME CONSTRAINT t_pkey TO t_pk`,
		`ALTER TABLE t ADD UNIQUE (a, b)`,
	},
}

func TestGeneratedNamesMatchServer(t *testing.T) {
	conn := testDB(t)
	i := 0
	for name, stmts := range generatedNameCases {
		i++
		schema := fmt.Sprintf("case%d", i)
		script := append([]string{"CREATE SCHEMA " + schema, "SET search_path = " + schema}, stmts...)
		t.Run(name, func(t *testing.T) {
			execAll(t, conn, script)
			cat := replayAll(t, script)
			gotIx, gotCons := replayedNames(cat, schema)
			wantIx := queryStrings(t, conn, serverIndexNames, schema)
			if len(wantIx) == 0 {
				t.Fatal("the server has no indexes in the schema: the case tests nothing")
			}
			if d := diffLists(wantIx, gotIx); d != "" {
				t.Errorf("index names differ:\n%s", d)
			}
			if d := diffLists(queryStrings(t, conn, serverConstraintNames, schema), gotCons); d != "" {
				t.Errorf("constraint names differ:\n%s", d)
			}
		})
	}
}

// TestIndexNameCacheFollowsReplay replays every fixture and checks after
// each statement that the index-name cache knows exactly the indexes a
// scan of the catalog finds, through drops, renames and schema moves.
func TestIndexNameCacheFollowsReplay(t *testing.T) {
	var paths []string
	for _, pattern := range []string{"../../testdata/rules/*/*.sql", "../../testdata/replay/*.sql", "../../testdata/layouts/*", "../../testdata/examples/*", "../../testdata/suppress"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	checked := 0
	for _, path := range paths {
		cat := catalog.New()
		r := NewReplayer(cat)
		parse.Load([]string{path}, parse.LoadOptions{Apply: func(p *parse.Parsed) []scan.Diagnostic {
			st, diags := p.Statement, r.ApplyParsed(p)
			r.indexNames.sync(cat)
			cached := 0
			for _, names := range r.indexNames.bySchema {
				cached += len(names)
			}
			known := 0
			for _, s := range cat.Schemas {
				for _, tb := range s.Tables {
					for _, ix := range tb.Indexes {
						if got := r.indexTable(s, ix.Name); got != tb {
							t.Errorf("%s: after %q the cache has no index %s.%s", st.Pos, scan.Excerpt(st.Text, 40), s.Name, ix.Name)
						}
						known++
					}
				}
				for _, name := range relationNames(s) {
					if got, want := r.relationExists(s, name), s.RelationExists(name); got != want {
						t.Errorf("%s: after %q relationExists(%s.%s) = %v, Schema.RelationExists %v", st.Pos, scan.Excerpt(st.Text, 40), s.Name, name, got, want)
					}
				}
			}
			if cached != known {
				t.Errorf("%s: after %q the cache holds %d index names, the catalog %d", st.Pos, scan.Excerpt(st.Text, 40), cached, known)
			}
			checked++
			return diags
		}})
	}
	if checked < 100 {
		t.Errorf("only %d statements checked", checked)
	}
}

// relationNames lists every name the schema's relations take, and names
// that are not taken.
func relationNames(s *catalog.Schema) []string {
	names := []string{"no_such_relation", "accounts_seq"}
	for name, tb := range s.Tables {
		names = append(names, name, name+"_pkey", name+"_id_seq")
		for _, ix := range tb.Indexes {
			names = append(names, ix.Name)
		}
	}
	for name := range s.Sequences {
		names = append(names, name)
	}
	return names
}
