package parse

import (
	"errors"

	pg "github.com/pganalyze/pg_query_go/v5"
	pgparser "github.com/pganalyze/pg_query_go/v5/parser"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// GrammarVersion is the PostgreSQL major version whose grammar pg_query_go
// embeds (v5 carries the PostgreSQL 16 parser). `idemcheck version` prints it.
const GrammarVersion = 16

// parseStatement runs the PostgreSQL parser over one statement's text. A
// parse error becomes an Error diagnostic at the place the parser points to.
func parseStatement(st *scan.Statement) ([]*pg.RawStmt, *scan.Diagnostic) {
	tree, err := pg.Parse(st.Text)
	if err != nil {
		d := parseErrorDiagnostic(st, err)
		return nil, &d
	}
	return tree.Stmts, nil
}

// parseErrorDiagnostic turns a pg_query error into a diagnostic. The
// parser's cursor is a 1-based character (not byte) position, which is why it
// is walked rune by rune.
func parseErrorDiagnostic(st *scan.Statement, err error) scan.Diagnostic {
	pos := st.Pos
	var perr *pgparser.Error
	if errors.As(err, &perr) && perr.Cursorpos > 0 {
		pos = st.PosAt(byteOffsetOfRune(st.Text, perr.Cursorpos-1))
	}
	return scan.Diagnostic{Level: scan.Error, Pos: pos, SQLState: "42601", Message: err.Error()}
}

// byteOffsetOfRune returns the byte offset of the n-th rune (0-based) of s,
// or len(s) when s is shorter.
func byteOffsetOfRune(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
