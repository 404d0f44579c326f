package sqlrace

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/internal/pgsecret"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/jackc/pgx/v5"
)

// Effect is the effect oracle of an HTTP race that counts in PostgreSQL
// with the user's --effect-sql query, whose single result is a count. Its
// parameters are templates ({{key}} by default, or what --effect-param
// declares, in order: $1, $2, ...) rendered with the round's values and
// bound as parameters, never spliced into the text. It lives here, beside
// the SQL probe, so that the HTTP probe needs no PostgreSQL driver.
type Effect struct {
	conn   *pgx.Conn
	query  string
	params []racetest.Template
	scrub  *pgsecret.Scrubber
}

// DefaultEffectParams binds $1 to the round's key.
var DefaultEffectParams = []string{"{{key}}"}

// NewEffect connects to dsn and checks the query once against the server,
// so that a typo, or a query whose parameters are not the ones declared,
// fails before the first round rather than after it. params are the
// templates of $1, $2, ... (DefaultEffectParams when empty). The connection
// and the check are bounded by timeout. No error shows the password.
func NewEffect(ctx context.Context, dsn, query string, params []string, timeout time.Duration) (*Effect, error) {
	if len(params) == 0 {
		params = DefaultEffectParams
	}
	scrub := pgsecret.ForDSN(dsn)
	start, outer := time.Now(), ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A server that takes the connection and then answers nothing ends
	// here, named, at the timeout or the run's deadline.
	stalled := func(phase string, err error) error {
		why := fmt.Errorf("no answer within --timeout %s: %s", timeout, scrub.Clean(err.Error()))
		if outer.Err() != nil {
			why = fmt.Errorf("the run's --deadline passed: %s", scrub.Clean(err.Error()))
		}
		return &racetest.StopError{Phase: phase, Elapsed: time.Since(start), Err: why}
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil && ctx.Err() != nil {
		return nil, stalled("connecting to PostgreSQL for --effect-sql", err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: --dsn: %s", racetest.ErrNoConnection, scrub.Clean(err.Error()))
	}
	sd, err := conn.Prepare(ctx, "", query)
	if err != nil && ctx.Err() != nil {
		conn.Close(context.Background())
		return nil, stalled("checking --effect-sql on the server", err)
	}
	if err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("--effect-sql %q: %s", query, scrub.Clean(err.Error()))
	}
	if len(sd.ParamOIDs) != len(params) {
		conn.Close(context.Background())
		return nil, fmt.Errorf("--effect-sql %q takes %d parameter(s) but %d are declared (%s): give one --effect-param per $n, in order",
			query, len(sd.ParamOIDs), len(params), strings.Join(params, ", "))
	}
	e := &Effect{conn: conn, query: query, scrub: scrub}
	for _, t := range params {
		e.params = append(e.params, racetest.Template(t))
	}
	return e, nil
}

// Count runs the query for the round's values.
func (e *Effect) Count(ctx context.Context, v racetest.RoundValues) (int64, error) {
	args := make([]any, len(e.params))
	for i, t := range e.params {
		args[i] = t.Render(v)
	}
	var n int64
	if err := e.conn.QueryRow(ctx, e.query, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("%q: %s", e.query, e.scrub.Clean(err.Error()))
	}
	return n, nil
}

// Evidence names the count.
func (e *Effect) Evidence() string { return "the PostgreSQL count" }

// Close ends the connection.
func (e *Effect) Close(ctx context.Context) error { return e.conn.Close(ctx) }
