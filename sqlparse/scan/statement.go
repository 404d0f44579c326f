package scan

import (
	"fmt"
	"sort"

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

// Inner returns the statement whose text, text, starts at byte offset off
// of s.Text (a statement inside a DO block's body). With exact, text is
// s.Text there character for character, so that offsets inside it map to
// the file; otherwise every position in it is its start.
func (s *Statement) Inner(text string, off int, exact bool) Statement {
	st := Statement{Text: text, File: s.File, Offset: s.Offset + off, Pos: s.PosAt(off)}
	if exact {
		st.lines = s.lines
	}
	return st
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

// SortDiagnostics orders one file's diagnostics by position, keeping the
// order of those at the same place.
func SortDiagnostics(notes []Diagnostic) {
	sort.SliceStable(notes, func(i, j int) bool { return diagBefore(notes[i], notes[j]) })
}

// diagBefore orders diagnostics of one file by position.
func diagBefore(a, b Diagnostic) bool {
	if a.Pos.Line != b.Pos.Line {
		return a.Pos.Line < b.Pos.Line
	}
	return a.Pos.Col < b.Pos.Col
}
