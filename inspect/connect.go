// Package inspect reads a live PostgreSQL catalog into a catalog.Catalog, the
// same model that replaying migrations builds, so that every audit rule runs
// unchanged on a running database.
//
// Everything happens in one BEGIN READ ONLY transaction bounded by
// statement_timeout and lock_timeout, with a fixed number of round trips
// whatever the size of the database. Only the system catalogs are read, which
// every role that can connect may do; table rows are read only by the data
// checks (CheckData, and CountFindings, which returns them in the audit's
// terms for the findings they concern), which the caller asks for
// explicitly.
//
// The package never prints and never exits, and no error it returns contains
// the connection password.
package inspect

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

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
	// Timeout bounds the connection attempt and becomes statement_timeout
	// and lock_timeout of the read-only transaction. Zero means 30 s.
	Timeout time.Duration
}

// DefaultTimeout is the --timeout default.
const DefaultTimeout = 30 * time.Second

func (c Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
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
func parseConfig(cfg Config) (*pgx.ConnConfig, *scrubber, error) {
	dsn := cfg.connString()
	scrub := newScrubber(dsn, cfg.getenv("PGPASSWORD"))
	cc, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, scrub, &ConfigError{Reason: scrub.clean(parseReason(err))}
	}
	scrub.add(cc.Password)
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
func connectError(cc *pgx.ConnConfig, err error, scrub *scrubber) error {
	host := cc.Host
	if strings.HasPrefix(host, "/") {
		host = "socket " + host
	}
	return &ConnectError{
		Host:     host,
		Port:     cc.Port,
		User:     cc.User,
		Database: cc.Database,
		Reason:   scrub.clean(connectReason(err)),
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

// scrubber removes every password we know of from text meant for people.
type scrubber struct{ secrets []string }

// minSecret is the shortest password worth blanking out: replacing a one- or
// two-letter password everywhere would mangle the message and hide nothing.
const minSecret = 3

var (
	urlPassword = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://[^:@/]*:([^@]*)@`)
	kvPassword  = regexp.MustCompile(`(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|[^\s]*)`)
)

func newScrubber(dsn, envPassword string) *scrubber {
	s := &scrubber{}
	s.add(envPassword)
	if m := urlPassword.FindStringSubmatch(dsn); m != nil {
		s.add(m[1])
		if dec, err := url.PathUnescape(m[1]); err == nil {
			s.add(dec)
		}
	}
	for _, m := range kvPassword.FindAllStringSubmatch(dsn, -1) {
		v := m[1]
		s.add(v)
		if strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2 {
			s.add(strings.ReplaceAll(v[1:len(v)-1], `\'`, `'`))
		}
		if dec, err := url.QueryUnescape(v); err == nil {
			s.add(dec)
		}
	}
	return s
}

func (s *scrubber) add(secret string) {
	if len(secret) >= minSecret {
		s.secrets = append(s.secrets, secret)
	}
}

func (s *scrubber) clean(text string) string {
	for _, secret := range s.secrets {
		text = strings.ReplaceAll(text, secret, "********")
	}
	return text
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
