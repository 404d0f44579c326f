package sqlrace

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/pgsecret"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Tables for the SQL claim tests: a sound key, a key with a nullable part,
// no unique index at all, and a deferred unique constraint.
const sqlClaimTables = `
CREATE TABLE sound (id bigserial PRIMARY KEY, namespace text NOT NULL DEFAULT 'default', key text NOT NULL);
CREATE UNIQUE INDEX sound_namespace_key ON sound (namespace, key);
CREATE TABLE holed (id bigserial PRIMARY KEY, namespace text, key text NOT NULL);
CREATE UNIQUE INDEX holed_namespace_key ON holed (namespace, key);
CREATE TABLE plain (id bigserial PRIMARY KEY, key text NOT NULL, round int NOT NULL DEFAULT 0);
CREATE TABLE deferred (id bigserial PRIMARY KEY, key text NOT NULL,
  CONSTRAINT deferred_key UNIQUE (key) DEFERRABLE INITIALLY DEFERRED);
INSERT INTO plain (key) VALUES ('existing');
`

// testLockTimeout keeps blocked claims short so the tests stay quick.
const testLockTimeout = 100 * time.Millisecond

func sqlProbe(dsn, stmt string, n, rounds int) Probe {
	return Probe{DSN: dsn, Statement: stmt, N: n, Rounds: rounds, LockTimeout: testLockTimeout}
}

func rowCount(t *testing.T, dsn, table string) int64 {
	t.Helper()
	return scalar(t, dsn, "SELECT count(*) FROM "+table)
}

// scalar runs a query that answers one integer.
func scalar(t *testing.T, dsn, q string, args ...any) int64 {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int64
	if err := c.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// runSQLProbe runs p and checks that the table's row count did not move,
// since by default every transaction rolls back.
func runSQLProbe(t *testing.T, p Probe, table string) *racetest.Result {
	t.Helper()
	before := rowCount(t, p.DSN, table)
	res, err := Run(context.Background(), p)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if after := rowCount(t, p.DSN, table); !p.Commit && after != before {
		t.Errorf("%s had %d rows before the run and %d after: a default run must write nothing", table, before, after)
	}
	return res
}

func TestSQLSoundIndexHoldsEveryRound(t *testing.T) {
	dsn := pgtest.NewDatabase(t, sqlClaimTables)
	for _, stmt := range []string{
		`INSERT INTO sound (key) VALUES ({{key}}) ON CONFLICT DO NOTHING RETURNING id`,
		`INSERT INTO sound (key) VALUES ({{key}}) RETURNING id`,
	} {
		res := runSQLProbe(t, sqlProbe(dsn, stmt, 4, 5), "sound")
		if res.Verdict.Status != racetest.Holds {
			t.Fatalf("%s: verdict %+v, want holds", stmt, res.Verdict)
		}
		for _, r := range res.Rounds {
			if r.Count(racetest.Win) != 1 || r.Count(racetest.Refusal) != 3 {
				t.Errorf("%s: %s, want 1 win and 3 refusals", stmt, racetest.RoundLine(&r))
			}
			if r.StartSpread == nil {
				t.Errorf("round %d has no start spread", r.Index)
			}
		}
	}
}

func TestSQLNullablePartIsBrokenAndDiagnosed(t *testing.T) {
	dsn := pgtest.NewDatabase(t, sqlClaimTables)
	p := sqlProbe(dsn, `INSERT INTO holed (key) VALUES ({{key}}) ON CONFLICT DO NOTHING RETURNING id`, 3, 3)
	var asked []string
	p.UniqueKeys = func(_ context.Context, schema, table string) ([]UniqueKey, error) {
		asked = append(asked, schema+"."+table)
		return []UniqueKey{
			{Name: "holed_pkey", Columns: []string{"id"}, Valid: true},
			{Name: "holed_namespace_key", Columns: []string{"namespace", "key"}, Valid: true, Hole: "the audit's words"},
		}, nil
	}
	res := runSQLProbe(t, p, "holed")
	if res.Verdict.Status != racetest.Broken || !strings.Contains(res.Verdict.Sentence, "3 wins in round") {
		t.Fatalf("verdict %+v, want broken with 3 wins", res.Verdict)
	}
	if len(asked) != 1 || asked[0] != "public.holed" {
		t.Errorf("unique indexes asked for %v, want the written table public.holed once", asked)
	}
	want := "public.holed.holed_namespace_key (namespace, key) should have refused: namespace was NULL in the statement's values"
	if len(res.Diagnosis) != 1 || !strings.HasPrefix(res.Diagnosis[0], want) || !strings.HasSuffix(res.Diagnosis[0], "nullable-key: the audit's words") {
		t.Errorf("diagnosis %q, want one line starting %q and quoting the audit", res.Diagnosis, want)
	}
}

func TestSQLNoUniqueIndexIsBroken(t *testing.T) {
	dsn := pgtest.NewDatabase(t, sqlClaimTables)
	noKeys := func(context.Context, string, string) ([]UniqueKey, error) {
		return []UniqueKey{{Name: "plain_pkey", Columns: []string{"id"}, Valid: true}}, nil
	}
	for _, stmt := range []string{
		`INSERT INTO plain (key, round) VALUES ({{key}}, {{round}}) RETURNING id`,
		// A check-then-insert in one statement: NOT EXISTS never sees the
		// other claims' uncommitted rows.
		`INSERT INTO plain (key) SELECT {{key}} WHERE NOT EXISTS (SELECT 1 FROM plain WHERE key = {{key}}) RETURNING id`,
	} {
		p := sqlProbe(dsn, stmt, 2, 3)
		p.UniqueKeys = noKeys
		res := runSQLProbe(t, p, "plain")
		if res.Verdict.Status != racetest.Broken || res.Rounds[0].Wins() != 2 {
			t.Fatalf("%s: verdict %+v, want broken", stmt, res.Verdict)
		}
		if len(res.Diagnosis) != 1 || !strings.HasPrefix(res.Diagnosis[0], "no unique index on public.plain covers the inserted columns: the winning rows agree on key") {
			t.Errorf("%s: diagnosis %q", stmt, res.Diagnosis)
		}
	}
}

// A deferred unique constraint refuses only at commit: rolled back, every
// claim won (the insert is not the lock); with --commit one commit fails
// with 23505 and the gate holds.
func TestSQLDeferredConstraint(t *testing.T) {
	dsn := pgtest.NewDatabase(t, sqlClaimTables)
	stmt := `INSERT INTO deferred (key) VALUES ({{key}}) RETURNING id`
	p := sqlProbe(dsn, stmt, 2, 2)
	p.UniqueKeys = func(context.Context, string, string) ([]UniqueKey, error) {
		return []UniqueKey{{Name: "deferred_key", Columns: []string{"key"}, Valid: true, Deferrable: true, InitiallyDeferred: true}}, nil
	}
	res := runSQLProbe(t, p, "deferred")
	if res.Verdict.Status != racetest.Broken {
		t.Fatalf("rolled back: verdict %+v, want broken", res.Verdict)
	}
	if len(res.Diagnosis) != 1 || !strings.Contains(res.Diagnosis[0], "deferred_key (key) is DEFERRABLE INITIALLY DEFERRED (deferrable-unique): duplicates are refused only at commit") {
		t.Errorf("diagnosis %q", res.Diagnosis)
	}

	p.Commit = true
	res = runSQLProbe(t, p, "deferred")
	if res.Verdict.Status != racetest.Holds {
		t.Fatalf("--commit: verdict %+v, want holds", res.Verdict)
	}
	for _, r := range res.Rounds {
		if got := answers(&r); got != "1 row, 23505 at commit" {
			t.Errorf("--commit round %d answers %q, want one row and one 23505 at commit", r.Index, got)
		}
	}
	if n := rowCount(t, dsn, "deferred"); n != 2 {
		t.Errorf("--commit kept %d rows, want one per round (2)", n)
	}
}

func answers(r *racetest.Round) string {
	var a []string
	for _, o := range r.Outcomes {
		a = append(a, o.Answer)
	}
	sort.Strings(a)
	return strings.Join(a, ", ")
}

func TestSQLRefusedFirstClaimAndErrors(t *testing.T) {
	dsn := pgtest.NewDatabase(t, sqlClaimTables)
	// The key is not fresh: the row already exists, so every claim is refused.
	res := runSQLProbe(t, sqlProbe(dsn, `INSERT INTO sound (key) SELECT key FROM plain WHERE key = 'existing' ON CONFLICT DO NOTHING RETURNING id`, 2, 1), "sound")
	if res.Verdict.Status != racetest.Holds {
		t.Fatalf("first claim: %+v", res.Verdict)
	}
	pgtest.Exec(t, dsn, `INSERT INTO sound (key) VALUES ('taken')`)
	res = runSQLProbe(t, sqlProbe(dsn, `INSERT INTO sound (key) VALUES ('taken') ON CONFLICT DO NOTHING RETURNING id`, 2, 2), "sound")
	if res.Verdict.Status != racetest.Broken || !strings.Contains(res.Verdict.Sentence, "the gate refused even the first claim") {
		t.Errorf("taken key: verdict %+v, want the first claim refused", res.Verdict)
	}
	res = runSQLProbe(t, sqlProbe(dsn, `SELECT 1 / ({{round}}::int - {{round}}::int)`, 2, 1), "sound")
	if res.Verdict.Status != racetest.Inconclusive || !strings.Contains(res.Verdict.Sentence, "division by zero (SQLSTATE 22012)") {
		t.Errorf("runtime error: verdict %+v, want inconclusive with the server's message", res.Verdict)
	}
	if _, err := Run(context.Background(), sqlProbe(dsn, `INSERT INTO nowhere VALUES ({{key}})`, 2, 1)); err == nil ||
		!strings.Contains(err.Error(), `relation "nowhere" does not exist (SQLSTATE 42P01)`) {
		t.Errorf("unknown table: err %v, want the server's message before any round", err)
	}
}

func TestSQLProbeSettings(t *testing.T) {
	cases := []struct {
		p    Probe
		want string
	}{
		{Probe{Statement: "SELECT 1", N: 1}, "at least 2"},
		{Probe{Statement: "SELECT 1", Commit: true}, "--commit keeps each round's rows"},
		{Probe{Statement: "SELECT $1"}, "uses a bind parameter"},
		{Probe{Statement: "  "}, "empty"},
		{Probe{Statement: "SELECT 1", N: 300}, "--force"},
	}
	for _, c := range cases {
		c.p.Defaults()
		if _, err := c.p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.p, err, c.want)
		}
	}
}

func TestSQLErrorClassification(t *testing.T) {
	r := &sqlRun{scrub: pgsecret.New("", "s3cret")}
	cases := map[string]racetest.OutcomeKind{"23505": racetest.Refusal, "55P03": racetest.Refusal, "40001": racetest.Serialization, "42P01": racetest.Error}
	for code, want := range cases {
		o := r.errorOutcome(&pgconn.PgError{Code: code, Message: "with s3cret inside"})
		if o.Kind != want || o.Answer != code {
			t.Errorf("SQLSTATE %s: %+v, want %s", code, o, want)
		}
		if strings.Contains(o.Err, "s3cret") {
			t.Errorf("SQLSTATE %s: error %q shows the password", code, o.Err)
		}
	}
}

// BenchmarkSQLStartSpread measures how tightly the advisory-lock barrier
// releases N workers: the median and worst start spread (server clock) over
// 30 rounds. Run with: go test -run XXX -bench SQLStartSpread -benchtime 1x ./racetest/sqlrace/
func BenchmarkSQLStartSpread(b *testing.B) {
	dsn := pgtest.NewDatabase(b, sqlClaimTables)
	for _, n := range []int{2, 8, 32} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				p := sqlProbe(dsn, `INSERT INTO sound (key) VALUES ({{key}}) ON CONFLICT DO NOTHING RETURNING id`, n, 30)
				p.LockTimeout = 20 * time.Millisecond
				res, err := Run(context.Background(), p)
				if err != nil {
					b.Fatal(err)
				}
				if res.Verdict.Status != racetest.Holds {
					b.Fatalf("verdict %+v", res.Verdict)
				}
				var spreads []time.Duration
				for _, r := range res.Rounds {
					spreads = append(spreads, *r.StartSpread)
				}
				slices.Sort(spreads)
				b.ReportMetric(float64(spreads[len(spreads)/2].Microseconds()), "median-µs")
				b.ReportMetric(float64(spreads[len(spreads)-1].Microseconds()), "worst-µs")
			}
		})
	}
}

// TestSQLIsolationLevels: under REPEATABLE READ and SERIALIZABLE
// PostgreSQL decides between concurrent claims at COMMIT, so a run needs
// --commit (without it Validate refuses, naming why), and a claim whose
// COMMIT failed (40001 included) is a refusal, never a win. The truth is
// what was committed: the rows per key afterwards. A WHERE NOT EXISTS
// claim without a unique index is sound under SERIALIZABLE (the second
// COMMIT fails with 40001) and broken under REPEATABLE READ (both commit);
// an ON CONFLICT claim on a unique index is sound under both.
func TestSQLIsolationLevels(t *testing.T) {
	dsn := pgtest.NewDatabase(t, sqlClaimTables)
	claims := []struct {
		name, stmt, table string
	}{
		{"WHERE NOT EXISTS", `INSERT INTO plain (key) SELECT {{key}} WHERE NOT EXISTS (SELECT 1 FROM plain WHERE key = {{key}}) RETURNING id`, "plain"},
		{"ON CONFLICT", `INSERT INTO sound (key) VALUES ({{key}}) ON CONFLICT DO NOTHING RETURNING id`, "sound"},
	}
	for _, iso := range []string{"repeatable-read", "serializable"} {
		for _, c := range claims {
			p := sqlProbe(dsn, c.stmt, 2, 5)
			p.Isolation = iso
			if _, err := Run(context.Background(), p); err == nil || !strings.Contains(err.Error(), "--isolation "+iso+" needs --commit") {
				t.Errorf("%s, %s, rolled back: err %v, want the need for --commit explained", iso, c.name, err)
			}
			p.Commit = true
			p.RunID = racetest.NewRunID()
			// A round of two wins reads the winners' rows back for the
			// diagnosis, inside their transactions: under SERIALIZABLE
			// that read can fail with 40001 too, and the COMMIT after it
			// then answers ROLLBACK.
			p.UniqueKeys = func(context.Context, string, string) ([]UniqueKey, error) { return nil, nil }
			res := runSQLProbe(t, p, c.table)
			doubled := doubledKeys(t, dsn, c.table, "idemcheck-"+p.RunID+"-%")
			t.Logf("%s, %s: %s, %d keys committed twice: %s", iso, c.name, res.Verdict.Status, doubled, res.Verdict.Sentence)
			if doubled > 0 && res.Verdict.Status == racetest.Holds {
				t.Errorf("%s, %s: HOLDS although %d keys were committed twice", iso, c.name, doubled)
			}
			if doubled == 0 && res.Verdict.Status == racetest.Broken {
				t.Errorf("%s, %s: BROKEN although no key was committed twice: %s", iso, c.name, res.Verdict.Sentence)
				for _, r := range res.Rounds {
					t.Log(racetest.RoundLine(&r))
				}
			}
			for _, r := range res.Rounds {
				for _, o := range r.Outcomes {
					if strings.HasSuffix(o.Answer, "at commit") && o.Kind != racetest.Refusal {
						t.Errorf("%s, %s, round %d: a failed commit (%s) counted as %s, want a refusal", iso, c.name, r.Index, o.Answer, o.Kind)
					}
				}
			}
		}
	}
}

// doubledKeys counts the keys like pattern that table holds more than once.
func doubledKeys(t *testing.T, dsn, table, pattern string) int64 {
	t.Helper()
	return scalar(t, dsn, "SELECT count(*) FROM (SELECT key FROM "+table+" WHERE key LIKE $1 GROUP BY key HAVING count(*) > 1) d", pattern)
}
