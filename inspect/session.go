package inspect

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/internal/pgsecret"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

var osGetenv = os.Getenv

// MinServerVersion is the oldest server the catalog queries are written for.
const MinServerVersion = 120000

// Session is one connection to the server. It holds no transaction between
// requests: the catalog is read in one read-only transaction that ends with
// the read, and every data count runs in a read-only transaction of its own,
// so that the locks a request takes are released before the next one.
type Session struct {
	conn *pgx.Conn
	// wire is the connection's socket as pgx writes to it (nil for an
	// attached one): an exchange that ends without its answer mutes it, so
	// that nothing more reaches a server that stopped answering, not even
	// the Terminate pgx sends as it closes (its cancel request goes on a
	// connection of its own).
	wire  *mutedConn
	trips *tripCounter
	scrub *pgsecret.Scrubber
	// timeout and lockTimeout are statement_timeout and lock_timeout of
	// every transaction; timeout (and AnswerGrace) also bounds every wait
	// for an answer on the client.
	timeout, lockTimeout time.Duration
	// start is when the run began; until is its deadline (zero for none),
	// deadline the --deadline that set it.
	start, until time.Time
	deadline     time.Duration
	// lost is set once the connection is gone: every later request
	// returns it instead of sending anything.
	lost *SessionError
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

// Open connects and checks the server's version. The connection attempt is
// bounded by the timeout and the deadline.
func Open(ctx context.Context, cfg Config) (*Session, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := Given(cfg.DSN, cfg.getenv); err != nil {
		return nil, err
	}
	cc, scrub, err := parseConfig(cfg)
	if err != nil {
		return nil, err
	}
	trips := &tripCounter{}
	cc.Tracer = trips
	s := newSession(cfg, scrub)
	cc.AfterNetConnect = func(_ context.Context, _ *pgconn.Config, c net.Conn) (net.Conn, error) {
		s.wire = &mutedConn{Conn: c}
		return s.wire, nil
	}
	s.place(cc)
	x := s.exchange(ctx)
	conn, err := pgx.ConnectConfig(x.ctx, cc)
	cause := x.cause()
	x.done()
	if err != nil {
		ce := connectError(cc, err, scrub)
		if errors.Is(cause, errDeadline) {
			ce.Reason = fmt.Sprintf("the run's --deadline of %s passed", cfg.Deadline)
		}
		return nil, ce
	}
	s.conn, s.trips = conn, trips
	if err := s.checkVersion(); err != nil {
		closeConn(conn)
		return nil, err
	}
	return s, nil
}

// Attach uses a connection the caller already holds (a Go test library's
// pool session) instead of opening one. Close then leaves it open, outside
// any transaction.
func Attach(ctx context.Context, conn *pgx.Conn, timeout time.Duration) (*Session, error) {
	cc := conn.Config()
	cfg := Config{Timeout: timeout}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	s := newSession(cfg, pgsecret.New("", cc.Password))
	s.conn, s.trips, s.attached = conn, &tripCounter{}, true
	s.place(cc)
	if err := s.checkVersion(); err != nil {
		return nil, err
	}
	return s, nil
}

func newSession(cfg Config, scrub *pgsecret.Scrubber) *Session {
	s := &Session{scrub: scrub, timeout: cfg.timeout(), lockTimeout: cfg.lockTimeout(), start: cfg.Start, deadline: cfg.Deadline}
	if s.start.IsZero() {
		s.start = time.Now()
	}
	if cfg.Deadline > 0 {
		s.until = s.start.Add(cfg.Deadline)
	}
	return s
}

// place records where the session connects, scrubbed: a server echoes a
// database or user name back, and the password may have been typed there.
func (s *Session) place(cc *pgx.ConnConfig) {
	s.Host, s.Port, s.User, s.Database = s.scrub.Clean(cc.Host), cc.Port, s.scrub.Clean(cc.User), s.scrub.Clean(cc.Database)
}

// checkVersion reads the version the server reported at start-up.
func (s *Session) checkVersion() error {
	var err error
	s.ServerVersion, err = serverVersion(s.conn.PgConn())
	if err == nil && s.ServerVersion < MinServerVersion {
		err = fmt.Errorf("PostgreSQL %d.%d is not supported (12 or later is needed)", s.ServerMajor(), s.ServerVersion%10000)
	}
	return err
}

// timeoutsSQL sets the timeouts of the transaction it runs in. The values
// are whole milliseconds formatted by us, so building the text is safe.
const timeoutsSQL = "SET LOCAL statement_timeout = %d; SET LOCAL lock_timeout = %d"

func (s *Session) timeouts() string {
	return fmt.Sprintf(timeoutsSQL, max(s.timeout.Milliseconds(), 1), max(s.lockTimeout.Milliseconds(), 1))
}

// beginReadOnlySQL opens the catalog's transaction, whose timeouts follow.
const beginReadOnlySQL = "BEGIN READ ONLY"

// begin opens the read-only transaction the catalog is read in, with its
// timeouts, in one simple-protocol round trip.
func (s *Session) begin(ctx context.Context) error {
	return s.exec(ctx, "starting the read-only transaction", beginReadOnlySQL+"; "+s.timeouts())
}

// exec runs sql (simple protocol, no rows) as one bounded exchange.
func (s *Session) exec(ctx context.Context, doing, sql string) error {
	if s.lost != nil {
		return s.lost
	}
	x := s.exchange(ctx)
	defer x.done()
	if _, err := s.conn.Exec(x.ctx, sql, pgx.QueryExecModeSimpleProtocol); err != nil {
		return s.fail(doing, err, x.cause())
	}
	return nil
}

// Close ends an open transaction (nothing was written, so it rolls back)
// and the connection, unless the connection was the caller's (Attach).
// Nothing is sent on a connection that is already lost.
func (s *Session) Close(ctx context.Context) error {
	var err error
	if s.lost == nil && !s.conn.IsClosed() && s.conn.PgConn().TxStatus() != 'I' {
		err = s.exec(ctx, "ending the transaction", "ROLLBACK")
	}
	if !s.attached {
		closeConn(s.conn)
	}
	return err
}

// closeConn says goodbye to the server without waiting long for it.
func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), AnswerGrace)
	defer cancel()
	conn.Close(ctx)
}

// SessionError is a request that failed after the connection was made:
// what inspect was doing, how far into the run, where, and why (the
// server's SQLSTATE and message, or what the client saw: no answer within
// --timeout, --deadline, a closed connection). Lost says the connection is
// gone; nothing more was sent on it.
type SessionError struct {
	Doing    string
	Elapsed  time.Duration
	Where    string
	SQLState string
	Reason   string
	Lost     bool
}

func (e *SessionError) Error() string {
	msg := fmt.Sprintf("%s on %s, %s into the run: %s", e.Doing, e.Where, e.Elapsed.Round(10*time.Millisecond), e.Reason)
	if e.SQLState != "" {
		msg += " (SQLSTATE " + e.SQLState + ")"
	}
	if e.Lost {
		msg += "; the connection is lost, nothing more was sent on it"
	}
	return msg
}

var (
	// errNoAnswer ends an exchange whose server has sent nothing for
	// longer than the timeout allows.
	errNoAnswer = errors.New("no answer within the timeout")
	// errDeadline ends an exchange when the run's deadline passes.
	errDeadline = errors.New("the deadline passed")
)

// fail describes a failed request, scrubbed, and marks the session lost
// when the connection did not survive it.
func (s *Session) fail(doing string, err, cause error) *SessionError {
	e := &SessionError{Doing: doing, Elapsed: time.Since(s.start), Where: fmt.Sprintf("%s:%d database %s", s.Host, s.Port, s.Database)}
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr):
		e.SQLState, e.Reason = pgErr.Code, s.scrub.Clean(pgErr.Message)
	case errors.Is(cause, errNoAnswer):
		e.Reason = fmt.Sprintf("the server sent nothing for %s (--timeout %s)", s.timeout+AnswerGrace, s.timeout)
	case errors.Is(cause, errDeadline):
		e.Reason = fmt.Sprintf("the run's --deadline of %s passed", s.deadline)
	case errors.Is(err, context.Canceled):
		e.Reason = "interrupted"
	default:
		e.Reason = s.scrub.Clean(strings.Join(strings.Fields(err.Error()), " "))
	}
	if s.conn.IsClosed() {
		e.Lost = true
		s.lost = e
	}
	return e
}

// exchange bounds one request and its answer. Its context ends when the
// server has sent nothing for the timeout and AnswerGrace (alive re-arms
// that after each part of the answer), when the run's deadline passes, or
// when the caller's context ends; cause says which. pgx closes a connection
// whose context ends mid-answer, which fail then reports as lost.
type exchange struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	limit  time.Duration
	// stopMute stops the watch that mutes the connection when ctx ends.
	stopMute func() bool
}

func (s *Session) exchange(parent context.Context) *exchange {
	ctx, stopDeadline := parent, context.CancelFunc(func() {})
	if !s.until.IsZero() {
		ctx, stopDeadline = context.WithDeadlineCause(parent, s.until, errDeadline)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	x := &exchange{ctx: ctx, limit: s.timeout + AnswerGrace}
	x.cancel = func(cause error) {
		cancel(cause)
		stopDeadline()
	}
	wire := s.wire
	x.timer = time.AfterFunc(x.limit, func() {
		wire.mute() // before pgx learns of it
		cancel(errNoAnswer)
	})
	// The run's deadline or the caller's end: muted as soon as it is seen
	// (pgx's Terminate follows its cancel request, a round trip later).
	x.stopMute = context.AfterFunc(ctx, func() {
		if !errors.Is(context.Cause(ctx), errDone) {
			wire.mute()
		}
	})
	return x
}

// errDone is the cause of an exchange's context that ended normally.
var errDone = errors.New("exchange done")

// mutedConn is a connection that refuses every write once muted.
type mutedConn struct {
	net.Conn
	muted atomic.Bool
}

var errMuted = errors.New("the connection was given up: nothing more is sent on it")

func (c *mutedConn) mute() {
	if c != nil {
		c.muted.Store(true)
	}
}

func (c *mutedConn) Write(b []byte) (int, error) {
	if c.muted.Load() {
		return 0, errMuted
	}
	return c.Conn.Write(b)
}

// alive says the server answered: the wait for the next part starts over.
func (x *exchange) alive() { x.timer.Reset(x.limit) }

// cause is why the exchange's context ended, nil while it has not.
func (x *exchange) cause() error {
	if x.ctx.Err() == nil {
		return nil
	}
	return context.Cause(x.ctx)
}

func (x *exchange) done() {
	x.timer.Stop()
	x.stopMute()
	x.cancel(errDone)
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
