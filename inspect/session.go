package inspect

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

var osGetenv = os.Getenv

// MinServerVersion is the oldest server the catalog queries are written for.
const MinServerVersion = 120000

// Session is one connection holding one read-only transaction.
type Session struct {
	conn    *pgx.Conn
	trips   *tripCounter
	scrub   *scrubber
	timeout time.Duration
	// ServerVersion is the server's version number (150004 for 15.4).
	ServerVersion int
	// Host, Port, User and Database say where the session is connected,
	// for -v output. There is deliberately no password here.
	Host     string
	Port     uint16
	User     string
	Database string
	// attached is set when the connection is the caller's (Attach).
	attached bool
}

// ServerMajor is the major version (15 for 150004), which fixes are written for.
func (s *Session) ServerMajor() int { return s.ServerVersion / 10000 }

// RoundTrips counts the requests sent to the server since the connection was
// made (the connection start-up itself not included): a pipelined batch
// counts once.
func (s *Session) RoundTrips() int { return int(s.trips.n.Load()) }

// Open connects and starts the read-only transaction with the timeouts.
func Open(ctx context.Context, cfg Config) (*Session, error) {
	cc, scrub, err := parseConfig(cfg)
	if err != nil {
		return nil, err
	}
	trips := &tripCounter{}
	cc.Tracer = trips
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, connectError(cc, err, scrub)
	}
	s := &Session{
		conn: conn, trips: trips, scrub: scrub, timeout: cfg.timeout(),
		Host: cc.Host, Port: cc.Port, User: cc.User, Database: cc.Database,
	}
	if err := s.start(ctx); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return s, nil
}

// Attach starts the read-only transaction on a connection the caller
// already holds (a Go test library's pool session) instead of opening one.
// Close then ends the transaction and leaves the connection open.
func Attach(ctx context.Context, conn *pgx.Conn, timeout time.Duration) (*Session, error) {
	cc := conn.Config()
	s := &Session{
		conn: conn, trips: &tripCounter{}, scrub: newScrubber("", cc.Password), timeout: Config{Timeout: timeout}.timeout(),
		Host: cc.Host, Port: cc.Port, User: cc.User, Database: cc.Database, attached: true,
	}
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// start checks the server's version and opens the transaction.
func (s *Session) start(ctx context.Context) error {
	var err error
	s.ServerVersion, err = serverVersion(s.conn.PgConn())
	if err == nil && s.ServerVersion < MinServerVersion {
		err = fmt.Errorf("PostgreSQL %d.%d is not supported (12 or later is needed)", s.ServerMajor(), s.ServerVersion%10000)
	}
	if err == nil {
		err = s.begin(ctx)
	}
	return err
}

// begin opens the transaction everything else runs in. The timeouts are
// whole milliseconds formatted by us, so building the SET text is safe, and
// the three statements go in one simple-protocol round trip.
func (s *Session) begin(ctx context.Context) error {
	ms := s.timeout.Milliseconds()
	if ms < 1 {
		ms = 1
	}
	sql := fmt.Sprintf("BEGIN READ ONLY; SET LOCAL statement_timeout = %d; SET LOCAL lock_timeout = %d", ms, ms)
	if _, err := s.conn.Exec(ctx, sql, pgx.QueryExecModeSimpleProtocol); err != nil {
		return s.queryError("starting the read-only transaction", err)
	}
	return nil
}

// Close ends the transaction (nothing was written, so it rolls back) and the
// connection, unless the connection was the caller's (Attach).
func (s *Session) Close(ctx context.Context) error {
	_, err := s.conn.Exec(ctx, "ROLLBACK", pgx.QueryExecModeSimpleProtocol)
	var cerr error
	if !s.attached {
		cerr = s.conn.Close(ctx)
	}
	if err != nil {
		return s.queryError("ending the transaction", err)
	}
	return cerr
}

// queryError says what we were doing when the server refused, scrubbed.
func (s *Session) queryError(doing string, err error) error {
	return fmt.Errorf("%s on %s:%d database %s: %s", doing, s.Host, s.Port, s.Database, s.scrub.clean(err.Error()))
}

// tripCounter counts requests through pgx's tracer hooks.
type tripCounter struct{ n atomic.Int64 }

func (t *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	t.n.Add(1)
	return ctx
}

func (t *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (t *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	t.n.Add(1)
	return ctx
}

func (t *tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (t *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
