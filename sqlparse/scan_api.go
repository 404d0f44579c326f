package sqlparse

import (
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// The statement types and the splitter live in package scan, which is pure
// Go; these names keep callers of sqlparse unchanged.
type (
	Statement   = scan.Statement
	Comment     = scan.Comment
	Level       = scan.Level
	Diagnostic  = scan.Diagnostic
	Input       = scan.Input
	Range       = scan.Range
	SplitResult = scan.SplitResult
	Vars        = scan.Vars
)

// Levels of a Diagnostic.
const (
	Note  = scan.Note
	Error = scan.Error
)

// Split cuts an up part into statements; see scan.Split.
func Split(in Input) SplitResult { return scan.Split(in) }

// NewStatement builds a Statement for src as if it were the whole file; see
// scan.NewStatement.
func NewStatement(file, src string, offset int) Statement {
	return scan.NewStatement(file, src, offset)
}

// Translated builds a statement for SQL written from another language's
// file; see scan.Translated.
func Translated(file, text string, at func(offset int) catalog.Pos) Statement {
	return scan.Translated(file, text, at)
}
