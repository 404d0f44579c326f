package idemsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// acquireWait bounds how long a race waits for its sessions from a pool
// that is busy elsewhere (another parallel test, a transaction the test
// holds open) before it fails with the reason instead of waiting forever.
const acquireWait = 10 * time.Second

// lease is the N+1 sessions of one race, and what gives them back.
type lease struct {
	conns   []*pgx.Conn
	release func()
}

// acquire takes n sessions from db: new connections for a DSN, sessions of
// the pool otherwise. It takes all n or none, so that two races sharing a
// pool cannot each hold half of it and wait for the other.
func acquire(ctx context.Context, db any, n int) (*lease, error) {
	switch db := db.(type) {
	case string:
		return connect(ctx, db, n)
	case *pgxpool.Pool:
		if db == nil {
			return nil, errors.New("the *pgxpool.Pool is nil")
		}
		if max := int(db.Config().MaxConns); max < n {
			return nil, fmt.Errorf("the pool allows %d connections (MaxConns, pool_max_conns in the DSN), and a race of %d claims "+
				"needs %d sessions at once (one per claim and a coordinator): raise MaxConns, or lower idemtest.N", max, n-1, n)
		}
		return allOrNone(ctx, n, func(ctx context.Context) (*pgx.Conn, func(), error) {
			c, err := db.Acquire(ctx)
			if err != nil {
				return nil, nil, err
			}
			return c.Conn(), c.Release, nil
		}, func() string {
			st := db.Stat()
			return fmt.Sprintf("%d of the pool's %d connections are in use elsewhere", st.AcquiredConns(), st.MaxConns())
		})
	case *sql.DB:
		if db == nil {
			return nil, errors.New("the *sql.DB is nil")
		}
		if max := db.Stats().MaxOpenConnections; max > 0 && max < n {
			return nil, fmt.Errorf("the *sql.DB allows %d open connections (SetMaxOpenConns), and a race of %d claims "+
				"needs %d sessions at once (one per claim and a coordinator): raise it, or lower idemtest.N", max, n-1, n)
		}
		return allOrNone(ctx, n, func(ctx context.Context) (*pgx.Conn, func(), error) { return rawConn(ctx, db) },
			func() string {
				st := db.Stats()
				return fmt.Sprintf("%d of the *sql.DB's %d open connections are in use elsewhere", st.InUse, st.MaxOpenConnections)
			})
	}
	return nil, fmt.Errorf("db is a %T; want a DSN, a *pgxpool.Pool or a *sql.DB", db)
}

// connect opens n connections to dsn.
func connect(ctx context.Context, dsn string, n int) (*lease, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("the DSN cannot be read: %v", err)
	}
	l := &lease{}
	closers := []func(){}
	l.release = func() {
		for _, c := range closers {
			c()
		}
	}
	for range n {
		c, err := pgx.ConnectConfig(ctx, cfg.Copy())
		if err != nil {
			l.release()
			return nil, fmt.Errorf("connecting to PostgreSQL: %v", err)
		}
		l.conns = append(l.conns, c)
		closers = append(closers, func() { c.Close(context.Background()) })
	}
	return l, nil
}

// allOrNone takes n sessions with take. When the pool cannot give them all
// within a short try, it gives back what it took and tries again a moment
// later, until acquireWait has passed; then busy says why.
func allOrNone(ctx context.Context, n int, take func(context.Context) (*pgx.Conn, func(), error), busy func() string) (*lease, error) {
	ctx, cancel := context.WithTimeout(ctx, acquireWait)
	defer cancel()
	for {
		try, cancelTry := context.WithTimeout(ctx, 250*time.Millisecond)
		l := &lease{}
		var releases []func()
		var err error
		for range n {
			var c *pgx.Conn
			var release func()
			if c, release, err = take(try); err != nil {
				break
			}
			l.conns = append(l.conns, c)
			releases = append(releases, release)
		}
		cancelTry()
		l.release = func() {
			for _, r := range releases {
				r()
			}
		}
		if err == nil {
			return l, nil
		}
		l.release()
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			return nil, fmt.Errorf("taking a session from the pool: %v", err)
		}
		select {
		case <-ctx.Done():
			why := busy()
			if ctx.Err() == context.DeadlineExceeded {
				return nil, fmt.Errorf("could not take %d sessions at once from the pool within %s: %s "+
					"(a transaction the test holds open, or parallel tests sharing a small pool)", n, acquireWait, why)
			}
			return nil, ctx.Err()
		case <-time.After(time.Duration(10+rand.IntN(40)) * time.Millisecond):
		}
	}
}

// pgxConn is what pgx's database/sql driver (github.com/jackc/pgx/v5/stdlib)
// exposes of its connections.
type pgxConn interface{ Conn() *pgx.Conn }

// rawConn takes one session of a *sql.DB and reaches the pgx connection
// under it. database/sql lends the driver's connection only while a
// function runs, so that function waits until the race gives it back; a
// session left unusable is reported bad, and database/sql discards it.
func rawConn(ctx context.Context, db *sql.DB) (*pgx.Conn, func(), error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	type lent struct {
		conn *pgx.Conn
		err  error
	}
	got, done, finished := make(chan lent, 1), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		lentOne := false
		err := c.Raw(func(dc any) error {
			lentOne = true
			pc, ok := dc.(pgxConn)
			if !ok {
				got <- lent{err: fmt.Errorf("the *sql.DB's driver connection is a %T; idemsql races on pgx sessions, "+
					"so open the database with the pgx driver (github.com/jackc/pgx/v5/stdlib), or pass the DSN", dc)}
				return nil
			}
			got <- lent{conn: pc.Conn()}
			<-done
			if conn := pc.Conn(); conn.IsClosed() || conn.PgConn().TxStatus() != 'I' {
				return driver.ErrBadConn
			}
			return nil
		})
		if !lentOne {
			got <- lent{err: fmt.Errorf("reaching the *sql.DB's connection: %v", err)}
		}
	}()
	l := <-got
	release := func() {
		close(done)
		<-finished
		c.Close()
	}
	if l.err != nil {
		release()
		return nil, nil, l.err
	}
	return l.conn, release, nil
}
