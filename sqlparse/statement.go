// Package sqlparse turns SQL files into a catalog.Catalog: it finds and orders
// migration files for every layout idemcheck knows, cuts out the "up" part,
// splits statements with exact positions, skips text that is not SQL, replays
// DDL into the catalog, and converts parser nodes and expression text into
// catalog.Expr.
//
// It is the only package that imports pg_query_go. It never prints and never
// exits: everything it has to say comes back as Diagnostics.
package sqlparse

import (
	"fmt"

	"github.com/idemcheck/idemcheck/catalog"
)

// Statement is one SQL statement cut out of a file.
type Statement struct {
	// Text is the statement's own text, from its first token up to (not
	// including) the terminating semicolon. Leading comments are not part of
	// it.
	Text string
	// Pos is the position of the statement's first token.
	Pos catalog.Pos
	// Offset is the byte offset of Text within its file.
	Offset int
	// File is the migration this statement belongs to (its display path).
	File string
	// Comments holds the comment lines directly above the statement (with
	// their positions), where suppression directives live.
	Comments []Comment
	// lines maps byte offsets of the file to line starts; PosAt uses it.
	lines *lineIndex
	// origin maps offsets of Text to positions when the statement was
	// translated from another language (see Translated); nil otherwise.
	origin func(offset int) catalog.Pos
}

// Translated builds a statement for SQL that idemcheck wrote itself from a
// file in another language (a Rails db/schema.rb, a Prisma schema): at maps a
// byte offset inside text to the position in that file which the SQL at that
// offset came from, so that findings, notes and parse errors point at the
// schema file's own lines. The statement's position is at(0).
func Translated(file, text string, at func(offset int) catalog.Pos) Statement {
	return Statement{Text: text, Pos: at(0), File: file, origin: at}
}

// Comment is one comment above a statement or anywhere in a file.
type Comment struct {
	Text string // the comment text without the leading "--" or "/*" "*/"
	Pos  catalog.Pos
}

// PosAt converts a byte offset inside Text (a parser "location") into a file
// position. It falls back to the statement's own position when the offset is
// out of range or the statement was built without a line index.
func (s *Statement) PosAt(offset int) catalog.Pos {
	if s.origin != nil {
		return s.origin(offset)
	}
	if s.lines == nil || offset < 0 || offset > len(s.Text) {
		return s.Pos
	}
	return s.lines.pos(s.Offset + offset)
}

// Level says how bad a diagnostic is.
type Level int

const (
	// Note is something the user should know that does not stop the run: a
	// skipped meta-command, a statement that refers to a missing object.
	Note Level = iota
	// Error is input idemcheck could not read: the exit status becomes 2,
	// but every other statement and file is still checked.
	Error
)

func (l Level) String() string {
	if l == Error {
		return "error"
	}
	return "note"
}

// Diagnostic is a note or error tied to a place in the input.
type Diagnostic struct {
	Level Level
	Pos   catalog.Pos
	// SQLState is PostgreSQL's own error code when the diagnostic is one the
	// server would raise (42P01 for a missing relation), empty otherwise.
	SQLState string
	Message  string
}

func (d Diagnostic) String() string {
	prefix := ""
	if !d.Pos.IsZero() {
		prefix = d.Pos.String() + ": "
	}
	if d.SQLState != "" {
		return fmt.Sprintf("%s%s: %s (SQLSTATE %s)", prefix, d.Level, d.Message, d.SQLState)
	}
	return fmt.Sprintf("%s%s: %s", prefix, d.Level, d.Message)
}
