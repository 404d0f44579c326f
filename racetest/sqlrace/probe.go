package sqlrace

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/internal/pgsecret"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SyncAdvisoryLock names the SQL probe's synchronisation in the result.
const SyncAdvisoryLock = "advisory-lock"

// Defaults of the SQL probe (docs/race.md, "SQL claims").
const (
	DefaultLockTimeout = 500 * time.Millisecond
	DefaultTimeout     = 10 * time.Second
)

// Probe describes a race of one claim statement inside PostgreSQL: N
// connections run it at the same moment, each in its own transaction.
type Probe struct {
	// DSN is handed to pgx as it is (URL, key=value, or empty for the PG*
	// variables); the caller resolves --dsn and DATABASE_URL.
	DSN string
	// Statement is the claim with {{key}}, {{round}} and {{uuid}}.
	Statement string
	N         int
	Rounds    int
	// Commit keeps the rows; by default every transaction rolls back.
	Commit bool
	// Isolation is the workers' isolation level: read-committed (the
	// default), repeatable-read or serializable.
	Isolation string
	// LockTimeout is SET LOCAL lock_timeout for the claim: a claim blocked
	// behind another that has not committed gives up after it (a refusal).
	LockTimeout time.Duration
	// Timeout bounds each round: the wait for every worker to reach the
	// barrier, and the claim itself.
	Timeout  time.Duration
	Deadline time.Duration
	// Window marks a round whose start spread exceeds it as inconclusive.
	Window time.Duration
	Force  bool
	RunID  string
	// Sessions, when set, are the sessions the probe runs on instead of
	// connecting to DSN: N+1 of them, the first the coordinator, from a Go
	// caller's pool. The probe leaves them open, outside any transaction
	// and holding no advisory lock; the caller gives them back.
	Sessions []*pgx.Conn
	// UniqueKeys reads a table's unique indexes for the diagnosis of a
	// broken round; nil means no diagnosis. The caller wires it to the live
	// catalog reader, so this package stays free of it.
	UniqueKeys func(ctx context.Context, schema, table string) ([]UniqueKey, error)
	// CallerSessions counts the sessions the caller holds on the same
	// server during the run (race sql's catalog reader), for the error
	// that says how many sessions a race needs.
	CallerSessions int
	// Scrub, when set, cleans the text of every error of the passwords
	// the caller knows of (pgsecret); the probe adds the one it connects
	// with.
	Scrub *pgsecret.Scrubber
	// Progress, when set, is told of the rounds as they run: Start once
	// the sessions are open, Round after each one.
	Progress racetest.Progress
}

// Defaults fills zero fields with the documented defaults.
func (p *Probe) Defaults() {
	if p.N == 0 {
		p.N = 2
	}
	if p.Rounds == 0 {
		p.Rounds = 30
	}
	if p.LockTimeout == 0 {
		p.LockTimeout = DefaultLockTimeout
	}
	if p.Timeout == 0 {
		p.Timeout = DefaultTimeout
	}
	if p.Deadline == 0 {
		p.Deadline = 5 * time.Minute
	}
	if p.RunID == "" {
		p.RunID = racetest.NewRunID()
	}
	if p.Isolation == "" {
		p.Isolation = "read-committed"
	}
}

// beginSQL opens a worker's transaction at each isolation level.
var beginSQL = map[string]string{
	"read-committed":  "BEGIN ISOLATION LEVEL READ COMMITTED",
	"repeatable-read": "BEGIN ISOLATION LEVEL REPEATABLE READ",
	"serializable":    "BEGIN ISOLATION LEVEL SERIALIZABLE",
}

// Validate rejects settings that cannot run or that need Force, and returns
// the statement with its templates turned into parameters.
func (p *Probe) Validate() (Statement, error) {
	if err := racetest.CheckLimits(p.N, p.Rounds, p.Force); err != nil {
		return Statement{}, err
	}
	if _, ok := beginSQL[p.Isolation]; !ok {
		return Statement{}, fmt.Errorf("--isolation %q: want read-committed, repeatable-read or serializable", p.Isolation)
	}
	if p.LockTimeout < time.Millisecond {
		return Statement{}, fmt.Errorf("--lock-timeout %s: want at least 1ms", p.LockTimeout)
	}
	st, err := ParseStatement(p.Statement)
	if err != nil {
		return Statement{}, err
	}
	if p.Isolation != "read-committed" && !p.Commit {
		return Statement{}, fmt.Errorf("--isolation %s needs --commit: under REPEATABLE READ and SERIALIZABLE PostgreSQL decides "+
			"between concurrent claims at COMMIT (a serialization failure, 40001), which the default rollback never reaches, "+
			"so a sound claim would look broken; with --commit the winners' rows are kept (race a throwaway database, or keys of their own)", p.Isolation)
	}
	if p.Commit && !st.UsesKey() {
		return Statement{}, fmt.Errorf("--commit keeps each round's rows, so the statement needs {{key}} or {{uuid}} " +
			"to claim a fresh key each round; otherwise round 1's row refuses every later round")
	}
	return st, nil
}

// SQL the probe runs besides the claim. The barrier is its own statement
// (see claim) and the lock timeout is set after it, so that waiting at the
// barrier is never cut short by the claim's lock timeout.
const (
	// barrierSQL waits for the coordinator's release, then reads the clock
	// once per worker: the start of the claim, on the server's clock.
	barrierSQL = `WITH barrier AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared($1)) SELECT clock_timestamp() FROM barrier`
	// lockTimeoutSQL is SET LOCAL lock_timeout with a bind parameter.
	lockTimeoutSQL = `SELECT set_config('lock_timeout', $1, true)`
	// holdBarrierSQL and releaseBarrierSQL are the coordinator's side.
	holdBarrierSQL    = `SELECT pg_advisory_lock($1)`
	releaseBarrierSQL = `SELECT pg_advisory_unlock($1)`
	// waitersSQL counts the workers waiting at the barrier. A bigint
	// advisory key shows in pg_locks as classid (high half), objid (low
	// half) and objsubid 1.
	waitersSQL = `SELECT count(*) FROM pg_locks
WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND classid::int8 = $1 AND objid::int8 = $2`
	// writtenTablesSQL lists the tables this transaction inserted into or
	// updated (they hold ROW EXCLUSIVE): the claim's target, found without
	// parsing the statement.
	writtenTablesSQL = `SELECT n.nspname, c.relname FROM pg_locks l
JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' AND l.mode = 'RowExclusiveLock'
  AND c.relkind IN ('r', 'p') AND NOT c.relispartition
ORDER BY 1, 2`
	// writtenRowsSQL reads the rows this transaction wrote to one table
	// (%s is the quoted table name): the statement's values as stored,
	// defaults included. xmin is compared as text to avoid xid8 (PG 13+).
	writtenRowsSQL = `SELECT to_jsonb(t) FROM %s AS t WHERE t.xmin::text = (txid_current() %% 4294967296)::text LIMIT 10`
)

// Run races the claim statement for p.Rounds rounds, or until the
// deadline, and judges the result. It returns an error only when the probe
// could not run at all: bad settings, no connection, a statement the server
// rejects before any round.
func Run(ctx context.Context, p Probe) (*racetest.Result, error) {
	p.Defaults()
	st, err := p.Validate()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, p.Deadline)
	defer cancel()
	run, err := openSQLRun(ctx, &p, st, start)
	if err != nil {
		return nil, err
	}
	defer run.close()

	res := &racetest.Result{Target: oneLine(p.Statement), Method: "SQL", N: p.N, Sync: SyncAdvisoryLock, Window: p.Window}
	if p.Commit {
		res.Warnings = append(res.Warnings, "--commit: the winners' rows were kept")
	}
	if p.Progress != nil {
		p.Progress.Start(res, p.Rounds)
	}
	if err := racetest.RunRounds(ctx, run, res, p.Rounds, p.Deadline, p.Progress); err != nil {
		return nil, err
	}
	res.Diagnosis = run.diagnosis
	return res, nil
}

// sqlRun holds the coordinator and worker connections of one run; it is
// the SQL probe's Prober.
type sqlRun struct {
	p       *Probe
	st      Statement
	scrub   *pgsecret.Scrubber
	coord   *pgx.Conn
	workers []*pgx.Conn
	// start is when the run began and where the server it runs on,
	// both for errors.
	start time.Time
	where string
	// lockKey is the advisory lock key of this run, split as pg_locks shows it.
	lockKey        int64
	keyHi, keyLo   int64
	lockTimeoutArg string
	// borrowed is set when the sessions are the caller's (Probe.Sessions).
	borrowed bool
	// diagnosis names the unique index that should have refused, from the
	// first round with more than one win.
	diagnosis []string
}

// Round fires one burst. The first round with more than one win is
// diagnosed from the rows its winners wrote, read back before they rolled
// back.
func (r *sqlRun) Round(ctx context.Context, i int) (racetest.Round, []string, error) {
	diagnose := r.p.UniqueKeys != nil && r.diagnosis == nil
	round, written, warn, err := r.round(ctx, i, diagnose)
	// A round the run's deadline cut short says nothing about the gate.
	if ctx.Err() != nil && (err != nil || round.Count(racetest.Error) > 0) {
		return racetest.Round{}, warn, fmt.Errorf("%w: round %d was cut short", racetest.ErrDeadline, i)
	}
	if err != nil {
		return racetest.Round{}, warn, err
	}
	if diagnose && round.Wins() > 1 {
		r.diagnosis = r.diagnose(ctx, round.Index, written)
	}
	return round, warn, nil
}

func openSQLRun(ctx context.Context, p *Probe, st Statement, start time.Time) (*sqlRun, error) {
	if p.Sessions != nil {
		return borrowSQLRun(ctx, p, st, start)
	}
	scrub := p.Scrub
	if scrub == nil {
		scrub = pgsecret.New(p.DSN)
	}
	cfg, err := pgx.ParseConfig(p.DSN)
	if err != nil {
		return nil, fmt.Errorf("%w: the connection settings cannot be read", racetest.ErrNoConnection)
	}
	scrub.Add(cfg.Password)
	// Every connection attempt is bounded by --timeout, not only by the
	// run's deadline.
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > p.Timeout {
		cfg.ConnectTimeout = p.Timeout
	}
	r := &sqlRun{p: p, st: st, scrub: scrub, start: start, lockTimeoutArg: fmt.Sprint(p.LockTimeout.Milliseconds()),
		where: scrub.Clean(fmt.Sprintf("%s:%d database %s", cfg.Host, cfg.Port, cfg.Database))}
	r.lockKey, r.keyHi, r.keyLo = newLockKey()
	if r.coord, err = r.connect(ctx, cfg, 1); err != nil {
		return nil, err
	}
	if err := r.prepareClaim(ctx); err != nil {
		r.close()
		return nil, err
	}
	for k := range p.N {
		c, err := r.connect(ctx, cfg, k+2)
		if err != nil {
			r.close()
			return nil, err
		}
		r.workers = append(r.workers, c)
	}
	return r, nil
}

// prepareClaim checks the statement once on the coordinator, which turns
// a typo into one clear error before any round instead of N identical
// errors in every round, and refuses a statement that returns no row: no
// worker could ever be seen to win, so it is not a claim.
func (r *sqlRun) prepareClaim(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, r.p.Timeout)
	defer cancel()
	sd, err := r.coord.Prepare(pctx, "", r.st.Text)
	if err != nil {
		return r.stopped("preparing the claim statement", err, ctx, pctx)
	}
	if len(sd.Fields) == 0 {
		return fmt.Errorf("not a claim: the statement returns no row (as TRUNCATE, DROP or an INSERT or UPDATE " +
			"without RETURNING), so no worker could ever be seen to win; add RETURNING, or claim with SELECT ... FOR UPDATE")
	}
	return nil
}

// stopped says why a request of the run failed: what the probe was doing,
// how far into the run, and the server's reason, or which bound ended the
// wait (the request's --timeout, the run's --deadline).
func (r *sqlRun) stopped(doing string, err error, run, req context.Context) error {
	var bound string
	switch {
	case run.Err() != nil:
		bound = fmt.Sprintf("the run's --deadline of %s passed", r.p.Deadline)
	case req.Err() != nil:
		bound = fmt.Sprintf("the server sent nothing for %s (--timeout)", r.p.Timeout)
	default:
		return fmt.Errorf("%s on %s: %s", doing, r.where, r.describe(err))
	}
	return fmt.Errorf("%s on %s, %s into the run: %s", doing, r.where, time.Since(r.start).Round(10*time.Millisecond), bound)
}

// connect opens session number k of the run (the coordinator is 1).
func (r *sqlRun) connect(ctx context.Context, cfg *pgx.ConnConfig, k int) (*pgx.Conn, error) {
	c, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err == nil {
		return c, nil
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "53300" { // too_many_connections
		need := r.p.N + 1 + r.p.CallerSessions
		return nil, fmt.Errorf("%w: PostgreSQL at %s refused session %d of %d: %s; a race of -n %d needs %d sessions at once "+
			"(%s): lower -n, or raise max_connections or the role's CONNECTION LIMIT",
			racetest.ErrNoConnection, r.where, k+r.p.CallerSessions, need, r.describe(err), r.p.N, need, r.sessionParts())
	}
	return nil, fmt.Errorf("%w to PostgreSQL at %s", racetest.ErrNoConnection, r.scrub.Clean(fmt.Sprintf("host=%s port=%d user=%s database=%s: %s",
		cfg.Host, cfg.Port, cfg.User, cfg.Database, r.describe(err))))
}

// sessionParts says what the sessions of a run are for.
func (r *sqlRun) sessionParts() string {
	parts := fmt.Sprintf("%d workers and a coordinator", r.p.N)
	if r.p.CallerSessions > 0 {
		parts = fmt.Sprintf("%d workers, a coordinator and the catalog reader", r.p.N)
	}
	return parts
}

// close ends the run's sessions, each goodbye bounded.
func (r *sqlRun) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if r.borrowed {
		r.giveBack(ctx)
		return
	}
	for _, c := range append([]*pgx.Conn{r.coord}, r.workers...) {
		if c != nil {
			c.Close(ctx)
		}
	}
}

// newLockKey picks a random advisory key for the run, kept positive in both
// halves so that pg_locks' oid columns compare as plain numbers.
func newLockKey() (key, hi, lo int64) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	hi = int64(binary.BigEndian.Uint32(b[:4]) & 0x7fffffff)
	lo = int64(binary.BigEndian.Uint32(b[4:]) & 0x7fffffff)
	return hi<<32 | lo, hi, lo
}

// claimResult is what one worker saw in one round.
type claimResult struct {
	start    time.Time // server clock right after the barrier
	started  bool
	done     time.Time // client clock when the claim's answer was read
	outcome  racetest.Outcome
	written  []WrittenRows
	diagnose string // why the written rows could not be read, if so
}

// round runs one synchronised burst. The coordinator holds the barrier,
// every worker queues BEGIN, the barrier, the lock timeout and the claim
// in one pipeline; when all N wait at the barrier the coordinator releases
// it. Every worker holds its transaction open until all have answered, so
// that a claim blocked behind another's uncommitted row times out (a
// refusal) instead of going through when the first one rolls back.
func (r *sqlRun) round(ctx context.Context, i int, diagnose bool) (racetest.Round, []WrittenRows, []string, error) {
	ctx, cancel := context.WithTimeout(ctx, r.p.Timeout+r.p.LockTimeout)
	defer cancel()
	if _, err := r.coord.Exec(ctx, holdBarrierSQL, r.lockKey); err != nil {
		return racetest.Round{}, nil, nil, r.stopped("taking the barrier lock", err, ctx, ctx)
	}
	vals := racetest.NewRoundValues(r.p.RunID, i)
	args := r.st.Args(vals)
	results := make([]claimResult, len(r.workers))
	var returned atomic.Int32
	var answered, finished sync.WaitGroup
	decided := make(chan struct{})
	collect := false
	var released time.Time
	for k, w := range r.workers {
		answered.Add(1)
		finished.Add(1)
		go func() {
			defer finished.Done()
			res := &results[k]
			*res = r.claim(ctx, w, args)
			returned.Add(1)
			answered.Done()
			<-decided
			res.outcome.Request = k + 1
			res.outcome.Elapsed = res.done.Sub(released)
			if collect && res.outcome.Kind == racetest.Win {
				res.written, res.diagnose = r.writtenRows(ctx, w)
			}
			r.end(ctx, w, res)
		}()
	}
	var warn []string
	all, err := r.waitAtBarrier(ctx, &returned)
	if err != nil {
		warn = append(warn, err.Error())
	}
	released = time.Now()
	// The release must go out even when the round's time is up (the
	// workers wait behind it), and must not wait longer than --timeout.
	unlockCtx, cancelUnlock := context.WithTimeout(context.Background(), r.p.Timeout)
	_, unlockErr := r.coord.Exec(unlockCtx, releaseBarrierSQL, r.lockKey)
	cancelUnlock()
	answered.Wait()
	wins := 0
	for _, res := range results {
		if res.outcome.Kind == racetest.Win {
			wins++
		}
	}
	collect = diagnose && wins > 1
	close(decided)
	finished.Wait()
	if unlockErr != nil {
		return racetest.Round{}, nil, warn, r.stopped("releasing the barrier", unlockErr, ctx, unlockCtx)
	}
	round := racetest.Round{Index: i, Key: vals.Key, Values: vals}
	var written []WrittenRows
	for _, res := range results {
		round.Outcomes = append(round.Outcomes, res.outcome)
		written = mergeWritten(written, res.written)
		if res.diagnose != "" {
			warn = append(warn, res.diagnose)
		}
	}
	round.StartSpread = startSpread(results)
	round.TooWide = !all || (r.p.Window > 0 && round.StartSpread != nil && *round.StartSpread > r.p.Window)
	return round, written, warn, nil
}

// waitAtBarrier polls pg_locks until every worker waits at the barrier (or
// has already given up). It reports false when the round's time ran out
// first; the round is then released anyway and judged inconclusive.
func (r *sqlRun) waitAtBarrier(ctx context.Context, returned *atomic.Int32) (bool, error) {
	n := int64(len(r.workers))
	for {
		var waiting int64
		if err := r.coord.QueryRow(ctx, waitersSQL, r.keyHi, r.keyLo).Scan(&waiting); err != nil {
			return false, fmt.Errorf("counting the workers at the barrier: %s", r.describe(err))
		}
		if waiting+int64(returned.Load()) >= n {
			return true, nil
		}
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("only %d of %d workers reached the barrier within --timeout %s", waiting, n, r.p.Timeout)
		case <-time.After(200 * time.Microsecond):
		}
	}
}

// claim runs one worker's transaction up to the claim's answer, as one
// pipeline: BEGIN, the barrier, the lock timeout, the claim. The barrier is
// a statement of its own, not a CTE of the claim, for three reasons: a
// data-modifying CTE does not wait for a sibling CTE it does not read, so
// WITH barrier AS (...) INSERT ... could insert before the barrier; under
// READ COMMITTED the claim then takes its snapshot after the release, as it
// would in the application; and any statement (INSERT, UPDATE, SELECT FOR
// UPDATE, one with its own WITH) runs unchanged. Being pipelined, the claim
// is already at the server when the barrier opens: no extra round trip.
func (r *sqlRun) claim(ctx context.Context, w *pgx.Conn, args []any) (res claimResult) {
	b := &pgx.Batch{}
	b.Queue(beginSQL[r.p.Isolation])
	b.Queue(barrierSQL, r.lockKey)
	b.Queue(lockTimeoutSQL, r.lockTimeoutArg)
	b.Queue(r.st.Text, args...)
	br := w.SendBatch(ctx, b)
	defer func() {
		if err := br.Close(); err != nil && res.outcome.Kind == "" {
			res.done, res.outcome = time.Now(), r.errorOutcome(err)
		}
	}()
	if _, err := br.Exec(); err != nil {
		res.done, res.outcome = time.Now(), r.errorOutcome(err)
		return res
	}
	if err := br.QueryRow().Scan(&res.start); err != nil {
		res.done, res.outcome = time.Now(), r.errorOutcome(err)
		return res
	}
	res.started = true
	if _, err := br.Exec(); err != nil {
		res.done, res.outcome = time.Now(), r.errorOutcome(err)
		return res
	}
	rows, err := br.Query()
	n := 0
	if err == nil {
		for rows.Next() {
			n++
		}
		rows.Close()
		err = rows.Err()
	}
	res.done = time.Now()
	switch {
	case err != nil:
		res.outcome = r.errorOutcome(err)
	case n > 0:
		res.outcome = racetest.Outcome{Kind: racetest.Win, Answer: answerRows(n)}
	default:
		res.outcome = racetest.Outcome{Kind: racetest.Refusal, Answer: "no row"}
	}
	return res
}

// end finishes a worker's transaction. With --commit a win stands only
// once its COMMIT succeeded: a COMMIT that failed (a DEFERRABLE INITIALLY
// DEFERRED unique constraint refuses a duplicate only here, 23505;
// REPEATABLE READ and SERIALIZABLE refuse with 40001), or that PostgreSQL
// answered with ROLLBACK because a statement of the transaction had
// already failed (the read-back of the winning rows raising 40001), is a
// refusal by the database, never a win.
func (r *sqlRun) end(ctx context.Context, w *pgx.Conn, res *claimResult) {
	if !r.p.Commit || res.outcome.Kind != racetest.Win {
		if _, err := w.Exec(ctx, "ROLLBACK"); err != nil && res.outcome.Kind != racetest.Error {
			res.outcome = r.errorOutcome(fmt.Errorf("rolling back: %w", err))
		}
		return
	}
	tag, err := w.Exec(ctx, "COMMIT")
	var pgErr *pgconn.PgError
	// The outcome changes; which request it was, and when it answered,
	// do not.
	defer func(request int, elapsed time.Duration) {
		res.outcome.Request, res.outcome.Elapsed = request, elapsed
	}(res.outcome.Request, res.outcome.Elapsed)
	switch {
	case errors.As(err, &pgErr):
		res.outcome = racetest.Outcome{Kind: racetest.Refusal, Answer: pgErr.Code + " at commit", Err: r.describe(err)}
	case err != nil:
		// The connection failed: whether the row was kept is unknown.
		o := r.errorOutcome(err)
		o.Answer += " at commit"
		res.outcome = o
	case tag.String() == "ROLLBACK":
		res.outcome = racetest.Outcome{Kind: racetest.Refusal, Answer: "rolled back at commit",
			Err: "the transaction had failed before its COMMIT (" + orElse(res.diagnose, "a statement after the claim failed") + ")"}
	}
}

func orElse(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// errorOutcome classifies a failed claim by its SQLSTATE (docs/race.md).
func (r *sqlRun) errorOutcome(err error) racetest.Outcome {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return racetest.Outcome{Kind: racetest.Error, Err: r.describe(err)}
	}
	switch pgErr.Code {
	case "23505", "55P03":
		return racetest.Outcome{Kind: racetest.Refusal, Answer: pgErr.Code}
	case "40001":
		return racetest.Outcome{Kind: racetest.Serialization, Answer: pgErr.Code, Err: r.describe(err)}
	}
	return racetest.Outcome{Kind: racetest.Error, Answer: pgErr.Code, Err: r.describe(err)}
}

// describe is an error in one line for people: the server's message and
// SQLSTATE when it answered, never the password.
func (r *sqlRun) describe(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		msg := pgErr.Message + " (SQLSTATE " + pgErr.Code + ")"
		if pgErr.Detail != "" {
			msg += ": " + pgErr.Detail
		}
		return r.scrub.Clean(msg)
	}
	if errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) {
		return "timeout"
	}
	return r.scrub.Clean(strings.Join(strings.Fields(err.Error()), " "))
}

// startSpread is the time between the first and the last worker's start on
// the server's clock, or nil when any worker never passed the barrier.
func startSpread(results []claimResult) *time.Duration {
	if len(results) == 0 {
		return nil
	}
	starts := make([]time.Time, len(results))
	for i, res := range results {
		if !res.started {
			return nil
		}
		starts[i] = res.start
	}
	d := racetest.SpreadOf(starts)
	return &d
}

// answerRows is what a claim that returned n > 0 rows answered.
func answerRows(n int) string {
	if n == 1 {
		return "1 row"
	}
	return strconv.Itoa(n) + " rows"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
