package sqlparse

import (
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Parsed is a statement after the parse phase: its parse trees, its parse
// error, or nothing at all when the prefilter found that it cannot change
// the model. A Parsed is never changed after it is made, so it can be handed
// from the goroutine that parsed it to the one that replays it.
type Parsed struct {
	stmts []*pg.RawStmt
	err   *Diagnostic
	// Skipped is set when the statement was never given to the parser
	// because its leading tokens show it cannot change the model.
	Skipped bool
}

// Parse runs PostgreSQL's parser over one statement: the parse phase of
// Replayer.Apply. It touches no shared state, so statements can be parsed
// on several goroutines at once.
func Parse(st Statement) *Parsed {
	stmts, perr := parseStatement(&st)
	return &Parsed{stmts: stmts, err: perr}
}
