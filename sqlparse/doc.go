// Package sqlparse turns SQL files into a catalog.Catalog: it finds and orders
// migration files for every layout idemcheck knows, cuts out the "up" part,
// hands it to package scan to split into statements, runs PostgreSQL's
// parser over them ahead of replay, replays DDL into the catalog, and
// converts parser nodes and expression text into catalog.Expr.
//
// It imports pg_query_go, so it needs cgo. Package scan, which splits
// statements, is pure Go. It never prints and never exits: everything it
// has to say comes back as Diagnostics.
package sqlparse
