// Package scan reads SQL text the way psql and PostgreSQL's lexer do,
// without PostgreSQL's parser: it fills template placeholders (Go
// templates, Flyway ${name}, psql :variables) or stands in for them, splits
// an up part into statements with exact file positions, keeps every
// comment, and skips what is not SQL (psql meta-commands, COPY data) with a
// note. Its token readers (comments, quoted strings and identifiers, dollar
// quotes) serve other packages that must find tokens in SQL text, such as
// the race probe's claim-statement templates.
//
// It is pure Go: it needs no cgo and must never import pg_query_go, so that
// packages built on it compile where no C compiler is installed. It imports
// only catalog (for positions). It never prints; what it has to say comes
// back as Diagnostics.
//
// The stages of sqlparse hand data over in this order: layout finds files
// and cuts their up part into an Input; scan fills and splits the Input
// into Statements; parse runs PostgreSQL's parser over them; replay applies
// the parsed statements to a catalog.
package scan
