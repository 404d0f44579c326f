package sqlparse

import (
	"errors"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	pgparser "github.com/pganalyze/pg_query_go/v5/parser"

	"github.com/idemcheck/idemcheck/catalog"
)

// GrammarVersion is the PostgreSQL major version whose grammar pg_query_go
// embeds (v5 carries the PostgreSQL 16 parser). `idemcheck version` prints it.
const GrammarVersion = 16

// parseStatement runs the PostgreSQL parser over one statement's text. A
// parse error becomes an Error diagnostic at the place the parser points to.
func parseStatement(st *Statement) ([]*pg.RawStmt, *Diagnostic) {
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
func parseErrorDiagnostic(st *Statement, err error) Diagnostic {
	pos := st.Pos
	var perr *pgparser.Error
	if errors.As(err, &perr) && perr.Cursorpos > 0 {
		pos = st.PosAt(byteOffsetOfRune(st.Text, perr.Cursorpos-1))
	}
	return Diagnostic{Level: Error, Pos: pos, SQLState: "42601", Message: err.Error()}
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

// identText normalises an identifier written in free text (search_path
// values, DO block excerpts) the way the server would: quoted keeps case,
// unquoted folds to lower case.
func identText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}

var _ = catalog.Pos{}
