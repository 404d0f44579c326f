package idemsql

import (
	"context"
	"database/sql"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/idemtest"
	"github.com/idemcheck/idemcheck/idemtest/internal/core"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/sqlrace"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Database is where a claim races: a DSN (a postgres:// URL or key=value
// settings), a *pgxpool.Pool, or a *sql.DB opened with pgx's driver
// (github.com/jackc/pgx/v5/stdlib).
type Database interface {
	~string | *pgxpool.Pool | *sql.DB
}

// Claim races the claim statement on N sessions of db at the same moment
// (two by default), each in its own transaction, for 30 rounds, and fails
// the test unless exactly one claim returned a row in every round. The
// failure stops the test (t.Fatal); CheckClaim lets it go on.
//
// {{key}}, {{round}} and {{uuid}} in claim become bind parameters with
// fresh values each round, shared by the round's N statements. A returned
// row is a win; no row, a unique violation (23505) or a lock timeout
// behind another claim that has not committed is a refusal. Every
// transaction rolls back: the race writes nothing (unless Isolation says
// otherwise).
//
// The race needs N+1 sessions at once (one per claim and a coordinator
// holding the barrier). A pool that can never hold them fails the test
// with the reason, and so does one busy elsewhere for 10 s; neither
// waits forever.
//
// When claims win together, the rows they wrote are read back before they
// roll back, and the failure names the unique index that should have
// refused, in the audit's words (on-conflict-hole for the statement,
// nullable-key for the index), as `idemcheck race sql` does. That needs
// cgo; without it the failure says so.
//
// Of the options, N, Rounds, Window, SkipInconclusive and Isolation
// apply; the others are for HTTP races and fail the test here.
func Claim[DB Database](t testing.TB, db DB, claim string, opts ...idemtest.Option) *idemtest.Result {
	t.Helper()
	return race(t, core.Require, any(db), claim, opts)
}

// CheckClaim is Claim that marks the test failed (t.Error) and lets it go
// on, returning the result for further assertions.
func CheckClaim[DB Database](t testing.TB, db DB, claim string, opts ...idemtest.Option) *idemtest.Result {
	t.Helper()
	return race(t, core.Check, any(db), claim, opts)
}

// Isolation races the claims at an isolation level of their own:
// "repeatable-read" or "serializable" (READ COMMITTED, rolled back, is the
// default). PostgreSQL decides between concurrent claims at those levels
// only at COMMIT (a serialization failure, 40001), so these claims are
// committed: the winners' rows stay, and the statement must use {{key}} or
// {{uuid}} so that every round claims a fresh key. A claim whose COMMIT
// failed is a refusal, never a win.
func Isolation(level string) idemtest.Option {
	return func(s *core.Settings) {
		switch level {
		case "repeatable-read", "serializable":
		default:
			s.Problem("idemsql.Isolation(%q): want \"repeatable-read\" or \"serializable\"", level)
		}
		s.Isolation = level
		s.MarkSQLOnly("idemsql.Isolation")
	}
}

// lockTimeout is how long a claim waits behind another claim of its round
// before it counts as refused. Every transaction stays open until all have
// answered, so such a claim would wait forever: the timeout only spares
// one that waits on a lock from outside the race. The CLI waits 500 ms,
// for production databases; in a test database 50 ms keeps a holding
// race of 30 rounds near a second and a half.
const lockTimeout = 50 * time.Millisecond

func race(t testing.TB, form core.Form, db any, claim string, opts []idemtest.Option) *idemtest.Result {
	t.Helper()
	s := core.Apply(opts)
	problems := s.Problems
	for _, name := range s.HTTPOnly {
		problems = append(problems, name+" does not apply to a SQL claim")
	}
	if len(problems) > 0 {
		return fromOutcome(core.CannotRun(t, form, "%s", strings.Join(problems, "; ")))
	}
	if v := reflect.ValueOf(db); v.Kind() == reflect.String {
		db = v.String() // a named string type, such as a DSN type of the caller's
	}
	ctx, deadline, cancel := core.Context(t)
	defer cancel()
	p := sqlrace.Probe{Statement: claim, N: s.N, Rounds: s.Rounds, Window: s.Window, Deadline: deadline, LockTimeout: lockTimeout,
		Isolation: s.Isolation, Commit: s.Isolation != ""}
	p.Defaults()
	st, err := p.Validate()
	if err != nil {
		if s.Isolation != "" {
			return fromOutcome(core.CannotRun(t, form, "idemsql.Isolation(%q) commits the winners' claims, and %v", s.Isolation, err))
		}
		return fromOutcome(core.CannotRun(t, form, "%v", err))
	}
	l, err := acquire(ctx, db, p.N+1)
	if err != nil {
		return fromOutcome(core.CannotRun(t, form, "%v", err))
	}
	defer l.release()
	p.Sessions = l.conns
	var unavailable string
	p.UniqueKeys, unavailable = uniqueKeys(ctx, l.conns[0], st.Text)
	res, err := sqlrace.Run(ctx, p)
	if err != nil {
		return fromOutcome(core.CannotRun(t, form, "the race could not run: %v", err))
	}
	if unavailable != "" && res.Verdict.Status == racetest.Broken && len(res.Diagnosis) == 0 {
		res.Diagnosis = []string{unavailable}
	}
	return fromOutcome(core.Finish(t, res, s, form))
}

// fromOutcome turns what the shared core concluded into idemtest's types.
func fromOutcome(o core.Outcome) *idemtest.Result {
	res := &idemtest.Result{Verdict: idemtest.Verdict(o.Verdict), Evidence: idemtest.Evidence(o.Evidence), Message: o.Message, Report: o.Report}
	for _, r := range o.Rounds {
		res.Rounds = append(res.Rounds, idemtest.Round(r))
	}
	return res
}

// keysFunc is sqlrace.Probe.UniqueKeys.
type keysFunc = func(ctx context.Context, schema, table string) ([]sqlrace.UniqueKey, error)
