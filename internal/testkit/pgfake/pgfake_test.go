package pgfake

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The kit itself: pgx connects, the first queries are answered, the next
// one is not (the client's own deadline ends it), and the server counted
// what was sent.
func TestStalling(t *testing.T) {
	s := Stalling(t, 1)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if got := conn.PgConn().ParameterStatus("server_version"); got != ServerVersion {
		t.Errorf("server_version %q", got)
	}
	if _, err := conn.Exec(ctx, "SET x = 1", pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("the answered query: %v", err)
	}
	quiet, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = conn.Exec(quiet, "SELECT 1", pgx.QueryExecModeSimpleProtocol)
	if !errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed() {
		t.Fatalf("the query after the stall: %v, want the client's deadline", err)
	}
	if s.Startups() != 1 || s.Sent('Q') != 2 {
		t.Errorf("startups %d, queries %d; want 1 and 2", s.Startups(), s.Sent('Q'))
	}
}
