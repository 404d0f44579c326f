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

// TestNameMapFollowsReplay replays every fixture and checks after each
// statement that the catalog's name map answers as a scan of the catalog
// does, through drops, renames and schema moves: every index is found on
// its table, and every name is taken (or free) as a relation and as a
// constraint exactly when some object has it.
func TestNameMapFollowsReplay(t *testing.T) {
	var paths []string
	for _, pattern := range []string{"../../testdata/rules/*/*.sql", "../../testdata/replay/*.sql", "../../testdata/layouts/*", "../../testdata/examples/*", "../../testdata/suppress"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	checked, indexes := 0, 0
	for _, path := range paths {
		cat := catalog.New()
		r := NewReplayer(cat)
		// Every name seen in a schema stays a candidate, so that a name
		// the map forgot to let go of shows after its object is gone.
		seen := map[string]map[string]bool{}
		parse.Load([]string{path}, parse.LoadOptions{Apply: func(p *parse.Parsed) []scan.Diagnostic {
			st, diags := p.Statement, r.ApplyParsed(p)
			after := func() string { return fmt.Sprintf("%s: after %q", st.Pos, scan.Excerpt(st.Text, 40)) }
			for _, s := range cat.Schemas {
				relations, constraints := scanNames(s)
				for _, tb := range s.Tables {
					for _, ix := range tb.Indexes {
						if got, _ := s.FindIndex(ix.Name); got != tb {
							t.Errorf("%s FindIndex(%s.%s) finds no index of %s", after(), s.Name, ix.Name, tb.Name)
						}
						indexes++
					}
				}
				if seen[s.Name] == nil {
					seen[s.Name] = map[string]bool{}
				}
				for _, name := range candidateNames(s) {
					seen[s.Name][name] = true
				}
				for name := range seen[s.Name] {
					if got, want := s.RelationExists(name), relations[name]; got != want {
						t.Errorf("%s RelationExists(%s.%s) = %v, a scan says %v", after(), s.Name, name, got, want)
					}
					if got, want := s.ConstraintExists(name), constraints[name]; got != want {
						t.Errorf("%s ConstraintExists(%s.%s) = %v, a scan says %v", after(), s.Name, name, got, want)
					}
					if _, ix := s.FindIndex(name); ix != nil && ix.Name != name {
						t.Errorf("%s FindIndex(%s.%s) found %s", after(), s.Name, name, ix.Name)
					}
				}
			}
			checked++
			return diags
		}})
	}
	if checked < 100 || indexes < 100 {
		t.Errorf("only %d statements and %d indexes checked", checked, indexes)
	}
}

// scanNames finds, by looking at every object, the names the schema's
// relations and constraints take.
func scanNames(s *catalog.Schema) (relations, constraints map[string]bool) {
	relations, constraints = map[string]bool{}, map[string]bool{}
	for name, tb := range s.Tables {
		relations[name] = true
		for _, ix := range tb.Indexes {
			relations[ix.Name] = true
			if ix.Constraint != "" {
				constraints[ix.Constraint] = true
			}
		}
		for _, ck := range tb.Checks {
			constraints[ck.Name] = true
		}
		for _, fk := range tb.ForeignKeys {
			constraints[fk.Name] = true
		}
	}
	for name := range s.Sequences {
		relations[name] = true
	}
	return relations, constraints
}

// candidateNames lists every name the schema's objects take, and names
// that are not taken, or no longer.
func candidateNames(s *catalog.Schema) []string {
	names := []string{"no_such_relation", "accounts_seq"}
	for name, tb := range s.Tables {
		names = append(names, name, name+"_pkey", name+"_id_seq", name+"_id_check")
		for _, ix := range tb.Indexes {
			names = append(names, ix.Name, ix.Name+"_old")
		}
		for _, ck := range tb.Checks {
			names = append(names, ck.Name)
		}
		for _, fk := range tb.ForeignKeys {
			names = append(names, fk.Name)
		}
	}
	for name := range s.Sequences {
		names = append(names, name)
	}
	return names
}
