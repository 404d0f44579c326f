package inspect

import (
	"context"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"

	"github.com/jackc/pgx/v5"
)

// testDSN is the server the tests build their throwaway databases on.
func testDSN() string { return pgtest.DSN() }

// adminConn connects to the test server, skipping the test when there is
// none (failing instead under CI=true).
func adminConn(t testing.TB) *pgx.Conn { return pgtest.Connect(t) }

// newTestDB creates a fresh database, runs setup SQL in it, drops it when the
// test ends, and returns a DSN for it.
func newTestDB(t testing.TB, setup string) string {
	t.Helper()
	if setup == "" {
		return pgtest.NewDatabase(t)
	}
	return pgtest.NewDatabase(t, setup)
}

// withDatabase returns dsn pointing at another database.
func withDatabase(t testing.TB, dsn, db string) string { return pgtest.WithDatabase(dsn, db) }

// connectTo opens a plain connection for test setup, closed at the end.
func connectTo(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// withUser returns dsn connecting as another role.
func withUser(t testing.TB, dsn, user string) string { return pgtest.WithUser(dsn, user) }

// databaseOf is the database name a test DSN points at.
func databaseOf(t testing.TB, dsn string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Database
}
