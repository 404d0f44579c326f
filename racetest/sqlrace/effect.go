package sqlrace

import (
	"context"
	"fmt"

	"github.com/idemcheck/idemcheck/internal/pgsecret"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/jackc/pgx/v5"
)

// Effect is the effect oracle of an HTTP race that counts in PostgreSQL
// with the user's --effect-sql query, whose $1 is the round's key and whose
// single result is a count. It lives here, beside the SQL probe, so that
// the HTTP probe needs no PostgreSQL driver.
type Effect struct {
	conn  *pgx.Conn
	query string
	scrub *pgsecret.Scrubber
}

// NewEffect connects to dsn. The query is checked once against the
// server so a typo fails before the first round rather than after it.
func NewEffect(ctx context.Context, dsn, query string) (*Effect, error) {
	scrub := pgsecret.ForDSN(dsn)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: --dsn: %s", racetest.ErrNoConnection, scrub.Clean(err.Error()))
	}
	if _, err := conn.Prepare(ctx, "", query); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("--effect-sql %q: %s", query, scrub.Clean(err.Error()))
	}
	return &Effect{conn: conn, query: query, scrub: scrub}, nil
}

// Count runs the query for the round's key.
func (e *Effect) Count(ctx context.Context, v racetest.RoundValues) (int64, error) {
	var n int64
	if err := e.conn.QueryRow(ctx, e.query, v.Key).Scan(&n); err != nil {
		return 0, fmt.Errorf("%q: %s", e.query, e.scrub.Clean(err.Error()))
	}
	return n, nil
}

// Evidence names the count.
func (e *Effect) Evidence() string { return "the PostgreSQL count" }

// Close ends the connection.
func (e *Effect) Close(ctx context.Context) error { return e.conn.Close(ctx) }
