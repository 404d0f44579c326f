package scan

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkSplitDump splits a dump-sized file of tables, functions,
// comments and COPY data.
func BenchmarkSplitDump(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&sb, "--\n-- Name: t%d; Type: TABLE\n--\n\nCREATE TABLE public.t%d (\n    id bigint NOT NULL,\n    note text DEFAULT 'a;b'::text\n);\n\n", i, i)
		fmt.Fprintf(&sb, "CREATE FUNCTION public.f%d() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN %d; END; $$;\n\n", i, i)
		fmt.Fprintf(&sb, "COPY public.t%d (id, note) FROM stdin;\n1\tx\n2\ty\n\\.\n\n", i)
	}
	in := Input{Path: "dump.sql", Text: sb.String()}
	b.SetBytes(int64(len(in.Text)))
	b.ResetTimer()
	for b.Loop() {
		r := Split(in)
		if len(r.Statements) != 4000 {
			b.Fatalf("statements = %d", len(r.Statements))
		}
	}
}
