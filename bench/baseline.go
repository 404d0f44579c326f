package main

import (
	"time"

	"github.com/idemcheck/idemcheck/sqlparse/layout"
	"github.com/idemcheck/idemcheck/sqlparse/parse"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// parseBaseline is the yardstick lint's speed is measured against: it reads
// and splits every file of paths, then hands every statement to
// PostgreSQL's parser on the calling goroutine, one after the other, without
// the prefilter. It returns the statements parsed and the time spent in the
// parser alone (reading and splitting are not counted).
func parseBaseline(paths []string) (statements int, parsing time.Duration) {
	stmts := readStatements(paths)
	start := time.Now()
	for _, st := range stmts {
		parse.Parse(st) // a parse error costs the parser as much as a tree
	}
	return len(stmts), time.Since(start)
}

// readStatements reads and splits the up part of every file discovery
// finds under paths, in order.
func readStatements(paths []string) []scan.Statement {
	trees, _ := layout.Discover(paths, layout.DiscoverOptions{})
	var stmts []scan.Statement
	for _, t := range trees {
		for _, f := range t.Files {
			in, err := layout.ReadUp(f)
			if err != nil {
				continue
			}
			stmts = append(stmts, scan.Split(in).Statements...)
		}
	}
	return stmts
}
