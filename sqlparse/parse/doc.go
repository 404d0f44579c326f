// Package parse is the parse phase: it runs PostgreSQL's parser
// (pg_query_go) over statements that package scan cut out, and Load is the
// pipeline that discovers files (package layout), reads and splits them
// (package scan) and parses them on several goroutines a bounded distance
// ahead of the caller, who receives every statement in migration order as
// a Parsed value: the statement, its parse trees or parse error, or the
// prefilter's finding that it cannot change the model. Replay takes that
// value as it is (replay.Replayer.ApplyParsed); nothing travels in hidden
// fields.
//
// It imports pg_query_go, a C library, so it needs cgo.
package parse
