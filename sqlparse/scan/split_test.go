package scan

import (
	"fmt"
	"strings"
	"testing"
)

// splitPlain splits src as a plain file named m.sql.
func splitPlain(src string) SplitResult {
	return Split(Input{Path: "m.sql", Text: src})
}

// texts returns the statements' texts.
func texts(r SplitResult) []string {
	var out []string
	for _, s := range r.Statements {
		out = append(out, s.Text)
	}
	return out
}

func assertTexts(t *testing.T, r SplitResult, want ...string) {
	t.Helper()
	got := texts(r)
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("statements:\n got %q\nwant %q", got, want)
	}
}

// diagStrings formats diagnostics as "level line:col message".
func diagStrings(r SplitResult) []string {
	var out []string
	for _, d := range r.Diagnostics {
		out = append(out, fmt.Sprintf("%s %d:%d %s", d.Level, d.Pos.Line, d.Pos.Col, d.Message))
	}
	return out
}

func TestSplitPositions(t *testing.T) {
	src := "-- leading comment\n" +
		"/* block */ CREATE TABLE a (id int);\n" +
		"  CREATE TABLE b (x int); CREATE TABLE c (y int);\n" +
		"-- ünïcödé\n" +
		"SELECT 'é'; SELECT 1\n"
	r := splitPlain(src)
	assertTexts(t, r, "CREATE TABLE a (id int)", "CREATE TABLE b (x int)", "CREATE TABLE c (y int)", "SELECT 'é'", "SELECT 1")
	want := [][2]int{{2, 13}, {3, 3}, {3, 27}, {5, 1}, {5, 13}}
	for i, st := range r.Statements {
		if st.Pos.Line != want[i][0] || st.Pos.Col != want[i][1] || st.Pos.File != "m.sql" || st.File != "m.sql" {
			t.Errorf("statement %d %q at %v, want m.sql:%d:%d", i, st.Text, st.Pos, want[i][0], want[i][1])
		}
		if src[st.Offset:st.Offset+len(st.Text)] != st.Text {
			t.Errorf("statement %d: Offset %d does not point at its text", i, st.Offset)
		}
	}
	if c := r.Statements[0].Comments; len(c) != 2 || c[0].Text != " leading comment" || c[1].Text != " block " || c[1].Pos.Col != 1 {
		t.Errorf("comments of the first statement = %+v", c)
	}
	if c := r.Statements[3].Comments; len(c) != 1 || c[0].Pos.Line != 4 {
		t.Errorf("comments of SELECT 'é' = %+v", c)
	}
	if len(r.Statements[1].Comments) != 0 {
		t.Errorf("statement b has no comments above it, got %+v", r.Statements[1].Comments)
	}
	if len(r.Comments) != 3 {
		t.Errorf("file comments = %+v", r.Comments)
	}
	// PosAt maps an offset inside the statement to the file position.
	st := r.Statements[2]
	if p := st.PosAt(strings.Index(st.Text, "y int")); p.Line != 3 || p.Col != 43 {
		t.Errorf("PosAt = %v, want 3:43", p)
	}
}

func TestSplitQuotes(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"dollar quotes with semicolons",
			"CREATE FUNCTION f() RETURNS int AS $fn$ BEGIN; RETURN 1; END; $fn$ LANGUAGE plpgsql; SELECT $$a;b$$;",
			[]string{"CREATE FUNCTION f() RETURNS int AS $fn$ BEGIN; RETURN 1; END; $fn$ LANGUAGE plpgsql", "SELECT $$a;b$$"}},
		{"dollar tag inside another dollar quote",
			"SELECT $a$ $b$ ; $a$; SELECT 2",
			[]string{"SELECT $a$ $b$ ; $a$", "SELECT 2"}},
		{"parameters are not dollar quotes",
			"PREPARE p AS SELECT $1; SELECT a$b FROM t;",
			[]string{"PREPARE p AS SELECT $1", "SELECT a$b FROM t"}},
		{"nested comments",
			"/* outer /* inner; */ still; */ SELECT 1; SELECT /* x; */ 2;",
			[]string{"SELECT 1", "SELECT /* x; */ 2"}},
		{"E strings with backslash escapes",
			`SELECT E'it\'s; here'; SELECT 'a\'; SELECT e'\\'; SELECT 4;`,
			[]string{`SELECT E'it\'s; here'`, `SELECT 'a\'`, `SELECT e'\\'`, "SELECT 4"}},
		{"doubled quotes and quoted identifiers",
			`CREATE TABLE "we;ird""" (x text DEFAULT 'it''s; fine'); SELECT 2;`,
			[]string{`CREATE TABLE "we;ird""" (x text DEFAULT 'it''s; fine')`, "SELECT 2"}},
		{"line comment with semicolon inside a statement",
			"SELECT 1 -- not the end;\n, 2;",
			[]string{"SELECT 1 -- not the end;\n, 2"}},
		{"empty statements are dropped",
			";; SELECT 1;;;\n;",
			[]string{"SELECT 1"}},
		{"BEGIN ATOMIC body",
			"CREATE FUNCTION add(a int, b int) RETURNS int LANGUAGE SQL\nBEGIN ATOMIC\n  SELECT CASE WHEN a > 0 THEN a END;\n  SELECT a + b;\nEND;\n" +
				"CREATE OR REPLACE PROCEDURE p() BEGIN ATOMIC INSERT INTO t VALUES (1); END;\n" +
				"CREATE TABLE t (\"begin\" int, \"end\" int);\nBEGIN;\nCOMMIT;",
			[]string{"CREATE FUNCTION add(a int, b int) RETURNS int LANGUAGE SQL\nBEGIN ATOMIC\n  SELECT CASE WHEN a > 0 THEN a END;\n  SELECT a + b;\nEND",
				"CREATE OR REPLACE PROCEDURE p() BEGIN ATOMIC INSERT INTO t VALUES (1); END",
				"CREATE TABLE t (\"begin\" int, \"end\" int)", "BEGIN", "COMMIT"}},
		{"casts and slices are not psql variables",
			"SELECT a::int, b[1:n], c[lo:hi] FROM t;",
			[]string{"SELECT a::int, b[1:n], c[lo:hi] FROM t"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := splitPlain(c.src)
			if len(r.Diagnostics) != 0 {
				t.Errorf("diagnostics: %v", r.Diagnostics)
			}
			assertTexts(t, r, c.want...)
		})
	}
}

func TestSplitSkipsNonSQL(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // statements kept
		note      string   // the one diagnostic
	}{
		{"meta-command", "\\connect billing\nSELECT 1;", []string{"SELECT 1"}, `note 1:1 skipped psql meta-command \connect`},
		{"indented meta-command", "SELECT 1;\n  \\set ON_ERROR_STOP on\n", []string{"SELECT 1"}, `note 2:3 skipped psql meta-command \set`},
		{"restrict", "\\restrict abc123\nSELECT 1;\n", []string{"SELECT 1"}, `note 1:1 skipped psql meta-command \restrict`},
		{"include", "SELECT 1;\n\\i other.sql\nSELECT 2;", []string{"SELECT 1", "SELECT 2"}, `note 2:1 skipped psql meta-command \i`},
		{"gexec ends the statement", "SELECT 'CREATE DATABASE x' \\gexec\nSELECT 2;", []string{"SELECT 'CREATE DATABASE x'", "SELECT 2"}, `note 1:28 skipped psql meta-command \gexec`},
		{"go template", "CREATE TABLE {{ .Schema }}.t (id int);\nSELECT 2;", []string{"SELECT 2"}, `note 1:14 skipped the statement starting at line 1: it contains template placeholder {{ .Schema }}`},
		{"flyway placeholder", "SELECT 1;\nCREATE TABLE ${schema}.t (id int);", []string{"SELECT 1"}, `note 2:14 skipped the statement starting at line 2: it contains template placeholder ${schema}`},
		{"template comment inside a statement", "CREATE INDEX i ON t /* TEMPLATE: cols */;\nSELECT 2;", []string{"SELECT 2"}, `note 1:21 skipped the statement starting at line 1: it contains template placeholder /* TEMPLATE: cols */`},
		{"template comment alone", "/* TEMPLATE: extra_indexes */\nSELECT 2;", []string{"SELECT 2"}, `note 1:1 skipped template placeholder /* TEMPLATE: extra_indexes */`},
		{"copy naming a psql variable", "COPY :\"schema\".t (a) FROM stdin;\n1;\n\\.\nSELECT 2;", []string{"SELECT 2"}, `note 1:1 skipped COPY ... FROM stdin and its 1 data lines`},
		{"copy data", "SELECT 1;\nCOPY public.t (a, b) FROM stdin;\n1\t;x\n2\t'\n\\.\nSELECT 2;", []string{"SELECT 1", "SELECT 2"}, `note 2:1 skipped COPY ... FROM stdin and its 2 data lines`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := splitPlain(c.src)
			assertTexts(t, r, c.want...)
			got := diagStrings(r)
			if len(got) != 1 || got[0] != c.note {
				t.Errorf("diagnostics = %q, want %q", got, c.note)
			}
		})
	}
}

func TestSplitUnterminated(t *testing.T) {
	cases := []struct {
		name, src, err string
	}{
		{"dollar quote", "SELECT 1;\nCREATE FUNCTION f() AS $body$ SELECT 2;\n", `error 2:24 unterminated dollar-quoted string $body$ starting at m.sql:2:24`},
		{"single quote", "SELECT 1;\nSELECT 'abc;\nSELECT 3;", `error 2:8 unterminated quoted string starting at m.sql:2:8`},
		{"escape string", "SELECT 1;\nSELECT E'abc\\';", `error 2:9 unterminated escape string starting at m.sql:2:9`},
		{"quoted identifier", "SELECT 1; SELECT \"x;", `error 1:18 unterminated quoted identifier starting at m.sql:1:18`},
		{"comment between statements", "SELECT 1;\n/* never /* closed */\nSELECT 2;", `error 2:1 unterminated comment starting at m.sql:2:1`},
		{"comment inside a statement", "SELECT 1;\nSELECT /* x", `error 2:8 unterminated comment starting at m.sql:2:8`},
		{"copy without end", "SELECT 1;\nCOPY t FROM stdin;\n1\n", `error 2:1 COPY ... FROM stdin has no \. line ending its data; the rest of the file is not read`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := splitPlain(c.src)
			assertTexts(t, r, "SELECT 1")
			got := diagStrings(r)
			if len(got) != 1 || !strings.HasPrefix(got[0], c.err) {
				t.Errorf("diagnostics = %q, want %q", got, c.err)
			}
		})
	}
}

func TestSplitBadBytes(t *testing.T) {
	r := splitPlain("SELECT 1;\nSELECT '\xff';\nSELECT 2\x00;\nSELECT 3;")
	assertTexts(t, r, "SELECT 1", "SELECT 3")
	got := diagStrings(r)
	if len(got) != 2 || !strings.HasPrefix(got[0], "error 2:9 invalid UTF-8 byte 0xff") || !strings.HasPrefix(got[1], "error 3:9 NUL byte") {
		t.Errorf("diagnostics = %q", got)
	}
}
