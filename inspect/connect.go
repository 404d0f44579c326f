// Package inspect reads a live PostgreSQL catalog into a catalog.Catalog, the
// same model that replaying migrations builds, so that every audit rule runs
// unchanged on a running database.
//
// The catalog is read in one BEGIN READ ONLY transaction bounded by
// statement_timeout and lock_timeout, with a fixed number of round trips
// whatever the size of the database. Only the system catalogs are read, which
// every role that can connect may do; table rows are read only by the data
// checks (CheckData, and CountFindings, which returns them in the audit's
// terms for the findings they concern), which the caller asks for
// explicitly, each count in a read-only transaction of its own so that the
// session holds few locks at any moment. No transaction stays open between
// requests, every wait for the server is bounded on the client as well, and
// a lost connection ends the session: docs/production.md.
//
// The package never prints and never exits, and no error it returns contains
// the connection password (internal/pgsecret).
package inspect

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/internal/pgsecret"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Config says how to reach the server and how long any one query may take.
type Config struct {
	// DSN is the --dsn flag: a postgres:// URL or libpq key=value settings.
	// Empty means DATABASE_URL, and when that is empty too, the PG*
	// environment variables, ~/.pgpass and service files as libpq reads them.
	DSN string
	// Getenv reads DATABASE_URL and PGPASSWORD (for scrubbing); nil means
	// the process environment.
	Getenv func(string) string
	// Timeout bounds the connection attempt, becomes the statement_timeout
	// of every transaction, and bounds every wait for the server on the
	// client too (Timeout plus AnswerGrace), so that a server or proxy that
	// stops answering cannot hold the run. Zero means 30 s.
	Timeout time.Duration
	// LockTimeout is the lock_timeout of every transaction, shorter than
	// Timeout so that a wait for a lock is reported as one. Zero means
	// DefaultLockTimeout, or half of Timeout when that is shorter.
	LockTimeout time.Duration
	// Deadline bounds the whole session, from Start: connecting, the
	// catalog, every count. Zero means no bound beyond Timeout per wait.
	Deadline time.Duration
	// Start is when the run began, for the deadline and for the elapsed
	// time errors give; zero means when Open (or Attach) is called.
	Start time.Time
}

// DefaultTimeout is the --timeout default.
const DefaultTimeout = 30 * time.Second

// DefaultLockTimeout is the --lock-timeout default: a table that another
// session holds locked (an ALTER TABLE, a VACUUM FULL) is given up on after
// this long, once, and its counts are skipped.
const DefaultLockTimeout = time.Second

// AnswerGrace is how much longer than Timeout the client waits for an
// answer before it gives the server up: long enough for the server's own
// statement_timeout to be heard first, short enough that a stalled server
// ends the run within Timeout and a second.
const AnswerGrace = 500 * time.Millisecond

func (c Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

func (c Config) lockTimeout() time.Duration {
	if c.LockTimeout > 0 {
		return c.LockTimeout
	}
	return min(DefaultLockTimeout, c.timeout()/2)
}

// check refuses a lock timeout that is not shorter than the statement
// timeout: a lock wait would then be reported as a timed-out count.
func (c Config) check() error {
	if c.lockTimeout() >= c.timeout() {
		return fmt.Errorf("the lock timeout (%s) must be shorter than the timeout (%s), so that a wait for a lock is reported as one", c.lockTimeout(), c.timeout())
	}
	return nil
}

func (c Config) getenv(key string) string {
	if c.Getenv != nil {
		return c.Getenv(key)
	}
	return osGetenv(key)
}

// connString picks the settings the way libpq users expect: the flag, then
// DATABASE_URL, then nothing, which lets pgx read the PG* variables.
func (c Config) connString() string {
	if c.DSN != "" {
		return c.DSN
	}
	return c.getenv("DATABASE_URL")
}

// DatabaseVars are the libpq environment variables that name a database or
// the way to it: with none of them set, and neither --dsn nor DATABASE_URL,
// there is no database given, and libpq's fallbacks (the local socket, the
// login name as user and database) would be a guess.
var DatabaseVars = []string{"PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE"}

// ErrNoDatabase is the refusal to guess a database.
var ErrNoDatabase = errors.New("no database given: use --dsn, DATABASE_URL or PGHOST/PGDATABASE")

// Given returns ErrNoDatabase when dsn is empty and getenv finds neither
// DATABASE_URL nor any of DatabaseVars set; nil otherwise. getenv nil
// means the process environment.
func Given(dsn string, getenv func(string) string) error {
	if strings.TrimSpace(dsn) != "" {
		return nil
	}
	if getenv == nil {
		getenv = osGetenv
	}
	for _, k := range append([]string{"DATABASE_URL"}, DatabaseVars...) {
		if getenv(k) != "" {
			return nil
		}
	}
	return ErrNoDatabase
}

// ConnectError is a failed connection, said in one line: where we tried to
// connect, as whom, and the server's (or the network's) reason. It never holds
// the password.
type ConnectError struct {
	Host     string
	Port     uint16
	User     string
	Database string
	Reason   string
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("cannot connect to PostgreSQL at host=%s port=%d user=%s database=%s: %s",
		e.Host, e.Port, e.User, e.Database, e.Reason)
}

// ConfigError is a connection string that could not be read. Its text has
// every password it could find in the string blanked out.
type ConfigError struct{ Reason string }

func (e *ConfigError) Error() string { return "invalid connection settings: " + e.Reason }

// parseConfig turns the settings into a pgx configuration.
func parseConfig(cfg Config) (*pgx.ConnConfig, *pgsecret.Scrubber, error) {
	dsn := cfg.connString()
	scrub := pgsecret.New(dsn, cfg.getenv("PGPASSWORD"))
	cc, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, scrub, &ConfigError{Reason: scrub.Clean(parseReason(err))}
	}
	scrub.Add(cc.Password)
	if cc.ConnectTimeout == 0 || cc.ConnectTimeout > cfg.timeout() {
		cc.ConnectTimeout = cfg.timeout()
	}
	// One pipelined batch is one round trip only when pgx does not prepare
	// statements first; the catalog queries take no parameters worth caching.
	cc.DefaultQueryExecMode = pgx.QueryExecModeExec
	return cc, scrub, nil
}

// parseReason keeps what pgx says about a bad connection string without the
// string itself, which may carry a password in a form pgx could not redact.
func parseReason(err error) string {
	var pe *pgconn.ParseConfigError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	msg := pe.Error()
	// "cannot parse `...`: failed to parse as URL (...)": drop the quoted string.
	if i := strings.LastIndex(msg, "`: "); i >= 0 {
		msg = msg[i+3:]
	}
	return msg
}

// connectError explains a failed pgx.ConnectConfig in one line.
func connectError(cc *pgx.ConnConfig, err error, scrub *pgsecret.Scrubber) *ConnectError {
	host := cc.Host
	if strings.HasPrefix(host, "/") {
		host = "socket " + host
	}
	return &ConnectError{
		Host:     scrub.Clean(host),
		Port:     cc.Port,
		User:     scrub.Clean(cc.User),
		Database: scrub.Clean(cc.Database),
		Reason:   scrub.Clean(connectReason(err)),
	}
}

// connectReason is the most specific cause: the server's message when it
// answered, the network's when it did not.
func connectReason(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Message + " (SQLSTATE " + pgErr.Code + ")"
	}
	if pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		return opErr.Op + ": " + opErr.Err.Error()
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.Error()
	}
	msg := err.Error()
	// pgx prefixes "failed to connect to `user=... database=...`:"; we say
	// that ourselves.
	if i := strings.Index(msg, "`: "); i >= 0 {
		msg = msg[i+3:]
	}
	return strings.Join(strings.Fields(msg), " ")
}

// serverVersion reads the server_version the server reports at startup
// ("15.4 (Debian 15.4-1)", "12.17") as PostgreSQL's number (150004, 120017),
// without a round trip.
func serverVersion(pc *pgconn.PgConn) (int, error) {
	text := pc.ParameterStatus("server_version")
	fields := strings.FieldsFunc(text, func(r rune) bool { return r < '0' || r > '9' })
	if len(fields) == 0 {
		return 0, fmt.Errorf("server reported an unreadable server_version %q", text)
	}
	major, err := strconv.Atoi(fields[0])
	if err != nil {
		return 0, fmt.Errorf("server reported an unreadable server_version %q", text)
	}
	minor := 0
	if len(fields) > 1 {
		minor, _ = strconv.Atoi(fields[1])
	}
	if major < 10 {
		return 0, fmt.Errorf("PostgreSQL %s is not supported (12 or later is needed)", text)
	}
	return major*10000 + minor, nil
}
