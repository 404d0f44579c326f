package sqlrace

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/internal/pgsecret"
	"github.com/jackc/pgx/v5"
)

// borrowSQLRun runs on the caller's sessions (Probe.Sessions): the first
// is the coordinator, the others the workers.
func borrowSQLRun(ctx context.Context, p *Probe, st Statement, start time.Time) (*sqlRun, error) {
	if len(p.Sessions) != p.N+1 {
		return nil, fmt.Errorf("a race of %d claims needs %d sessions (one per claim and a coordinator), got %d", p.N, p.N+1, len(p.Sessions))
	}
	scrub := p.Scrub
	if scrub == nil {
		scrub = pgsecret.New("")
	}
	where := "the lent sessions"
	if cfg := p.Sessions[0].Config(); cfg != nil {
		scrub.Add(cfg.Password)
		where = scrub.Clean(fmt.Sprintf("%s:%d database %s", cfg.Host, cfg.Port, cfg.Database))
	}
	r := &sqlRun{p: p, st: st, scrub: scrub, start: start, where: where, lockTimeoutArg: fmt.Sprint(p.LockTimeout.Milliseconds()), borrowed: true}
	r.lockKey, r.keyHi, r.keyLo = newLockKey()
	r.coord, r.workers = p.Sessions[0], p.Sessions[1:]
	if err := r.prepareClaim(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// giveBack leaves borrowed sessions as they were lent: a transaction a
// failed round left open is rolled back. (The coordinator's advisory lock
// is released in every round that took it, or went with a broken
// connection.) A session that cannot be tidied is closed, so that the pool
// discards it rather than hand out a session inside a transaction.
func (r *sqlRun) giveBack(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, c := range append([]*pgx.Conn{r.coord}, r.workers...) {
		if c.IsClosed() || c.PgConn().TxStatus() == 'I' {
			continue
		}
		if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
			c.Close(ctx)
		}
	}
}
