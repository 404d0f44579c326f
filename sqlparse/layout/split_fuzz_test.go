package layout

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// FuzzSplit checks that no input makes Split panic and that statements come
// back in order, inside the input, at the offsets their text was cut from.
func FuzzSplit(f *testing.F) {
	seeds := []string{
		"SELECT 1; SELECT 2",
		"CREATE FUNCTION f() AS $x$ ; $x$; SELECT $1;",
		"/* a /* b */ */ SELECT E'\\'';",
		"COPY t FROM stdin;\n1\n\\.\n",
		"\\connect x\nSELECT :'v', a::int, {{ x }}, ${y};",
		"CREATE PROCEDURE p() BEGIN ATOMIC SELECT 1; END;",
		"SELECT '\xff\x00';",
		"$$", "'", "\"", "/*", "E'", ":", "${", "{{",
	}
	// The fixture trees are realistic seeds too.
	filepath.WalkDir(layoutsDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".sql" {
			if data, err := os.ReadFile(p); err == nil {
				seeds = append(seeds, string(data))
			}
		}
		return nil
	})
	for _, s := range seeds {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, src string, goose bool) {
		layout := LayoutPlain
		if goose {
			layout = LayoutGoose
		}
		in := upPart(File{Path: "f.sql", Layout: layout}, src)
		if len(in.Text) != len(src) {
			t.Fatalf("up part changed the length: %d -> %d", len(src), len(in.Text))
		}
		r := scan.Split(in)
		prev := -1
		for _, st := range r.Statements {
			if st.Offset <= prev || st.Offset < 0 || st.Offset+len(st.Text) > len(src) {
				t.Fatalf("statement at offset %d (previous %d, input %d bytes): %q", st.Offset, prev, len(src), st.Text)
			}
			if in.Text[st.Offset:st.Offset+len(st.Text)] != st.Text {
				t.Fatalf("text at offset %d is not the statement", st.Offset)
			}
			if st.Text == "" {
				t.Fatalf("empty statement at %d", st.Offset)
			}
			prev = st.Offset
		}
	})
}
