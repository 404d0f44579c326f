package parse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"

	"go.uber.org/goleak"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// TestLoadOrderWithManyWorkers loads many files, one of them large enough
// to be split in segments, with more parser goroutines than cores, and
// requires every statement applied in migration order and every split note
// in its place.
func TestLoadOrderWithManyWorkers(t *testing.T) {
	files := map[string]string{}
	var want []string
	for f := 1; f <= 60; f++ {
		var b strings.Builder
		n := 3
		if f == 30 {
			n = 20000 // over two segments of splitting
		}
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "CREATE TABLE t_%d_%d (id int);\n", f, i)
			want = append(want, fmt.Sprintf("CREATE TABLE t_%d_%d (id int)", f, i))
			if i == 1 {
				b.WriteString("\\set x 1\n")
				want = append(want, "note: skipped psql meta-command \\set")
			}
		}
		files[fmt.Sprintf("%03d_f.up.sql", f)] = b.String()
	}
	dir := testtree.Write(t, files)
	for _, workers := range []int{1, 3, 8} {
		// Apply answers each statement with a note of its text, so the
		// diagnostics show statements and split notes in one sequence.
		res := Load([]string{dir}, LoadOptions{Workers: workers, Apply: func(p *Parsed) []scan.Diagnostic {
			return []scan.Diagnostic{{Level: scan.Note, Pos: p.Statement.Pos, Message: p.Statement.Text}}
		}})
		var got []string
		for _, d := range res.Diagnostics {
			if d.Message == "skipped psql meta-command \\set" {
				got = append(got, "note: "+d.Message)
				continue
			}
			got = append(got, d.Message)
		}
		if res.Statements != len(want)-60 || res.Files != 60 {
			t.Fatalf("workers %d: %d statements of %d files", workers, res.Statements, res.Files)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("workers %d: statements and notes out of order", workers)
		}
	}
}

// TestLoadStopsWhenApplyPanics: a panic in Apply reaches the caller and
// leaves no reader or parser goroutine behind.
func TestLoadStopsWhenApplyPanics(t *testing.T) {
	defer goleak.VerifyNone(t)
	files := map[string]string{}
	for f := 1; f <= 100; f++ {
		files[fmt.Sprintf("%03d_f.up.sql", f)] = "CREATE TABLE a (id int); CREATE TABLE b (id int);"
	}
	dir := testtree.Write(t, files)
	defer func() {
		if recover() == nil {
			t.Error("the panic in Apply did not reach the caller")
		}
	}()
	Load([]string{dir}, LoadOptions{Apply: func(p *Parsed) []scan.Diagnostic {
		if strings.Contains(p.Statement.File, "003_f") {
			panic("apply failed")
		}
		return nil
	}})
}
