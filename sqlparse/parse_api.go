package sqlparse

import (
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/parse"
	"github.com/idemcheck/idemcheck/sqlparse/replay"
)

// The parse phase and its pipeline live in package parse, replay in
// package replay; these names keep callers of sqlparse unchanged.
type (
	Parsed      = parse.Parsed
	LoadOptions = parse.LoadOptions
	LoadResult  = parse.LoadResult
	Replayer    = replay.Replayer
)

// GrammarVersion is the PostgreSQL major version whose grammar the parser
// embeds.
const GrammarVersion = parse.GrammarVersion

// ParserVersion is the version of the parser module (pg_query_go) the
// binary was built with; see parse.ParserVersion.
func ParserVersion() string { return parse.ParserVersion() }

// Parse runs PostgreSQL's parser over one statement; see parse.Parse.
func Parse(st Statement) *Parsed { return parse.Parse(st) }

// Load discovers, reads, splits and parses the files of paths and hands
// each parsed statement to opts.Apply in migration order; see parse.Load.
func Load(paths []string, opts LoadOptions) *LoadResult { return parse.Load(paths, opts) }

// NewReplayer returns a Replayer that changes cat; see replay.NewReplayer.
func NewReplayer(cat *catalog.Catalog) *Replayer { return replay.NewReplayer(cat) }

// ParseExpr parses a boolean or scalar SQL expression into a catalog.Expr;
// see replay.ParseExpr.
func ParseExpr(text string) (catalog.Expr, error) { return replay.ParseExpr(text) }
