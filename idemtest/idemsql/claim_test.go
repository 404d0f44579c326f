package idemsql_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/idemtest"
	"github.com/idemcheck/idemcheck/idemtest/idemsql"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver for database/sql
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The tables of the claims: a key whose namespace part is nullable (the
// hole: NULL rows keep an identity in account_id, kind and address), and
// the same key made sound.
const claimTables = `
CREATE TABLE charge_claims (id bigserial PRIMARY KEY, account_id bigint NOT NULL, kind text NOT NULL,
  address text NOT NULL, namespace text, UNIQUE (account_id, kind, address, namespace));
CREATE TABLE sound_claims (id bigserial PRIMARY KEY, account_id bigint NOT NULL, kind text NOT NULL,
  address text NOT NULL, namespace text NOT NULL DEFAULT '', UNIQUE (account_id, kind, address, namespace));
`

const (
	holedClaim = `INSERT INTO charge_claims (account_id, kind, address) VALUES (1, 'charge', {{key}}) ON CONFLICT DO NOTHING RETURNING id`
	soundClaim = `INSERT INTO sound_claims (account_id, kind, address) VALUES (1, 'charge', {{key}}) ON CONFLICT DO NOTHING RETURNING id`
)

func newPool(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func rows(t *testing.T, pool *pgxpool.Pool, table string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// dsnType is a caller's own string type for DSNs.
type dsnType string

// TestNullableKeyFailsQuotingTheAudit: the claim on a key with a nullable
// part wins twice in every round, on a DSN, a pool and a *sql.DB alike, and
// the failure names the index that should have refused in the audit's
// words (on-conflict-hole for the statement, nullable-key for the index).
// The race writes nothing, and every session goes back to its pool idle.
func TestNullableKeyFailsQuotingTheAudit(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t, claimTables)
	pool := newPool(t, dsn)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for name, race := range map[string]func(tb testing.TB){
		"DSN":           func(tb testing.TB) { idemsql.Claim(tb, dsnType(dsn), holedClaim, idemtest.Rounds(5)) },
		"*pgxpool.Pool": func(tb testing.TB) { idemsql.Claim(tb, pool, holedClaim, idemtest.Rounds(5)) },
		"*sql.DB":       func(tb testing.TB) { idemsql.Claim(tb, db, holedClaim, idemtest.Rounds(5)) },
	} {
		rec := record(t, race)
		msg := rec.failure(t)
		first, rest, _ := strings.Cut(msg, "\n")
		want := "idemtest: gate broken in 5 of 5 rounds (round 1: 2 claims returned a row): " +
			"the claim is a read-then-write, or its unique constraint is missing or has a nullable key part"
		if first != want {
			t.Errorf("%s: first line\n%s\nwant\n%s", name, first, want)
		}
		for _, quote := range []string{
			"  diagnosis: public.charge_claims.charge_claims_account_id_kind_address_namespace_key (account_id, kind, address, namespace) should have refused: namespace was NULL in the statement's values",
			"on-conflict-hole: INSERT INTO charge_claims ... ON CONFLICT DO NOTHING: ",
			"nullable-key: charge_claims.charge_claims_account_id_kind_address_namespace_key (account_id, kind, address, namespace): namespace may be NULL, so two charge_claims with the same account_id, kind and address and no namespace are both accepted",
		} {
			if !strings.Contains(rest, quote) {
				t.Errorf("%s: the failure does not quote %q:\n%s", name, quote, msg)
			}
		}
	}
	if n := rows(t, pool, "charge_claims"); n != 0 {
		t.Errorf("charge_claims has %d rows after the races: a race must write nothing", n)
	}
	if st := pool.Stat(); st.AcquiredConns() != 0 {
		t.Errorf("%d of the pool's sessions are still taken", st.AcquiredConns())
	}
	if st := db.Stats(); st.InUse != 0 {
		t.Errorf("%d of the *sql.DB's sessions are still in use", st.InUse)
	}
}

// TestSoundClaimHolds: the same claim on a sound key holds, on a pool
// exactly N+1 sessions large, and the result shows one row per round.
func TestSoundClaimHolds(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t, claimTables)
	pool := newPool(t, dsn+"&pool_max_conns=4")
	res := idemsql.Claim(t, pool, soundClaim, idemtest.N(3), idemtest.Rounds(5))
	if res.Verdict != idemtest.Holds || res.Message != "idemtest: the gate held: exactly one win in each of 5 rounds (one claim returned a row in every round)" {
		t.Fatalf("%s: %s", res.Verdict, res.Message)
	}
	for _, r := range res.Rounds {
		if r.Wins != 1 || len(r.Answers) != 3 || !strings.Contains(strings.Join(r.Answers, ","), "1 row") {
			t.Errorf("round %d: %d wins, answers %v", r.Index, r.Wins, r.Answers)
		}
	}
	// The pool is whole again: a second race gets every session.
	idemsql.Claim(t, pool, soundClaim, idemtest.N(3), idemtest.Rounds(1))
}

// TestPoolTooSmallFailsWithTheReason: a pool that can never hold N+1
// sessions fails at once, and one that is busy elsewhere (the test holds a
// session in a transaction) fails after a bounded wait: never a deadlock.
func TestPoolTooSmallFailsWithTheReason(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t, claimTables)
	small := newPool(t, dsn+"&pool_max_conns=2")
	rec := record(t, func(tb testing.TB) { idemsql.Claim(tb, small, soundClaim) })
	if msg := rec.failure(t); msg != "idemtest: the pool allows 2 connections (MaxConns, pool_max_conns in the DSN), "+
		"and a race of 2 claims needs 3 sessions at once (one per claim and a coordinator): raise MaxConns, or lower idemtest.N" {
		t.Errorf("pool of 2: %q", msg)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(3)
	rec = record(t, func(tb testing.TB) { idemsql.Claim(tb, db, soundClaim, idemtest.N(4)) })
	if msg := rec.failure(t); !strings.Contains(msg, "the *sql.DB allows 3 open connections (SetMaxOpenConns), and a race of 4 claims needs 5 sessions") {
		t.Errorf("*sql.DB of 3, N=4: %q", msg)
	}

	busy := newPool(t, dsn+"&pool_max_conns=3")
	tx, err := busy.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	rec = record(t, func(tb testing.TB) { idemsql.Claim(tb, busy, soundClaim) })
	if msg := rec.failure(t); !strings.Contains(msg, "could not take 3 sessions at once from the pool within 10s: 1 of the pool's 3 connections are in use elsewhere") {
		t.Errorf("busy pool: %q", msg)
	}
}

// TestWrongUseFailsClearly: options for HTTP races, a *sql.DB whose driver
// is not pgx, a statement the server rejects: each fails the test with a
// sentence that says what to do.
func TestWrongUseFailsClearly(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t, claimTables)
	rec := record(t, func(tb testing.TB) {
		idemsql.Claim(tb, dsn, soundClaim, idemtest.KeyHeader("X-Key"), idemtest.CountEffects(func(context.Context, string) (int, error) { return 0, nil }))
	})
	if msg := rec.failure(t); msg != "idemtest: idemtest.KeyHeader does not apply to a SQL claim; idemtest.CountEffects does not apply to a SQL claim" {
		t.Errorf("HTTP options: %q", msg)
	}
	other := sql.OpenDB(otherConnector{})
	defer other.Close()
	rec = record(t, func(tb testing.TB) { idemsql.Claim(tb, other, soundClaim) })
	if msg := rec.failure(t); !strings.Contains(msg, "open the database with the pgx driver (github.com/jackc/pgx/v5/stdlib), or pass the DSN") {
		t.Errorf("another driver: %q", msg)
	}
	rec = record(t, func(tb testing.TB) { idemsql.Claim(tb, dsn, `INSERT INTO no_such_table VALUES ({{key}})`) })
	if msg := rec.failure(t); !strings.Contains(msg, `preparing the claim statement on `) || !strings.Contains(msg, `: relation "no_such_table" does not exist (SQLSTATE 42P01)`) {
		t.Errorf("unknown table: %q", msg)
	}
}

// otherConnector is a database/sql driver that is not pgx's.
type otherConnector struct{}

func (otherConnector) Connect(context.Context) (driver.Conn, error) { return otherConn{}, nil }
func (otherConnector) Driver() driver.Driver                        { return nil }

type otherConn struct{}

func (otherConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("not a database") }
func (otherConn) Close() error                        { return nil }
func (otherConn) Begin() (driver.Tx, error)           { return nil, errors.New("not a database") }

// recorder is a testing.TB that records how a helper fails the test.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
	logs   []string
}

func record(t *testing.T, f func(tb testing.TB)) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func (r *recorder) Helper() {}
func (r *recorder) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprint(args...))
}
func (r *recorder) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprint(args...))
}
func (r *recorder) Fatal(args ...any) { r.Error(args...); runtime.Goexit() }
func (r *recorder) Skip(args ...any) {
	r.Error(append([]any{"skipped: "}, args...)...)
	runtime.Goexit()
}

func (r *recorder) failure(t *testing.T) string {
	t.Helper()
	if len(r.errors) != 1 {
		t.Fatalf("the helper reported %d failures, want 1: %q\nlog: %q", len(r.errors), r.errors, r.logs)
	}
	return r.errors[0]
}

// TestIsolationLevels: under REPEATABLE READ and SERIALIZABLE the claims
// are committed (PostgreSQL decides there), and a claim whose COMMIT
// failed is a refusal: a WHERE NOT EXISTS claim without a unique index
// fails the test under REPEATABLE READ, where both rows were committed,
// and passes under SERIALIZABLE, where the second COMMIT failed; an ON
// CONFLICT claim passes under both. The truth is the committed rows.
func TestIsolationLevels(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t, claimTables+`CREATE TABLE plain_claims (id bigserial PRIMARY KEY, address text NOT NULL);`)
	pool := newPool(t, dsn)
	claims := []struct {
		name, claim, table string
		want               map[string]idemtest.Verdict
	}{
		{"WHERE NOT EXISTS", `INSERT INTO plain_claims (address) SELECT {{key}} WHERE NOT EXISTS (SELECT 1 FROM plain_claims WHERE address = {{key}}) RETURNING id`,
			"plain_claims", map[string]idemtest.Verdict{"repeatable-read": idemtest.Broken, "serializable": idemtest.Holds}},
		{"ON CONFLICT", soundClaim, "sound_claims", map[string]idemtest.Verdict{"repeatable-read": idemtest.Holds, "serializable": idemtest.Holds}},
	}
	for _, level := range []string{"repeatable-read", "serializable"} {
		for _, c := range claims {
			if _, err := pool.Exec(context.Background(), "TRUNCATE "+c.table); err != nil {
				t.Fatal(err)
			}
			var res *idemtest.Result
			rec := record(t, func(tb testing.TB) {
				res = idemsql.CheckClaim(tb, pool, c.claim, idemtest.Rounds(10), idemsql.Isolation(level))
			})
			var doubled int
			q := "SELECT count(*) FROM (SELECT 1 FROM " + c.table + " GROUP BY address HAVING count(*) > 1) d"
			if err := pool.QueryRow(context.Background(), q).Scan(&doubled); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s, %s: %s (%s); %d keys committed twice", level, c.name, res.Verdict, res.Evidence, doubled)
			if doubled > 0 && res.Verdict == idemtest.Holds || doubled == 0 && res.Verdict == idemtest.Broken {
				t.Errorf("%s, %s: %s against %d keys committed twice: %s", level, c.name, res.Verdict, doubled, res.Message)
			}
			if failed := len(rec.errors) > 0; res.Verdict != c.want[level] || res.Evidence != idemtest.ClaimAnswers || failed != (res.Verdict != idemtest.Holds) {
				t.Errorf("%s, %s: %s (%s), the test failed: %v; want %s by the claims' answers", level, c.name, res.Verdict, res.Evidence, failed, c.want[level])
			}
		}
	}
	rec := record(t, func(tb testing.TB) { idemsql.CheckClaim(tb, pool, soundClaim, idemsql.Isolation("snapshot")) })
	if msg := rec.failure(t); !strings.Contains(msg, `idemsql.Isolation("snapshot"): want "repeatable-read" or "serializable"`) {
		t.Errorf("a bad level: %q", msg)
	}
	rec = record(t, func(tb testing.TB) {
		idemsql.CheckClaim(tb, pool, `INSERT INTO plain_claims (address) VALUES ('fixed') RETURNING id`, idemsql.Isolation("serializable"))
	})
	if msg := rec.failure(t); !strings.Contains(msg, "commits the winners' claims") {
		t.Errorf("a committed claim without a key: %q", msg)
	}
}
