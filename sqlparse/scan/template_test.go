package scan

import (
	"strings"
	"testing"
)

// splitFilled fills the placeholders of src with vars and splits it, as
// Load does.
func splitFilled(src string, vars Vars) SplitResult {
	in := Fill(Input{Path: "m.sql", Text: src}, vars)
	return Split(in)
}

func TestTemplateValues(t *testing.T) {
	vars := Vars{"Namespace": "auth", "schema": "billing", "owner": "o'brien", "role": `Ad"min`, "n": "42"}
	cases := []struct {
		name, src string
		want      []string
	}{
		{"top-level field", "CREATE TABLE {{ .Namespace }}.users (id int);",
			[]string{"CREATE TABLE auth.users (id int)"}},
		{"index .Options", `CREATE TABLE {{ index .Options "Namespace" }}.users (id int);`,
			[]string{"CREATE TABLE auth.users (id int)"}},
		{".Options field", "CREATE TABLE {{.Options.Namespace}}.users (id int);",
			[]string{"CREATE TABLE auth.users (id int)"}},
		{"inside a quoted identifier", `ALTER TABLE "{{ index .Options "Namespace" }}"."users" ADD COLUMN x int;`,
			[]string{`ALTER TABLE "auth"."users" ADD COLUMN x int`}},
		{"inside a dollar-quoted body", `DO $$ BEGIN ALTER TABLE {{ index .Options "Namespace" }}.users ADD COLUMN x int; END $$;`,
			[]string{`DO $$ BEGIN ALTER TABLE auth.users ADD COLUMN x int; END $$`}},
		{"template comment", "{{/* made by the runner */}}CREATE TABLE t (id int);",
			[]string{"CREATE TABLE t (id int)"}},
		{"flyway", "CREATE TABLE ${schema}.invoices (id int);",
			[]string{"CREATE TABLE billing.invoices (id int)"}},
		{"psql variables", "ALTER TABLE t OWNER TO :\"role\"; COMMENT ON TABLE t IS :'owner'; SELECT :n;",
			[]string{`ALTER TABLE t OWNER TO "Ad""min"`, `COMMENT ON TABLE t IS 'o''brien'`, "SELECT 42"}},
		{"psql variables only in code", "SELECT ':n', $$ :n $$, \":n\" /* :n */, a::n, b[1:n], c[lo:n], d[:n], f(x := 1); -- :n",
			[]string{`SELECT ':n', $$ :n $$, ":n" /* :n */, a::n, b[1:n], c[lo:n], d[:n], f(x := 1)`}},
		{"control action with values", "{{ if eq .schema \"billing\" }}CREATE TABLE yes (id int);{{ else }}CREATE TABLE no (id int);{{ end }}\nSELECT 2;",
			[]string{"CREATE TABLE yes (id int)", "SELECT 2"}},
		{"array literal is not a template", "SELECT '{{1,2},{3,4}}'::int[];",
			[]string{"SELECT '{{1,2},{3,4}}'::int[]"}},
		{"mustache in a string is not a template", "INSERT INTO mail VALUES ('Hello {{name}}');",
			[]string{"INSERT INTO mail VALUES ('Hello {{name}}')"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := splitFilled(c.src, vars)
			assertTexts(t, r, c.want...)
			if len(r.Diagnostics) != 0 {
				t.Errorf("diagnostics: %q", diagStrings(r))
			}
		})
	}
}

// Without values each placeholder becomes a stand-in identifier, with one
// note per placeholder per file, so that the statement is still read.
func TestTemplateStandIns(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
		notes     []string
	}{
		{"go template", "CREATE TABLE {{ .Namespace }}.t (id int);\nCREATE INDEX i ON {{ .Namespace }}.t (id);",
			[]string{"CREATE TABLE namespace.t (id int)", "CREATE INDEX i ON namespace.t (id)"},
			[]string{"note 1:14 template placeholder {{ .Namespace }} has no value: the stand-in namespace is used; pass --var Namespace=VALUE (2 places in this file)"}},
		{"quoted and unquoted name one schema", `CREATE TABLE {{ index .Options "Namespace" }}.t (id int); ALTER TABLE "{{ index .Options "Namespace" }}"."t" ADD x int;`,
			[]string{"CREATE TABLE namespace.t (id int)", `ALTER TABLE "namespace"."t" ADD x int`},
			[]string{`note 1:14 template placeholder {{ index .Options "Namespace" }} has no value: the stand-in namespace is used; pass --var Namespace=VALUE (2 places in this file)`}},
		{"keyword is quoted", "CREATE TABLE ${user}.t (id int);",
			[]string{`CREATE TABLE "user".t (id int)`},
			[]string{`note 1:14 template placeholder ${user} has no value: the stand-in "user" is used; pass --var user=VALUE`}},
		{"part of an identifier", "CREATE TABLE {{ .Prefix }}_users (id int);",
			[]string{"CREATE TABLE prefix_users (id int)"},
			[]string{"note 1:14 template placeholder {{ .Prefix }} has no value: the stand-in prefix is used; pass --var Prefix=VALUE"}},
		{"psql", "ALTER SCHEMA s OWNER TO :\"role\";\nCOMMENT ON SCHEMA s IS :'why';\nCREATE TABLE t (x int DEFAULT :dflt);",
			[]string{`ALTER SCHEMA s OWNER TO "role"`, "COMMENT ON SCHEMA s IS 'why'", "CREATE TABLE t (x int DEFAULT dflt)"},
			[]string{`note 1:25 psql variable :"role" has no value: the stand-in "role" is used; pass --var role=VALUE`,
				`note 2:24 psql variable :'why' has no value: the stand-in 'why' is used; pass --var why=VALUE`,
				`note 3:31 psql variable :dflt has no value: the stand-in dflt is used; pass --var dflt=VALUE`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := splitFilled(c.src, nil)
			assertTexts(t, r, c.want...)
			if got := diagStrings(r); strings.Join(got, "\n") != strings.Join(c.notes, "\n") {
				t.Errorf("diagnostics:\n got %q\nwant %q", got, c.notes)
			}
		})
	}
}

// A statement inside a control action that has no values is skipped with
// a note and counted; the statements around the block are read.
func TestTemplateControlWithoutValues(t *testing.T) {
	src := "CREATE TABLE a (id int);\n" +
		"{{ if .Partitioned }}\n" +
		"CREATE TABLE b (id int) PARTITION BY RANGE (id);\n" +
		"{{ else }}\n" +
		"CREATE TABLE b (id int);\n" +
		"{{ end }}\n" +
		"CREATE TABLE c (id int);\n"
	r := splitFilled(src, nil)
	assertTexts(t, r, "CREATE TABLE a (id int)", "CREATE TABLE c (id int)")
	want := "skipped the statement starting at line 3: it is inside the template control action {{ if .Partitioned }} at line 2, and it needs values (--var NAME=VALUE)"
	got := diagStrings(r)
	if r.Skipped != 2 || len(got) != 2 || got[0] != "note 3:1 "+want {
		t.Errorf("skipped %d, diagnostics %q", r.Skipped, got)
	}
	if p := r.Statements[1].Pos; p.Line != 7 || p.Col != 1 {
		t.Errorf("statement after the block at %v, want line 7", p)
	}
}

// Positions stay the file's own when placeholders change the text's length.
func TestTemplatePositions(t *testing.T) {
	src := `CREATE TABLE "{{ index .Options "Namespace" }}".t (id int);` + "\n" +
		`CREATE UNIQUE INDEX i ON {{ index .Options "Namespace" }}.t (id, ` + "\n  missing_col);\n" +
		`SELECT 'unterminated;`
	r := splitFilled(src, Vars{"Namespace": "a"})
	if len(r.Statements) != 2 {
		t.Fatalf("statements %q", texts(r))
	}
	st := r.Statements[1]
	if st.Pos.Line != 2 || st.Pos.Col != 1 {
		t.Errorf("second statement at %v", st.Pos)
	}
	at := strings.Index(st.Text, "missing_col")
	if p := st.PosAt(at); p.Line != 3 || p.Col != 3 {
		t.Errorf("missing_col at %v, want 3:3", p)
	}
	if p := st.PosAt(strings.Index(st.Text, "a.t")); p.Line != 2 || p.Col != 26 {
		t.Errorf("the filled placeholder at %v, want 2:26 (where it is written)", p)
	}
	if got := diagStrings(r); len(got) != 1 || !strings.HasPrefix(got[0], "error 4:8 unterminated quoted string") {
		t.Errorf("diagnostics %q", got)
	}
}

// A value that does not fill a Go action is stood in for, with the reason;
// never an error.
func TestTemplateCannotRun(t *testing.T) {
	r := splitFilled("CREATE TABLE {{ .Schema | upper }}.t (id int);", Vars{"Schema": "x"})
	assertTexts(t, r, "CREATE TABLE schema.t (id int)")
	got := diagStrings(r)
	if len(got) != 1 || !strings.Contains(got[0], `could not be filled (function "upper" not defined)`) {
		t.Errorf("diagnostics %q", got)
	}
	r = splitFilled("CREATE TABLE {{ .Other }}.t (id int);", Vars{"Schema": "x"})
	assertTexts(t, r, "CREATE TABLE other.t (id int)")
	if got := diagStrings(r); len(got) != 1 || !strings.Contains(got[0], "has no value") || r.Diagnostics[0].Level != Note {
		t.Errorf("diagnostics %q", got)
	}
}

// A control block run with values keeps the positions of its own SQL.
func TestTemplateControlPositions(t *testing.T) {
	src := "{{ if .Audit }}\n" +
		"CREATE TABLE {{ .Schema }}.audit (id int);\n" +
		"{{ if eq .Schema \"other\" }}\n" +
		"CREATE TABLE other (id int);\n" +
		"{{ else }}\n" +
		"CREATE TABLE kept (id int);\n" +
		"{{ end }}\n" +
		"CREATE INDEX audit_id ON {{ .Schema }}.audit (id);\n" +
		"{{ end }}\n"
	r := splitFilled(src, Vars{"Audit": "yes", "Schema": "s"})
	assertTexts(t, r, "CREATE TABLE s.audit (id int)", "CREATE TABLE kept (id int)", "CREATE INDEX audit_id ON s.audit (id)")
	var lines []int
	for _, st := range r.Statements {
		lines = append(lines, st.Pos.Line)
	}
	if len(lines) != 3 || lines[0] != 2 || lines[1] != 6 || lines[2] != 8 {
		t.Fatalf("statement lines %v, want [2 6 8]", lines)
	}
	if p := r.Statements[2].PosAt(strings.Index(r.Statements[2].Text, "(id)")); p.Line != 8 || p.Col != 46 {
		t.Errorf("(id) at %v, want 8:46", p)
	}
	if len(r.Diagnostics) != 0 {
		t.Errorf("diagnostics %q", diagStrings(r))
	}
}
