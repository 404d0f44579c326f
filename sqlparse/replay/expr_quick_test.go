package replay

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// eachNode calls fn on every expression node of a parse tree.
func eachNode(m protoreflect.Message, fn func(*pg.Node)) {
	if n, ok := m.Interface().(*pg.Node); ok {
		fn(n)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				eachNode(v.List().Get(i).Message(), fn)
			}
		case fd.Message() != nil && !fd.IsMap():
			eachNode(v.Message(), fn)
		}
		return true
	})
}

// quickDeparse writes what the deparser writes, for every node of every
// fixture statement it takes, and for a set of written expressions.
func TestQuickDeparseMatchesDeparser(t *testing.T) {
	var texts []string
	err := filepath.WalkDir(filepath.Join("..", "..", "testdata"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".sql") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, st := range scan.Split(scan.Input{Path: path, Text: string(data)}).Statements {
			texts = append(texts, st.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"0", "1", "-1", "2147483647", "-2147483648", "9999999999", "1.5", "true", "false", "NULL",
		"now()", "gen_random_uuid()", "\"Now\"()", "pg_catalog.now()", "uuid_generate_v4()", "f(1)", "count(*)",
		"user()", "current_user", "\"select\"()", "left()", "xmin()", "f1_x()", "_f()", "coalesce()", "'x'", "''::text",
		"nextval('s'::regclass)", "extract(epoch from now())", "trim(both from 'x')", "f() over ()", "(1)", "((true))",
		"'new'::character varying", "'{}'::jsonb", "'{}'::character varying[]", "'a'::public.kind", "NULL::text", "0.0", "12.50",
		"'-1'::integer", "'x'::character varying(20)", "nextval('public.t_id_seq'::regclass)", "'2020-01-01'::timestamp without time zone",
		"'x'::timestamp(6) with time zone", "'x'::timestamp(6) without time zone", "'x'::timestamp with time zone", "'it''s'::text",
		"'a'::\"Kind\"", "'a'::Public.Kind", "'1'::numeric(10,2)", "'t'::boolean", "'0'::bigint", "'x'::double precision",
		"'x'::smallint", "'x'::real", "1::numeric", "1.5::numeric", "'x'::text::character varying", "'x'::bpchar", "'x'::character(3)",
		"'x'::uuid", "'{a,b}'::text[]", "'x'::integer[][]", "'x'::integer[3]", "f(1, 'x')", "f(1, g())", "'a\\b'::text", "'é'::text",
		"'a\nb'::text", "'x'::time without time zone", "'x'::time with time zone", "'x'::interval", "'x'::bit(3)", "(-1)::integer",
		"NULL::character varying", "'x'::pg_catalog.varchar", "'x'::pg_catalog.text", "'x'::\"select\"", "'x'::ext.citext",
		"'x'::varchar(1, 2)", "'x'::json", "'x'::date", "B'101'", "X'1f'", "1e5", "'x'::character varying(255)[]",
		"'P0D'::interval", "'{}'::integer[]", "'0'::smallint", "0.00::numeric(30,5)", "'x' COLLATE \"C\""} {
		texts = append(texts, "SELECT "+e)
	}
	taken := 0
	for _, text := range texts {
		tree, err := pg.Parse(text)
		if err != nil {
			continue
		}
		for _, raw := range tree.Stmts {
			eachNode(raw.ProtoReflect(), func(n *pg.Node) {
				got, ok := quickDeparse(n)
				if !ok {
					return
				}
				taken++
				if want := deparserText(n); got != want {
					t.Errorf("%q: quickDeparse writes %q, the deparser %q", text, got, want)
				}
			})
		}
	}
	if taken < 100 {
		t.Errorf("quickDeparse took %d nodes", taken)
	}
	t.Logf("quickDeparse took %d nodes", taken)
}
