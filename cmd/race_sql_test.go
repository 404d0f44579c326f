package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/jackc/pgx/v5"
)

// raceSQLSchema has the cases: a sound key, the events table of
// docs/rules.md with a nullable key part, a table with no unique index and a
// deferred unique constraint.
const raceSQLSchema = `
CREATE TABLE payments (id bigserial PRIMARY KEY, idempotency_key text NOT NULL UNIQUE, amount int NOT NULL);
CREATE TABLE events (id bigserial PRIMARY KEY, organization_id bigint NOT NULL,
  external_subscription_id text, transaction_id text NOT NULL);
CREATE UNIQUE INDEX index_unique_transaction_id ON events (organization_id, external_subscription_id, transaction_id);
CREATE TABLE requests (id bigserial PRIMARY KEY, request_id text NOT NULL);
CREATE TABLE orders (id bigserial PRIMARY KEY, order_key text NOT NULL,
  CONSTRAINT orders_order_key UNIQUE (order_key) DEFERRABLE INITIALLY DEFERRED);
CREATE TABLE environments (id bigint PRIMARY KEY);
INSERT INTO environments VALUES (1);
CREATE TABLE task_runs (id bigserial PRIMARY KEY, environment_id bigint NOT NULL REFERENCES environments,
  task text NOT NULL, idempotency_key text, CONSTRAINT task_runs_once UNIQUE (environment_id, task, idempotency_key));
`

func countRows(t *testing.T, dsn string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	out := map[string]int64{}
	for _, table := range []string{"payments", "events", "requests", "orders", "task_runs"} {
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

func TestRaceSQLVerdictsAndDiagnosis(t *testing.T) {
	dsn := pgtest.NewDatabase(t, raceSQLSchema)
	cases := []struct {
		name, stmt string
		code       int
		want       []string
	}{
		{"sound key holds", `INSERT INTO payments (idempotency_key, amount) VALUES ({{key}}, 100) ON CONFLICT DO NOTHING RETURNING id`,
			ExitOK, []string{"HOLDS: the gate held: exactly one win in each of 5 rounds"}},
		{"nullable key part", `INSERT INTO events (organization_id, transaction_id) VALUES (7, {{key}}) ON CONFLICT DO NOTHING RETURNING id`,
			ExitFindings, []string{
				"BROKEN: 3 wins in round",
				"diagnosis: public.events.index_unique_transaction_id (organization_id, external_subscription_id, transaction_id) should have refused: external_subscription_id was NULL in the statement's values",
				"on-conflict-hole: INSERT INTO events ... ON CONFLICT DO NOTHING: without a conflict target the arbiters are the unique " +
					"indexes over the columns it writes or leaves NULL, and events.index_unique_transaction_id",
				"nullable-key: events.index_unique_transaction_id (organization_id, external_subscription_id, transaction_id): external_subscription_id may be NULL, " +
					"so two events with the same organization_id and transaction_id and no external_subscription_id are both accepted",
			}},
		// The index alone is unique when present; the claim makes the rows
		// without a key claims, and the race shows the hole: the statement's
		// rule is quoted, and the index's reading with it.
		{"optional key in a claim", `INSERT INTO task_runs (environment_id, task) VALUES (1, {{key}}) ON CONFLICT DO NOTHING RETURNING id`,
			ExitFindings, []string{
				"diagnosis: public.task_runs.task_runs_once (environment_id, task, idempotency_key) should have refused: idempotency_key was NULL in the statement's values",
				"on-conflict-hole: INSERT INTO task_runs ... ON CONFLICT DO NOTHING:",
				"The index alone reads as unique when present (optional-unique: task_runs.task_runs_once (environment_id, task, idempotency_key): " +
					"idempotency_key may be NULL",
				"but this claim relies on it for the rows where idempotency_key is NULL: usage outranks shape",
			}},
		{"no unique index", `INSERT INTO requests (request_id) SELECT {{key}} WHERE NOT EXISTS (SELECT 1 FROM requests WHERE request_id = {{key}}) RETURNING id`,
			ExitFindings, []string{"diagnosis: no unique index on public.requests covers the inserted columns: the winning rows agree on request_id"}},
		{"deferred constraint", `INSERT INTO orders (order_key) VALUES ({{key}}) RETURNING id`,
			ExitFindings, []string{"diagnosis: public.orders.orders_order_key (order_key) is DEFERRABLE INITIALLY DEFERRED (deferrable-unique)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := countRows(t, dsn)
			code, out, errs := runCmd(t, "race", "sql", "--dsn", dsn, "-n", "3", "--rounds", "5", "--lock-timeout", "100ms", c.stmt)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, c.code, out, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if after := countRows(t, dsn); !equalCounts(before, after) {
				t.Errorf("row counts %v before and %v after: race sql must write nothing without --commit", before, after)
			}
		})
	}
}

func equalCounts(a, b map[string]int64) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

func TestRaceSQLCommitKeepsOneRowPerRound(t *testing.T) {
	dsn := pgtest.NewDatabase(t, raceSQLSchema)
	file := filepath.Join(t.TempDir(), "claim.sql")
	if err := os.WriteFile(file, []byte("INSERT INTO orders (order_key)\nVALUES ({{key}})\nRETURNING id\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "race", "sql", "--dsn", dsn, "--file", file, "--rounds", "3", "--lock-timeout", "100ms", "--commit", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d, want 0 (the deferred constraint refuses at commit); stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	var res racetest.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("JSON output: %v\n%s", err, out)
	}
	if len(res.Rounds) != 3 || res.Rounds[0].StartSpread == nil {
		t.Errorf("JSON rounds %+v, want 3 with a start spread", res.Rounds)
	}
	if n := countRows(t, dsn)["orders"]; n != 3 {
		t.Errorf("--commit kept %d orders, want one per round (3)", n)
	}
}

func TestRaceSQLUsageErrors(t *testing.T) {
	dsn := pgtest.NewDatabase(t, raceSQLSchema)
	unreachable := "postgres://postgres:hunter2secret@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=2"
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no statement", []string{"race", "sql", "--dsn", dsn}, "needs a statement"},
		{"both", []string{"race", "sql", "--dsn", dsn, "--file", "x.sql", "SELECT 1"}, "not both"},
		{"missing file", []string{"race", "sql", "--dsn", dsn, "--file", "/nonexistent/claim.sql"}, "no such file"},
		{"empty stdin", []string{"race", "sql", "--dsn", dsn, "--file", "-"}, "the claim statement is empty"},
		{"bad isolation", []string{"race", "sql", "--dsn", dsn, "--isolation", "snapshot", "SELECT {{key}}"}, "--isolation \"snapshot\""},
		{"one worker", []string{"race", "sql", "--dsn", dsn, "-n", "1", "SELECT 1"}, "at least 2"},
		{"spliced template", []string{"race", "sql", "--dsn", dsn, "SELECT 'k-{{key}}'"}, "cannot live inside a literal"},
		{"commit without key", []string{"race", "sql", "--dsn", dsn, "--commit", "SELECT 1"}, "fresh key"},
		{"serializable without commit", []string{"race", "sql", "--dsn", dsn, "--isolation", "serializable", "SELECT {{key}}"}, "--isolation serializable needs --commit: under REPEATABLE READ and SERIALIZABLE PostgreSQL decides"},
		{"repeatable read without commit", []string{"race", "sql", "--dsn", dsn, "--isolation", "repeatable-read", "SELECT {{key}}"}, "--isolation repeatable-read needs --commit"},
		{"unknown table", []string{"race", "sql", "--dsn", dsn, "INSERT INTO nowhere VALUES ({{key}})"}, `relation "nowhere" does not exist`},
		{"unreachable", []string{"race", "sql", "--dsn", unreachable, "SELECT {{key}}"}, "cannot connect to PostgreSQL at host=127.0.0.1 port=1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCmd(t, c.args...)
			if code != ExitUsage || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 with %q (stdout %q)", code, errs, c.want, out)
			}
			if strings.Contains(errs+out, "hunter2secret") {
				t.Errorf("the password is shown: %s", errs)
			}
		})
	}
}

// TestRaceSQLIsolationGroundTruth: race sql under REPEATABLE READ and
// SERIALIZABLE (with --commit, which they need) against a WHERE NOT EXISTS
// claim on a table without a unique index and an ON CONFLICT claim on a
// unique key, in text and in JSON. The truth is what was committed: a key
// with two rows. No HOLDS when a key was committed twice, no BROKEN when
// none was; and the verdicts are what PostgreSQL does (WHERE NOT EXISTS
// is broken under REPEATABLE READ, sound under SERIALIZABLE, where the
// second COMMIT fails with 40001 and counts as a refusal).
func TestRaceSQLIsolationGroundTruth(t *testing.T) {
	dsn := pgtest.NewDatabase(t, raceSQLSchema)
	claims := []struct {
		name, stmt, table, column string
		want                      map[string]racetest.Status
	}{
		{"WHERE NOT EXISTS", `INSERT INTO requests (request_id) SELECT {{key}} WHERE NOT EXISTS (SELECT 1 FROM requests WHERE request_id = {{key}}) RETURNING id`,
			"requests", "request_id", map[string]racetest.Status{"repeatable-read": racetest.Broken, "serializable": racetest.Holds}},
		{"ON CONFLICT", `INSERT INTO payments (idempotency_key, amount) VALUES ({{key}}, 100) ON CONFLICT DO NOTHING RETURNING id`,
			"payments", "idempotency_key", map[string]racetest.Status{"repeatable-read": racetest.Holds, "serializable": racetest.Holds}},
	}
	ctx := context.Background()
	db, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	doubled := func(table, column string) int {
		var n int
		q := "SELECT count(*) FROM (SELECT 1 FROM " + table + " GROUP BY " + column + " HAVING count(*) > 1) d"
		if err := db.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, iso := range []string{"repeatable-read", "serializable"} {
		for _, c := range claims {
			for _, format := range []string{"text", "json"} {
				if _, err := db.Exec(ctx, "TRUNCATE "+c.table); err != nil {
					t.Fatal(err)
				}
				code, out, errs := runCmd(t, "race", "sql", "--dsn", dsn, "--isolation", iso, "--commit", "--rounds", "10", "--lock-timeout", "100ms",
					"--format", format, c.stmt)
				truth := doubled(c.table, c.column)
				var got racetest.Status
				if format == "json" {
					var res racetest.Result
					if err := json.Unmarshal([]byte(out), &res); err != nil {
						t.Fatalf("%s, %s: exit %d, not JSON: %v\n%s%s", iso, c.name, code, err, out, errs)
					}
					got = res.Verdict.Status
					if res.Verdict.Evidence != racetest.EvidenceClaims {
						t.Errorf("%s, %s: evidence %q, want %q", iso, c.name, res.Verdict.Evidence, racetest.EvidenceClaims)
					}
				} else {
					for _, st := range []racetest.Status{racetest.Holds, racetest.Broken, racetest.Inconclusive} {
						if strings.Contains(out, "\n"+strings.ToUpper(string(st))+": ") {
							got = st
						}
					}
				}
				t.Logf("%s, %s, %s: %s exit %d; %d keys committed twice", iso, c.name, format, got, code, truth)
				if truth > 0 && got == racetest.Holds {
					t.Errorf("%s, %s, %s: HOLDS although %d keys were committed twice:\n%s", iso, c.name, format, truth, out)
				}
				if truth == 0 && got == racetest.Broken {
					t.Errorf("%s, %s, %s: BROKEN although no key was committed twice:\n%s", iso, c.name, format, out)
				}
				if want := c.want[iso]; got != want || code != exitFor(want) {
					t.Errorf("%s, %s, %s: %s exit %d, want %s exit %d:\n%s%s", iso, c.name, format, got, code, want, exitFor(want), out, errs)
				}
			}
		}
	}
}
