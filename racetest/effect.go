package racetest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// SQLEffect counts a round's side effect in PostgreSQL with the user's
// --effect-sql query, whose $1 is the round's key and whose single result
// is a count. The count before and after a round overrides what the
// responses claim.
type SQLEffect struct {
	conn  *pgx.Conn
	query string
}

// NewSQLEffect connects to dsn. The query is checked once against the
// server so a typo fails before the first round rather than after it.
func NewSQLEffect(ctx context.Context, dsn, query string) (*SQLEffect, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: --dsn: %v", ErrNoConnection, err)
	}
	if _, err := conn.Prepare(ctx, "", query); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("--effect-sql %q: %v", query, err)
	}
	return &SQLEffect{conn: conn, query: query}, nil
}

// Count runs the query for key.
func (e *SQLEffect) Count(ctx context.Context, key string) (int64, error) {
	var n int64
	if err := e.conn.QueryRow(ctx, e.query, key).Scan(&n); err != nil {
		return 0, fmt.Errorf("%q: %v", e.query, err)
	}
	return n, nil
}

// Close ends the connection.
func (e *SQLEffect) Close(ctx context.Context) error { return e.conn.Close(ctx) }
