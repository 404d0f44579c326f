// Package replay applies parsed DDL statements, one at a time and in
// migration order, to a catalog.Catalog, simulating what PostgreSQL's own
// catalog would hold afterwards, and converts parser nodes and expression
// text into catalog.Expr. It takes each statement as a parse.Parsed value,
// so parsing can run ahead on other goroutines (parse.Load) while replay
// stays in order.
//
// It reads pg_query_go's parse trees, so it needs cgo.
package replay
