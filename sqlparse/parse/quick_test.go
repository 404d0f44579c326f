package parse

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// sameAsParser checks quickParse on text against the parser: when quickParse
// takes the statement, the parser must take it too and give the same tree.
// It reports whether quickParse took it.
func sameAsParser(t *testing.T, where, text string) bool {
	t.Helper()
	quick, ok := quickParse(text)
	if !ok {
		return false
	}
	tree, err := pg.Parse(text)
	if err != nil {
		t.Errorf("%s: quickParse took %q, which the parser refuses: %v", where, text, err)
		return true
	}
	if len(tree.Stmts) != len(quick) {
		t.Errorf("%s: %q: %d statements, the parser gives %d", where, text, len(quick), len(tree.Stmts))
		return true
	}
	for i := range quick {
		if !proto.Equal(quick[i], tree.Stmts[i]) {
			t.Errorf("%s: %q:\n quick  %v\n parser %v", where, text, quick[i], tree.Stmts[i])
		}
	}
	return true
}

// Every statement of the repository's SQL fixtures (and of the trees in
// IDEMCHECK_QUICKPARSE_TREES, a list of paths, when set): quickParse's tree
// is the parser's wherever it takes one.
func TestQuickParseFixtures(t *testing.T) {
	roots := []string{filepath.Join("..", "..", "testdata")}
	if extra := os.Getenv("IDEMCHECK_QUICKPARSE_TREES"); extra != "" {
		roots = append(roots, filepath.SplitList(extra)...)
	}
	taken := 0
	for _, root := range roots {
		taken += quickParseTree(t, root)
	}
	if taken == 0 {
		t.Error("quickParse took no statement of the fixtures")
	}
	t.Logf("quickParse took %d statements of the fixtures", taken)
}

func quickParseTree(t *testing.T, root string) int {
	taken := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".sql") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, st := range scan.Split(scan.Input{Path: path, Text: string(data)}).Statements {
			if sameAsParser(t, path, st.Text) {
				taken++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return taken
}

// Generated forms, those quickParse takes and near misses it must leave to
// the parser (or take exactly as the parser does).
func TestQuickParseForms(t *testing.T) {
	names := []string{"t", "public.t", "db.public.t", "Public.T", "a_b$1", "index", "cascade", "if", "only",
		"select", "user", `"Quoted"`, "t.", ".t", "a.b.c.d", "x" + strings.Repeat("y", 70), "a. b", "tä", "t1", "_t"}
	tails := []string{"", " CASCADE", " restrict", " cascade restrict", "\n\tCASCADE  \n", " , u", " -- c", "/* c */", " ;"}
	var stmts []string
	for _, n := range names {
		for _, tail := range tails {
			for _, kind := range []string{"TABLE", "INDEX", "view", "Sequence", "TYPE", "MATERIALIZED VIEW", "INDEX CONCURRENTLY"} {
				for _, ifx := range []string{"", "IF EXISTS ", "if  exists\n", "IF "} {
					stmts = append(stmts, "DROP "+kind+" "+ifx+n+tail)
				}
			}
			for _, ifx := range []string{"", "IF EXISTS ", "IF EXISTS ONLY ", "ONLY ", "ONLY IF EXISTS "} {
				for _, cmd := range []string{"DROP CONSTRAINT c", "DROP CONSTRAINT IF EXISTS c", "drop constraint " + n,
					"ALTER COLUMN c DROP DEFAULT", "ALTER c DROP DEFAULT", "ALTER COLUMN " + n + " DROP DEFAULT",
					"ALTER COLUMN c SET DEFAULT 1", "DROP COLUMN c", "DROP CONSTRAINT c, DROP CONSTRAINT d"} {
					stmts = append(stmts, "ALTER TABLE "+ifx+n+" "+cmd+tail)
				}
			}
		}
	}
	cols := []string{"(a)", "(a, b)", "(a,b)", "( a )", `("timestamp")`, `("Mixed Case", x)`, `("a""b")`, `("")`, "(select)",
		"(a DESC)", "(lower(a))", "(a) WHERE a > 0", "(a) INCLUDE (b)", "()", "(a", "(a,)", "(index)", "(a) ", `("ä")`}
	for _, n := range names {
		for _, c := range cols {
			for _, head := range []string{"CREATE INDEX i ON ", "CREATE UNIQUE INDEX i ON ", "create index Ix ON ONLY ",
				"CREATE INDEX ON ", "CREATE INDEX CONCURRENTLY i ON ", "CREATE INDEX IF NOT EXISTS i ON ", "CREATE INDEX i ON ONLY "} {
				for _, using := range []string{" ", " USING btree ", " USING gin ", " USING ", "USING btree"} {
					stmts = append(stmts, head+n+using+c)
				}
			}
			for _, head := range []string{"ALTER TABLE ONLY ", "ALTER TABLE ", "ALTER TABLE IF EXISTS "} {
				for _, con := range []string{" ADD CONSTRAINT c PRIMARY KEY ", " ADD CONSTRAINT c UNIQUE ", " add constraint " + n + " unique ",
					" ADD PRIMARY KEY ", " ADD CONSTRAINT c UNIQUE NULLS NOT DISTINCT ", " ADD CONSTRAINT c PRIMARY KEY"} {
					stmts = append(stmts, head+n+con+c)
				}
				for _, ref := range []string{"REFERENCES public.p(id)", "REFERENCES p (id)", "REFERENCES p", "REFERENCES " + n + c,
					"REFERENCES p(id) ON DELETE CASCADE", "REFERENCES p(id) ON DELETE SET NULL", "REFERENCES p(id) ON UPDATE CASCADE ON DELETE RESTRICT",
					"REFERENCES p(id) ON DELETE NO ACTION", "REFERENCES p(id) ON DELETE SET DEFAULT", "REFERENCES p(id) NOT VALID",
					"REFERENCES p(id) ON DELETE CASCADE ON DELETE CASCADE", "REFERENCES p(id) ON DELETE SET NULL (a)", "REFERENCES p(id) DEFERRABLE",
					"REFERENCES p(id) MATCH FULL", "REFERENCES p(id) ON DELETE", "REFERENCES p(id) NOT", "REFERENCES p(id) ON DELETE CASCADE NOT VALID"} {
					stmts = append(stmts, head+n+" ADD CONSTRAINT fk FOREIGN KEY "+c+" "+ref)
				}
			}
		}
	}
	taken := 0
	for _, s := range stmts {
		if sameAsParser(t, "generated", s) {
			taken++
		}
	}
	if taken < 500 {
		t.Errorf("quickParse took %d of %d generated statements", taken, len(stmts))
	}
	t.Logf("quickParse took %d of %d generated statements", taken, len(stmts))
}
