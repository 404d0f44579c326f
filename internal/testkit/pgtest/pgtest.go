// Package pgtest gives tests a real PostgreSQL server: a throwaway database
// per test, dropped when the test ends. Without a reachable server the test
// is skipped with a message, except under CI=true, where a missing server is
// a failure so that CI can never pass by skipping.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/internal/pgcluster"
)

// DefaultDSN is used when IDEMCHECK_TEST_DSN is not set.
const DefaultDSN = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// DSN is the administrative connection string tests use to create
// databases: IDEMCHECK_TEST_DSN when set; else DefaultDSN when a server
// answers there; else, when PostgreSQL's server programs are installed
// (initdb and pg_ctl on PATH, from pg_config, or in Debian's
// /usr/lib/postgresql/<N>/bin), a throwaway cluster this test process
// starts on a free loopback port, stopped and removed when the process
// ends. So the test command tests what it can on a machine with no server
// running.
func DSN() string {
	resolved.once.Do(resolveDSN)
	return resolved.dsn
}

var resolved struct {
	once sync.Once
	dsn  string
	// why says where the DSN came from, or why no throwaway cluster was
	// started, for the skip message.
	why string
}

func resolveDSN() {
	if dsn := os.Getenv("IDEMCHECK_TEST_DSN"); dsn != "" {
		resolved.dsn = dsn
		return
	}
	resolved.dsn = DefaultDSN
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if c, err := pgx.Connect(ctx, DefaultDSN); err == nil {
		c.Close(ctx)
		return
	}
	dsn, c, why := startThrowaway()
	resolved.why = why
	if c == nil {
		return
	}
	resolved.dsn = dsn
	fmt.Fprintf(os.Stderr, "pgtest: no server at %s; using %s on 127.0.0.1:%d\n", DefaultDSN, why, c.Port)
}

// startThrowaway starts a throwaway cluster that lives as long as this
// process, and returns its DSN and where it came from; without one (c is
// nil), why says why not.
func startThrowaway() (dsn string, c *pgcluster.Cluster, why string) {
	bin, looked := pgcluster.FindServerPrograms(nil, "/usr/lib/postgresql", 0)
	if bin == "" {
		return "", nil, "no throwaway cluster either: PostgreSQL's server programs are not installed (looked in " + strings.Join(looked, ", ") + ")"
	}
	cred, who, err := pgcluster.RunAs()
	if err != nil {
		return "", nil, "no throwaway cluster either: " + err.Error()
	}
	// Tests open many sessions at once (race sql, inspect's counts).
	c, err = pgcluster.Start(context.Background(), bin, cred, nil, "max_connections=200", "shared_buffers=64MB")
	if err == nil {
		if err = c.StopWhenThisProcessExits(); err != nil {
			c.Stop()
		}
	}
	if err != nil {
		return "", nil, fmt.Sprintf("no throwaway cluster either: starting one from %s failed: %v", bin, err)
	}
	why = "a throwaway cluster from " + bin
	if who != "" {
		why += ", run as " + who
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.Port), c, why
}

// unavailable skips or fails t because the server cannot be used.
func unavailable(t testing.TB, err error) {
	t.Helper()
	msg := fmt.Sprintf("PostgreSQL at %s is not reachable: %v (set IDEMCHECK_TEST_DSN)", redact(DSN()), err)
	if resolved.why != "" {
		msg += "; " + resolved.why
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true, so this is a failure, not a skip")
	}
	t.Skip(msg)
}

// Connect opens a connection to the administrative database, or skips.
func Connect(t testing.TB) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, DSN())
	if err != nil {
		unavailable(t, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

var seq atomic.Int64

// NewDatabase creates an empty database for t, drops it when t ends, and
// returns its connection string. Extra statements run in it first.
func NewDatabase(t testing.TB, setup ...string) string {
	t.Helper()
	admin := Connect(t)
	ctx := context.Background()
	name := fmt.Sprintf("idemcheck_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, seq.Add(1))
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), DSN())
		if err != nil {
			t.Logf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if err := pgcluster.DropDatabase(context.Background(), c, name); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	dsn := WithDatabase(DSN(), name)
	for _, sql := range setup {
		Exec(t, dsn, sql)
	}
	return dsn
}

func serverVersionNum(c *pgx.Conn) int {
	n, _ := strconv.Atoi(c.PgConn().ParameterStatus("server_version_num"))
	if n == 0 {
		// Servers before 12 do not report it at start-up; ask.
		var s string
		if c.QueryRow(context.Background(), "SHOW server_version_num").Scan(&s) == nil {
			n, _ = strconv.Atoi(s)
		}
	}
	return n
}

// ServerVersionNum is the test server's version number (150004 for 15.4),
// or skips like Connect when there is no server.
func ServerVersionNum(t testing.TB) int {
	t.Helper()
	return serverVersionNum(Connect(t))
}

// RequireVersion skips t on a server older than num: the feature the test
// needs (named by what) does not exist there. The matrix of older servers
// (scripts/pg-versions.sh) runs the rest of each test file.
func RequireVersion(t testing.TB, num int, what string) {
	t.Helper()
	if v := ServerVersionNum(t); v < num {
		t.Skipf("PostgreSQL %d has no %s (needs %d)", v/10000, what, num/10000)
	}
}

// Exec runs sql (one or more statements, simple protocol) on dsn, failing t
// on error.
func Exec(t testing.TB, dsn, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect %s: %v", redact(dsn), err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("exec on %s: %v\n%s", redact(dsn), err, sql)
	}
}

// WithDatabase returns dsn pointing at database name instead.
func WithDatabase(dsn, name string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		return u.String()
	}
	// key=value form: replace or append dbname.
	var parts []string
	for _, f := range strings.Fields(dsn) {
		if !strings.HasPrefix(f, "dbname=") {
			parts = append(parts, f)
		}
	}
	return strings.Join(append(parts, "dbname="+name), " ")
}

func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return u.String()
		}
	}
	return dsn
}

// NewConn creates a database as NewDatabase does and returns a connection
// to it, closed before the database is dropped.
func NewConn(t testing.TB, setup ...string) *pgx.Conn {
	t.Helper()
	dsn := NewDatabase(t, setup...)
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatalf("connect %s: %v", redact(dsn), err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// WithUser returns dsn connecting as another role.
func WithUser(dsn, user string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.User = url.User(user)
		return u.String()
	}
	var parts []string
	for _, f := range strings.Fields(dsn) {
		if !strings.HasPrefix(f, "user=") {
			parts = append(parts, f)
		}
	}
	return strings.Join(append(parts, "user="+user), " ")
}
