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
		"(a DESC)", "(lower(a))", "(a) WHERE a > 0", "(a) INCLUDE (b)", "()", "(a", "(a,)", "(index)", "(a) ", `("ä")`,
		"(a) WHERE (deleted_at IS NULL)", "(a, b) WHERE ((a IS NOT NULL) AND (b > 0))", "(a) WHERE", "(a) WHERE a, b", "(a) WHERE *",
		"(a) WHERE a b", "(a) WHERE (kind)::text = 'x'::text", "(a) WHERE a ORDER BY a", "(a) where -- c\n a",
		"(a) WHERE deleted_at IS NULL", "(a) WHERE ((a IS NOT NULL) AND (b IS NULL))", "(a) WHERE a IS NULL AND b IS NULL AND c IS NOT NULL",
		"(a) WHERE (a IS NULL AND (b IS NULL AND c IS NULL))", "(a) WHERE ((a IS NULL AND b IS NULL) AND c IS NULL)",
		"(a) WHERE a IS NULL OR b IS NULL", "(a) WHERE NOT a IS NULL", "(a) WHERE \"Deleted\" IS NULL", "(a) WHERE t.a IS NULL",
		"(a) WHERE a IS NOT", "(a) WHERE (a IS NULL", "(a) WHERE a IS NULL)", "(a) WHERE select IS NULL", "(a) WHERE a ISNULL",
		"(a) WHERE a IS DISTINCT FROM NULL", "(a) WHERE (a IS NULL) AND", "(a) WHERE a IS NULL and b is not null"}
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

// CREATE TABLE: every column type, default and spelling below, alone and
// with its neighbours, is either left to the parser or given the parser's
// tree; the forms a dump writes must be taken.
func TestQuickParseCreateTable(t *testing.T) {
	types := []string{"uuid", "bigint", "integer", "int", "smallint", "boolean", "real", "double precision", "double",
		"numeric", "numeric(30,5)", "numeric( 30 , 5 )", "decimal(10)", "character varying", "character varying(255)", "varchar(3)",
		"character", "char(2)", "text", "jsonb", "json", "date", "bytea", "inet", "citext", "public.kind", "Public.Kind",
		"timestamp", "timestamp(6) without time zone", "timestamp with time zone", "timestamp without time zone",
		"timestamp(3) with time zone", "time", "time without time zone", "time with time zone", "interval", "bit(3)",
		"text[]", "character varying[]", "integer[][]", "integer[3]", "integer []", "public.vector(1536)", "x.y.z",
		"select", "user", "ext.citext", "numeric(1.5)", "varchar(-1)", "double  precision", "timestamp without zone",
		"national character varying", `"char"`, "setof integer", "integer ARRAY"}
	defaults := []string{"", " DEFAULT 0", " DEFAULT 42", " DEFAULT 2147483647", " DEFAULT 2147483648", " DEFAULT 0.0",
		" DEFAULT 1.5", " DEFAULT 1e5", " DEFAULT .5", " DEFAULT 5.", " DEFAULT -1", " DEFAULT '-1'::integer", " DEFAULT true",
		" DEFAULT false", " DEFAULT NULL", " DEFAULT NULL::text", " DEFAULT 'x'", " DEFAULT 'it''s'::character varying",
		" DEFAULT ''::text", " DEFAULT '{}'::jsonb", " DEFAULT '{}'::character varying[]", " DEFAULT 'a'::public.kind",
		" DEFAULT 'a\\b'::text", " DEFAULT E'a'", " DEFAULT 'a'\n'b'", " DEFAULT 'a' 'b'", " DEFAULT gen_random_uuid()",
		" DEFAULT now()", " DEFAULT pg_catalog.now()", " DEFAULT nextval('public.t_id_seq'::regclass)",
		" DEFAULT f(1, 'x', g())", " DEFAULT f(1,)", " DEFAULT CURRENT_TIMESTAMP", " DEFAULT coalesce(1, 2)",
		" DEFAULT ('x'::text)", " DEFAULT 'x'::text::character varying", " DEFAULT 1 + 1", " DEFAULT x", " DEFAULT",
		" DEFAULT 'unterminated", " DEFAULT 0::numeric(10,2)", " DEFAULT 'x' :: text"}
	nulls := []string{"", " NOT NULL", " not null", " NULL", " NOT  NULL", " NOT"}
	names := []string{"a", "A", `"Order"`, `"order"`, "order", "select", "a$b", `"a""b"`, `"ä"`, "_x"}
	var stmts []string
	for i, ty := range types {
		for j, d := range defaults {
			for k, n := range nulls {
				name := names[(i+j+k)%len(names)]
				stmts = append(stmts, "CREATE TABLE public.t (\n    "+name+" "+ty+d+n+"\n)")
			}
		}
	}
	for _, head := range []string{"CREATE TABLE t", "CREATE TABLE IF NOT EXISTS t", "create table db.public.t", "CREATE TABLE ONLY t",
		"CREATE UNLOGGED TABLE t", "CREATE TEMP TABLE t", "CREATE TABLE IF EXISTS t", "CREATE TABLE t.", "CREATE TABLE select"} {
		for _, body := range []string{"(a integer)", " (a integer, b text)", " (\n    a integer NOT NULL DEFAULT 0,\n    b text\n)",
			" ()", " (a integer,)", " (a integer) PARTITION BY RANGE (a)", " (a integer) WITH (fillfactor=70)",
			" (a integer, CONSTRAINT c CHECK (a > 0))", " (a integer PRIMARY KEY)", " (a integer REFERENCES p)", " (a text COLLATE \"C\")",
			" (a integer GENERATED ALWAYS AS IDENTITY)", " (LIKE p)", " (a integer) INHERITS (p)", " (a integer -- c\n)", " (a integer",
			" (a integer, CONSTRAINT c CHECK ((a > 0)))", " (a integer,\n    CONSTRAINT \"C\" CHECK (a IN (1, 2)),\n    CONSTRAINT d CHECK ((a)::text <> ''::text))",
			" (a integer, CONSTRAINT c CHECK (a > 0) NOT VALID)", " (a integer, CONSTRAINT c CHECK (a > 0) NO INHERIT)",
			" (a integer, CONSTRAINT c CHECK (a, a))", " (a integer, CONSTRAINT c CHECK (a AS b))", " (a integer, CONSTRAINT c CHECK (*))",
			" (a integer, CONSTRAINT c CHECK (a > 0 -- )\n))", " (a integer, CONSTRAINT c CHECK (a <> $$)$$))", " (a integer, CONSTRAINT c CHECK (a <> ')'))",
			" (a integer, CONSTRAINT c CHECK (a <> E'\\')'))", " (a integer, CONSTRAINT c CHECK ((a > 0))", " (a integer, CONSTRAINT select CHECK (a > 0))",
			" (a integer, CONSTRAINT c CHECK (a > 0) DEFERRABLE)", " (a integer, CONSTRAINT c UNIQUE (a))", " (a integer, CONSTRAINT c CHECK (a FROM b))",
			" (a integer, CONSTRAINT c CHECK (a > 0), b text)", " (a integer, CONSTRAINT c CHECK (\"a)\" > 0))", " (a integer, CONSTRAINT c CHECK (a > 0 ORDER BY 1))"} {
			stmts = append(stmts, head+body)
		}
	}
	taken := 0
	for _, s := range stmts {
		if sameAsParser(t, "generated", s) {
			taken++
		}
	}
	if taken < 2000 {
		t.Errorf("quickParse took %d of %d generated CREATE TABLE statements", taken, len(stmts))
	}
	t.Logf("quickParse took %d of %d generated CREATE TABLE statements", taken, len(stmts))
	for _, dump := range []string{
		"CREATE TABLE public.t (\n    id uuid DEFAULT gen_random_uuid() NOT NULL,\n    s character varying DEFAULT 'new'::character varying,\n    at timestamp(6) without time zone NOT NULL\n)",
		"CREATE TABLE public.t (\n    id bigint DEFAULT nextval('public.t_id_seq'::regclass) NOT NULL,\n    n numeric(30,5) DEFAULT 0.0 NOT NULL,\n    tags character varying[] DEFAULT '{}'::character varying[]\n)",
	} {
		if _, ok := quickParse(dump); !ok {
			t.Errorf("quickParse left a pg_dump table to the parser:\n%s", dump)
		}
	}
}
