package inspect

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// testDSN is the server the tests build their throwaway databases on.
func testDSN() string {
	if dsn := os.Getenv("IDEMCHECK_TEST_DSN"); dsn != "" {
		return dsn
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

var dbCounter atomic.Int64

// adminConn connects to the test server, skipping the test when there is
// none (failing instead under CI=true).
func adminConn(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, testDSN())
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no PostgreSQL for the inspect tests (IDEMCHECK_TEST_DSN): %v", err)
		}
		t.Skipf("no PostgreSQL reachable for the inspect tests (set IDEMCHECK_TEST_DSN): %v", err)
	}
	return conn
}

// newTestDB creates a fresh database, runs setup SQL in it, drops it when the
// test ends, and returns a DSN for it.
func newTestDB(t testing.TB, setup string) string {
	t.Helper()
	admin := adminConn(t)
	ctx := context.Background()
	name := fmt.Sprintf("idemcheck_inspect_%d_%d", os.Getpid(), dbCounter.Add(1))
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close(ctx)
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		admin.Close(ctx)
	})
	dsn := withDatabase(t, testDSN(), name)
	if setup != "" {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatalf("connect to %s: %v", name, err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, setup, pgx.QueryExecModeSimpleProtocol); err != nil {
			t.Fatalf("setup SQL: %v", err)
		}
	}
	return dsn
}

// withDatabase returns dsn pointing at another database.
func withDatabase(t testing.TB, dsn, db string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatalf("IDEMCHECK_TEST_DSN: %v", err)
		}
		u.Path = "/" + db
		return u.String()
	}
	return dsn + " dbname=" + db
}

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
func withUser(t testing.TB, dsn, user string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.User(user)
		return u.String()
	}
	return dsn + " user=" + user
}

// databaseOf is the database name a test DSN points at.
func databaseOf(t testing.TB, dsn string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Database
}
