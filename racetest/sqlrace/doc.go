// Package sqlrace is the SQL probe of the race engine: it races one claim
// statement on N PostgreSQL sessions at the same moment, each in its own
// transaction behind an advisory-lock barrier, rolled back unless asked to
// commit, and reads back what the winners wrote to name the unique index
// that should have refused (the diagnosis). It also holds the --effect-sql
// oracle (Effect), which HTTP races use to count their effect in
// PostgreSQL.
//
// The rounds loop, the verdict and the output are racetest's; this package
// only fires rounds. It uses pgx and needs no cgo: it reads claim
// statements with sqlparse/scan, the pure-Go statement reader, and must
// not import the parts of sqlparse that need pg_query. It must not import the
// audit or the live catalog reader: the caller hands it UniqueKeys, so
// that the words of the audit are quoted by cmd, not reached from here.
package sqlrace
