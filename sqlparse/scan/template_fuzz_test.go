package scan

import (
	"strings"
	"testing"
)

// FuzzFillTemplates checks that filling placeholders never panics, and
// that every statement of the filled text still has a position inside the
// file, in file order.
func FuzzFillTemplates(f *testing.F) {
	for _, s := range []string{
		`CREATE TABLE "{{ index .Options "Namespace" }}".t (id int);`,
		"{{ if .X }}CREATE TABLE a (id int);{{ else }}SELECT 1;{{ end }}\nSELECT :'v', :\"w\", :x, a::int, b[1:x], ${y};",
		"{{ range .L }}{{ . }}{{ end }}", "{{ end }}{{ if }}", "{{/* x */}}", "{{ template \"t\" }}",
		"SELECT '{{1,2}}', $$ {{ .X }} ${y} $$, E'\\'{{ .Z }}';",
		"COPY t FROM stdin;\n:x {{ .Y }}\n\\.\nSELECT :z;",
		"{{", "${", ":", "{{ .X", "$a$ {{ .X }}",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, src string, withVars bool) {
		var vars Vars
		if withVars {
			vars = Vars{"X": "x", "Namespace": "auth", "y": "why", "v": "o'v"}
		}
		in := Fill(Input{Path: "f.sql", Text: src}, vars)
		lines := strings.Count(src, "\n") + 1
		r := Split(in)
		prev := 0
		for _, st := range r.Statements {
			p := st.Pos
			if p.Line < 1 || p.Line > lines || p.Line < prev {
				t.Fatalf("statement %q at line %d (file has %d lines, previous statement at %d)", st.Text, p.Line, lines, prev)
			}
			prev = p.Line
			if end := st.PosAt(len(st.Text)); end.Line < p.Line || end.Line > lines {
				t.Fatalf("statement %q ends at line %d", st.Text, end.Line)
			}
		}
		for _, d := range r.Diagnostics {
			if d.Pos.Line > lines {
				t.Fatalf("diagnostic %v past the end of the file", d)
			}
		}
	})
}
