package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"

	"github.com/jackc/pgx/v5"
)

// inspectTestDB creates a throwaway database from SQL and returns its URL.
// Without a server the test is skipped (failed under CI=true).
func inspectTestDB(t *testing.T, setup string) string { return pgtest.NewDatabase(t, setup) }

// runInspectCmd runs `idemcheck args...` with captured output.
func runInspectCmd(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, Getenv: func(k string) string { return env[k] }}
	code = Run(s, args)
	return code, out.String(), errOut.String()
}

const inspectHoleSchema = `
CREATE TABLE events (id bigint PRIMARY KEY, org bigint NOT NULL, sub text, tx text NOT NULL);
CREATE UNIQUE INDEX events_idempotency ON events (org, sub, tx);
CREATE TABLE clean (org bigint NOT NULL, ref text NOT NULL, UNIQUE (org, ref));
INSERT INTO events VALUES (1, 1, NULL, 'a'), (2, 1, NULL, 'a'), (3, 1, NULL, 'a'), (4, 2, NULL, 'b'), (5, 2, 'x', 'b');
`

func TestInspectFindsTheHole(t *testing.T) {
	dsn := inspectTestDB(t, inspectHoleSchema)
	code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--color", "never")
	if code != ExitFindings {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "public.events.events_idempotency: error nullable-key") {
		t.Errorf("the finding is not named by its object:\n%s", out)
	}
	if strings.Contains(out, "public.clean") {
		t.Errorf("a closed index was reported:\n%s", out)
	}
	if strings.Contains(out, "data:") {
		t.Errorf("data checks ran without --data:\n%s", out)
	}
	if !strings.Contains(out, "in 2 tables (2 round trips)") {
		t.Errorf("summary does not count the tables and round trips read:\n%s", out)
	}
	// --table narrows to the clean table: nothing to report.
	if code, out, _ := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--table", "clean"); code != ExitOK || strings.Contains(out, "events") {
		t.Errorf("--table clean: exit %d\n%s", code, out)
	}
}

func TestInspectDataCounts(t *testing.T) {
	dsn := inspectTestDB(t, inspectHoleSchema)
	code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--data", "--format", "json")
	if code != ExitFindings {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var doc struct {
		Findings []struct {
			Rule, Object string
			Notes        []string
			Data         *struct {
				Parts []struct {
					Part            string `json:"part"`
					NullRows        *int64 `json:"null_rows"`
					CollidingGroups *int64 `json:"colliding_groups"`
				} `json:"parts"`
			} `json:"data"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	var notes []string
	for _, f := range doc.Findings {
		if f.Object == "public.events.events_idempotency" {
			notes = f.Notes
			if f.Data == nil || len(f.Data.Parts) != 1 || f.Data.Parts[0].Part != "sub" ||
				f.Data.Parts[0].NullRows == nil || *f.Data.Parts[0].NullRows != 4 ||
				f.Data.Parts[0].CollidingGroups == nil || *f.Data.Parts[0].CollidingGroups != 1 {
				t.Errorf("JSON data counts missing or wrong: %s", out)
			}
		}
	}
	// Four rows have no sub; (1, a) three times and (2, b) once: one group
	// already collides.
	want := "data: sub: 4 rows hold NULL; 1 group of rows already collides"
	if len(notes) == 0 || !strings.HasPrefix(notes[len(notes)-1], want) {
		t.Errorf("notes %q, want one starting %q", notes, want)
	}
	if strings.Contains(errOut, "data checks") {
		t.Errorf("progress on a stderr that is not a terminal: %q", errOut)
	}
}

// TestInspectDataEvidenceForNotNull: live, with data checks on, no row
// holding NULL in a table of at least 1,000 rows is the evidence docs/rules.md
// asks before NOT NULL comes first: the hole's first fix becomes NOT NULL,
// saying why, and the unique-when-present note suggests it. With 999 rows
// the order stays (NULLS NOT DISTINCT first, or the split before
// PostgreSQL 15, whose version inspect writes fixes for) and the note only
// counts.
func TestInspectDataEvidenceForNotNull(t *testing.T) {
	usual := "NULLS NOT DISTINCT"
	if pgtest.ServerVersionNum(t) < 150000 {
		usual = "add a partial unique index"
	}
	for _, n := range []int{1000, 999} {
		dsn := inspectTestDB(t, fmt.Sprintf(`
CREATE TABLE transfers (account_id bigint NOT NULL, ref text NOT NULL, destination text,
  CONSTRAINT transfers_key UNIQUE (account_id, ref, destination));
CREATE TABLE teams (id bigint PRIMARY KEY);
CREATE TABLE members (team_id bigint NOT NULL REFERENCES teams, nickname text, UNIQUE (team_id, nickname));
INSERT INTO teams VALUES (1);
INSERT INTO transfers SELECT 1, 'r' || i, 'd' FROM generate_series(1, %[1]d) i;
INSERT INTO members SELECT 1, 'n' || i FROM generate_series(1, %[1]d) i;`, n))
		code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--data", "--format", "json")
		if code != ExitFindings {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		var doc struct {
			Findings []struct {
				Rule, Object, Message string
				Fixes                 []struct{ Title, Caveat string }
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("JSON: %v\n%s", err, out)
		}
		for _, f := range doc.Findings {
			switch f.Object {
			case "public.transfers.transfers_key":
				first := f.Fixes[0]
				if n >= 1000 && (first.Title != "make destination NOT NULL" || !strings.Contains(first.Caveat, "no row of the 1000 the index covers holds NULL")) {
					t.Errorf("%d rows: first fix %q (%s), want NOT NULL on the data's evidence", n, first.Title, first.Caveat)
				}
				if n < 1000 && !strings.Contains(first.Title, usual) {
					t.Errorf("%d rows: first fix %q, want %s", n, first.Title, usual)
				}
			case "public.members.members_team_id_nickname_key":
				want := fmt.Sprintf("; live, no row of %d holds NULL in nickname", n)
				if n >= 1000 {
					want += ": if every row must have one, make it NOT NULL"
				}
				if f.Rule != "optional-unique" || !strings.HasSuffix(f.Message, want) {
					t.Errorf("%d rows: %s %s, want it to end %q", n, f.Rule, f.Message, want)
				}
			}
		}
	}
}

func TestInspectProgressOnTerminal(t *testing.T) {
	dsn := inspectTestDB(t, inspectHoleSchema)
	var out, errOut bytes.Buffer
	s := &Streams{In: strings.NewReader(""), Out: &out, Err: &errOut, ErrTerminal: true, Getenv: func(string) string { return "" }}
	if code := Run(s, []string{"inspect", "--dsn", dsn, "--data"}); code != ExitFindings {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "data checks: 3 of 3 queries done") {
		t.Errorf("no progress line on a terminal: %q", errOut.String())
	}
}

func TestInspectVerboseSaysRoundTrips(t *testing.T) {
	dsn := inspectTestDB(t, inspectHoleSchema)
	_, _, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "-v", "--fail-on", "none")
	if !strings.Contains(errOut, "2 tables, 3 indexes read in 2 round trips") {
		t.Errorf("-v: %q", errOut)
	}
}

// DATABASE_URL is read when --dsn is missing.
func TestInspectDatabaseURL(t *testing.T) {
	dsn := inspectTestDB(t, inspectHoleSchema)
	code, out, errOut := runInspectCmd(t, map[string]string{"DATABASE_URL": dsn}, "inspect")
	if code != ExitFindings || !strings.Contains(out, "events_idempotency") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

func TestInspectConnectionFailure(t *testing.T) {
	const secret = "Horse-Battery-Staple-7"
	for _, format := range []string{"text", "json"} {
		for _, dsn := range []string{
			"postgres://idemcheck:" + secret + "@127.0.0.1:1/app?sslmode=disable",
			"host=127.0.0.1 port=1 user=idemcheck password=" + secret + " dbname=app sslmode=disable",
		} {
			code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--format", format, "--timeout", "5s")
			if code != ExitUsage {
				t.Errorf("exit %d, want 2", code)
			}
			all := out + errOut
			if strings.Contains(all, secret) {
				t.Fatalf("the password leaked:\n%s", all)
			}
			if lines := strings.Count(strings.TrimSpace(errOut), "\n"); lines != 0 || !strings.Contains(errOut, "host=127.0.0.1 port=1 user=idemcheck database=app") {
				t.Errorf("want one line naming host, port, user and database, got %q", errOut)
			}
		}
	}
}

func TestInspectUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"inspect", "--timeout", "0s"},
		{"inspect", "--table", "[a-"},
		{"inspect", "--format", "yaml"},
		{"inspect", "--rule", "no-such-rule"},
		{"inspect", "extra-argument"},
	} {
		if code, _, errOut := runInspectCmd(t, nil, args...); code != ExitUsage || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}

// paymentsTree is the shipped example, which lint and inspect must agree on.
const paymentsTree = "../testdata/examples/payments"

type jsonFindingKey struct {
	Rule     string   `json:"rule"`
	Severity string   `json:"severity"`
	Object   string   `json:"object"`
	Columns  []string `json:"columns"`
	Notes    []string `json:"notes"`
}

func findingsJSON(t *testing.T, out string) []jsonFindingKey {
	t.Helper()
	var doc struct {
		Findings []jsonFindingKey `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	return doc.Findings
}

func keysOf(fs []jsonFindingKey) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s (%s)", f.Severity, f.Rule, f.Object, strings.Join(f.Columns, ", ")))
	}
	slices.Sort(out)
	return out
}

// liveKeys drops the findings of rules that read the migration history or
// query files (not-null-dropped, unique-dropped, on-conflict-hole): a live
// database has neither, so inspect cannot report them.
func liveKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		fields := strings.Fields(k)
		if r := audit.Lookup(fields[1]); r != nil && r.Needs == audit.Migrations {
			continue
		}
		out = append(out, k)
	}
	return out
}

// The acceptance: inspect on a database built from the example tree
// reports what lint reports on the tree, exits 1, and with --data counts
// the rows the test inserted.
func TestInspectMatchesLintOnExampleTree(t *testing.T) {
	pgtest.RequireVersion(t, 150000, "NULLS NOT DISTINCT (the example's api_tokens)")
	dsn := pgtest.NewDatabase(t)
	applyTree(t, dsn, paymentsTree, nil)
	lintCode, lintOut, lintErr := runInspectCmd(t, nil, "lint", "--format", "json", paymentsTree)
	if lintCode != ExitFindings {
		t.Fatalf("lint exit %d\n%s", lintCode, lintErr)
	}
	code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--format", "json")
	if code != ExitFindings {
		t.Fatalf("inspect exit %d\n%s", code, errOut)
	}
	want, got := liveKeys(keysOf(findingsJSON(t, lintOut))), keysOf(findingsJSON(t, out))
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("findings differ\n lint:    %q\n inspect: %q", want, got)
	}

	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `
		INSERT INTO usage_events (organization_id, external_subscription_id, transaction_id, code, timestamp) VALUES
		  ('00000000-0000-0000-0000-000000000001', NULL, 'tx-1', 'api_call', now()),
		  ('00000000-0000-0000-0000-000000000001', NULL, 'tx-1', 'api_call', now()),
		  ('00000000-0000-0000-0000-000000000001', NULL, 'tx-1', 'api_call', now()),
		  ('00000000-0000-0000-0000-000000000001', NULL, 'tx-2', 'api_call', now()),
		  ('00000000-0000-0000-0000-000000000002', 'sub_1', 'tx-1', 'api_call', now());
		INSERT INTO accounts (name, email) VALUES ('a', NULL), ('b', NULL), ('c', 'c@example.com');
		INSERT INTO charge_claims (account_id, kind, address, namespace)
		  SELECT id, 'charge', 'order-7', NULL FROM accounts WHERE name = 'a';
		INSERT INTO charge_claims (account_id, kind, address, namespace)
		  SELECT id, 'charge', 'order-7', NULL FROM accounts WHERE name = 'a';`, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatal(err)
	}
	_, out, _ = runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--format", "json", "--data")
	notes := map[string]string{}
	for _, f := range findingsJSON(t, out) {
		notes[f.Object] = strings.Join(f.Notes, " | ")
	}
	for object, want := range map[string]string{
		"public.usage_events.index_unique_transaction_id": "data: external_subscription_id: 4 rows hold NULL; 1 group of rows already collides",
		"public.charge_claims.charge_claims_unique_claim": "data: namespace: 2 rows hold NULL; 1 group of rows already collides",
		"public.accounts.accounts_email_key":              "data: email: 2 rows hold NULL; 1 group of rows already collides",
	} {
		if !strings.Contains(notes[object], want) {
			t.Errorf("%s notes %q, want %q", object, notes[object], want)
		}
	}
}
