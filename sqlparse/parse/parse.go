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
//
// The parser quotes the token it stopped at. When that is the statement's
// first token and no keyword of PostgreSQL's, the text does not start as
// SQL does (a key, a configuration file, prose given a .sql name): the
// message then quotes nothing of it.
func parseErrorDiagnostic(st *scan.Statement, err error) scan.Diagnostic {
	pos := st.Pos
	msg := err.Error()
	var perr *pgparser.Error
	if errors.As(err, &perr) && perr.Cursorpos > 0 {
		pos = st.PosAt(byteOffsetOfRune(st.Text, perr.Cursorpos-1))
		if perr.Cursorpos == 1 && !startsWithKeyword(st.Text) {
			msg = notSQLMessage
		}
	}
	return scan.Diagnostic{Level: scan.Error, Pos: pos, SQLState: "42601", Message: msg}
}

// notSQLMessage is the error for a statement that does not start as SQL.
const notSQLMessage = "syntax error at its first word, which is no SQL keyword (none of the text is quoted, in case the file is not SQL)"

// startsWithKeyword reports whether text's first token is a keyword of
// PostgreSQL's grammar (reserved or not). Only the start is scanned.
func startsWithKeyword(text string) bool {
	const head = 256
	if len(text) > head {
		text = text[:head]
	}
	res, err := pg.Scan(text)
	if err != nil || len(res.GetTokens()) == 0 {
		return false
	}
	return res.GetTokens()[0].GetKeywordKind() != pg.KeywordKind_NO_KEYWORD
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
