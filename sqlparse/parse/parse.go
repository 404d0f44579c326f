package parse

import (
	"errors"
	"fmt"

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
	if d := tooLargeToParse(st); d != nil {
		return nil, d
	}
	tree, err := pg.Parse(st.Text)
	if err != nil {
		d := parseErrorDiagnostic(st, err)
		return nil, &d
	}
	return tree.Stmts, nil
}

// MaxParseItems is the most list items (commas and opening parentheses
// outside literals and comments) a statement may hold for the parser to
// read it. The parse tree takes about 300 bytes an item (measured on a
// CHECK with a long IN-list: 45 MB for 150,000 items in 1 MiB of text), so
// the limit keeps one statement's tree near 30 MB; a migration's DDL holds
// a few thousand. A literal, however long, is one item: a function body
// never reaches it.
const MaxParseItems = 100_000

// bytesPerItem is the measured cost of one list item's parse tree.
const bytesPerItem = 300

// itemsCheckedFrom is the size below which a statement cannot reach the
// limit (one item takes at least two bytes), so is not counted.
const itemsCheckedFrom = 2 * MaxParseItems

// tooLargeToParse refuses a statement with more than MaxParseItems list
// items, naming its place and size, instead of letting the parser take
// gigabytes (a 50 MB CHECK took 1.9 GB and 30 s). An INSERT cannot change
// the schema, only the on-conflict rules read it: it gets a note. Anything
// else is an error, since what it would have changed is not known.
func tooLargeToParse(st *scan.Statement) *scan.Diagnostic {
	if len(st.Text) < itemsCheckedFrom {
		return nil
	}
	n := listItems(st.Text)
	if n <= MaxParseItems {
		return nil
	}
	msg := fmt.Sprintf("statement of %s with %d list items is too large to check: idemcheck parses statements of at most %d items "+
		"(about %d bytes of memory each; this one would take %s)", byteSize(len(st.Text)), n, MaxParseItems, bytesPerItem, byteSize(n*bytesPerItem))
	words := scan.LeadingWords(st.Text, 1)
	if len(words) == 1 && words[0] == "insert" {
		return &scan.Diagnostic{Level: scan.Note, Pos: st.Pos, Message: msg + "; an INSERT changes no schema, so only the on-conflict rules miss it"}
	}
	return &scan.Diagnostic{Level: scan.Error, Pos: st.Pos, Message: msg + "; what it changes is not replayed, so split it or leave the file out"}
}

// listItems counts the commas and opening parentheses of text outside its
// literals, quoted names and comments.
func listItems(text string) int {
	n := 0
	for i := 0; i < len(text); {
		switch text[i] {
		case ',', '(':
			n++
			i++
			continue
		case '\'', '"', '-', '/', '$', 'E', 'e':
			tok, err := scan.NextToken(text, i)
			if err != nil {
				return n
			}
			i = max(tok.End, i+1)
			continue
		}
		i++
	}
	return n
}

// byteSize writes n bytes for people: 512 KiB, 50.0 MiB.
func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
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
