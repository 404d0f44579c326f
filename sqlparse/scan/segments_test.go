package scan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// segmentTraps are texts where a line after a semicolon does not start a
// statement: dollar quotes, parentheses, quotes, comments, COPY data and
// SQL-standard function bodies.
var segmentTraps = []string{
	"CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM 1;\nCREATE TABLE not_here (id int);\n  RETURN 1;\nEND $$;\nCREATE TABLE a (id int);\n",
	"CREATE TABLE p (id int,\n  note text DEFAULT ';\nCREATE TABLE q (id int);\n');\nCREATE TABLE r (id int);\n",
	"CREATE TABLE s (id int);\n/* a comment;\nCREATE TABLE t (id int);\n*/\nCREATE TABLE u (id int);\n",
	"CREATE TABLE v (id int);\n-- trailing;\nCREATE TABLE w (id int);\n",
	"COPY v (id) FROM stdin;\n1\n2;\nCREATE\n\\.\nCREATE TABLE x (id int);\n",
	"CREATE FUNCTION g() RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n  SELECT 1;\nSELECT 2;\nEND;\nCREATE TABLE y (id int);\n",
	"SELECT (1;\nCREATE TABLE z (id int));\nCREATE TABLE zz (id int);\n",
	"CREATE TABLE open (id int);\nSELECT 'never closed;\nCREATE TABLE after (id int);\n",
	"CREATE FUNCTION h() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM 1;\n-- not a cut\n  PERFORM 2;\n\n-- nor this\n  RETURN 1;\nEND $$;\n\n--\n-- Name: b\n--\nCREATE TABLE b (id int);\n",
	"CREATE TABLE c (note text DEFAULT ';\n-- inside a string\n');\n-- after\nCREATE TABLE d (id int);\n",
}

// TestSplitSegmentsEqualsSplit cuts every fixture, the traps and (when it
// has been generated) the benchmark's dump into tiny segments and requires
// exactly what Split finds in one piece.
func TestSplitSegmentsEqualsSplit(t *testing.T) {
	var inputs []Input
	for i, text := range segmentTraps {
		inputs = append(inputs, Input{Path: "trap" + string(rune('a'+i)) + ".sql", Text: text})
	}
	files, err := filepath.Glob("../../testdata/*/*/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../../testdata/*/*.sql")
	files = append(files, more...)
	if _, err := os.Stat("../../bench/out/S/structure.sql"); err == nil {
		files = append(files, "../../bench/out/S/structure.sql")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, Input{Path: path, Text: string(data)})
	}
	for _, in := range inputs {
		for _, size := range []int{1, 16, 64, 4096} {
			var got SplitResult
			segments := 0
			splitSegments(in, size, func(seg SplitResult) bool {
				got.Statements = append(got.Statements, seg.Statements...)
				got.Comments = append(got.Comments, seg.Comments...)
				got.Diagnostics = append(got.Diagnostics, seg.Diagnostics...)
				segments++
				return true
			})
			want := Split(in)
			SortDiagnostics(want.Diagnostics)
			SortDiagnostics(got.Diagnostics)
			if g, w := splitJSON(t, got), splitJSON(t, want); g != w {
				t.Errorf("%s in segments of %d bytes (%d segments) differs from Split:\n got %s\nwant %s", in.Path, size, segments, g, w)
			}
		}
	}
}

func splitJSON(t *testing.T, r SplitResult) string {
	type stmt struct {
		Text     string
		Pos      string
		Offset   int
		Comments []Comment
	}
	var stmts []stmt
	for _, st := range r.Statements {
		stmts = append(stmts, stmt{st.Text, st.Pos.String(), st.Offset, st.Comments})
		if p := st.PosAt(len(st.Text)); p.Line == 0 {
			t.Fatalf("statement without positions: %q", st.Text)
		}
	}
	data, err := json.Marshal(struct {
		S []stmt
		C []Comment
		D []Diagnostic
	}{stmts, r.Comments, r.Diagnostics})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestSplitSegmentsCutsADump holds the streaming to pg_dump's shape, where
// every object comes after a "--" comment block: the dump must be cut into
// many segments, not split in one piece while the parsers wait.
func TestSplitSegmentsCutsADump(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "\n--\n-- Name: t%d; Type: TABLE; Schema: public; Owner: -\n--\n\nCREATE TABLE public.t%d (\n    id bigint NOT NULL\n);\n\n", i, i)
	}
	in := Input{Path: "dump.sql", Text: b.String()}
	segments := 0
	splitSegments(in, 1024, func(SplitResult) bool { segments++; return true })
	if min := len(in.Text) / 1024 / 2; segments < min {
		t.Errorf("a %d-byte dump in 1 KB segments was cut into %d segments, want at least %d", len(in.Text), segments, min)
	}
}
