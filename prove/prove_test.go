package prove_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/pipeline"
	"github.com/idemcheck/idemcheck/prove"
	"github.com/idemcheck/idemcheck/prove/witness"
	"github.com/idemcheck/idemcheck/report"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// scratch opens the scratch database of a test on the test server
// (IDEMCHECK_TEST_DSN), or skips like every test that needs PostgreSQL.
func scratch(t *testing.T) *prove.Server {
	t.Helper()
	pgtest.Connect(t) // skip, or fail under CI=true, without a server
	s, err := prove.Open(context.Background(), prove.Config{DSN: pgtest.DSN()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return s
}

// lint replays SQL files in order and judges the catalog as lint does,
// with fixes written for the given major version; witnesses attached.
func lint(t *testing.T, version int, paths ...string) ([]audit.Finding, *catalog.Catalog) {
	t.Helper()
	findings, cat, _ := lintWithHistory(t, version, paths...)
	return findings, cat
}

// lintWithHistory is lint, with the history replay recorded.
func lintWithHistory(t *testing.T, version int, paths ...string) ([]audit.Finding, *catalog.Catalog, *catalog.History) {
	t.Helper()
	cat := catalog.New()
	r := sqlparse.NewReplayer(cat)
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res := sqlparse.Split(sqlparse.Input{Path: path, Text: string(src)})
		for _, st := range res.Statements {
			for _, d := range r.Apply(st) {
				if d.Level == sqlparse.Error {
					t.Fatalf("%s", d)
				}
			}
		}
	}
	res, err := pipeline.Run(pipeline.Input{Catalog: cat, History: r.History()},
		pipeline.Options{Rules: audit.Rules, Audit: audit.Options{PGVersion: version}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings(), cat, r.History()
}

// holeRules are the rules whose findings carry a witness.
var holeRules = []string{"nullable-key", "not-null-dropped", "on-conflict-hole"}

// needsNewerServer reports why a witness's copy cannot exist on a server
// of this major version (a NULLS NOT DISTINCT index before 15), or "".
func needsNewerServer(w *audit.Witness, major int) string {
	for _, st := range w.Setup {
		if major < 15 && strings.Contains(st.SQL, "NULLS NOT DISTINCT") {
			return "the table has a NULLS NOT DISTINCT index, which PostgreSQL " + "before 15 cannot build"
		}
	}
	return ""
}

// TestFixturesProven proves every hole the rule fixtures want: each
// nullable-key, not-null-dropped and on-conflict-hole finding (the fixture
// test holds them to their "-- want:" comments) is proven on the test
// server, and its first fix, written for that server's version, refuses the
// witness. A fix that lets the rows in is a defect and fails here.
func TestFixturesProven(t *testing.T) {
	s := scratch(t)
	files, err := filepath.Glob("../testdata/rules/*/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	proven := 0
	for _, path := range files {
		findings, _ := lint(t, s.Major, path)
		s.Prove(context.Background(), findings)
		for _, f := range findings {
			if f.Witness == nil {
				if slices.Contains(holeRules, f.Rule) && f.Escape != nil {
					t.Errorf("%s: %s %s has no witness", path, f.Rule, f.Object)
				}
				continue
			}
			if !slices.Contains(holeRules, f.Rule) {
				t.Errorf("%s: %s %s has a witness, but only holes have one", path, f.Rule, f.Object)
			}
			name := filepath.Base(path) + " " + f.Rule + " " + f.Object
			if why := needsNewerServer(f.Witness, s.Major); why != "" {
				t.Logf("%s: skipped on PostgreSQL %s: %s", name, s.Version, why)
				continue
			}
			switch {
			case f.Proof.Verdict != audit.Proven:
				t.Errorf("%s: %s\nwitness:\n%s", name, f.Proof.Message, f.Witness.SQL())
			case f.Witness.Fix != nil && f.Proof.Fix != audit.FixRefused:
				t.Errorf("%s: the first fix (%s) does not refuse the witness: %s", name, f.Witness.Fix.Title, f.Proof.Message)
			default:
				proven++
			}
		}
	}
	if proven < 40 {
		t.Errorf("only %d findings proven: the fixtures hold more holes than that", proven)
	}
	t.Logf("%d findings proven on PostgreSQL %s", proven, s.Version)
}

// TestSafeShapesHaveNoWitness: the fixtures of shapes without a hole
// produce no finding of the hole rules, so no witness.
func TestSafeShapesHaveNoWitness(t *testing.T) {
	for _, name := range []string{"portable_split.sql", "check_forcing.sql", "nulls_not_distinct.sql", "generated_columns.sql",
		"exclusive_arc.sql", "where_forcing.sql", "not_null_everywhere.sql", "primary_key.sql", "domain_not_null.sql"} {
		findings, _ := lint(t, 16, filepath.Join("../testdata/rules/nullable-key", name))
		for _, f := range findings {
			if f.Witness != nil {
				t.Errorf("%s: %s %s has a witness", name, f.Rule, f.Object)
			}
		}
	}
}

// plant injects a finding the rules did not make: a hole through part of
// index in table, which may not be one.
func plant(t *testing.T, cat *catalog.Catalog, table, index, part string) audit.Finding {
	t.Helper()
	tb := cat.ResolveTable("", table)
	if tb == nil || tb.Index(index) == nil {
		t.Fatalf("no table %s with index %s", table, index)
	}
	f := audit.Finding{Rule: "nullable-key", Severity: audit.Error, Object: tb.QualifiedName() + "." + index,
		Escape: &audit.Escape{Table: tb, Index: tb.Index(index), Parts: []catalog.IndexPart{{Column: part}}}}
	fs := []audit.Finding{f}
	witness.Attach(fs, cat)
	return fs[0]
}

// TestPlantedFalseFindingRefuted: a finding the rules rightly do not make,
// injected by hand, is refuted by the scratch server, and refuted it no
// longer fails the run.
func TestPlantedFalseFindingRefuted(t *testing.T) {
	s := scratch(t)
	findings, cat := lint(t, s.Major, "../testdata/rules/nullable-key/portable_split.sql")
	for _, f := range findings {
		if f.Rule == "nullable-key" {
			t.Fatalf("the portable split fixture reports %s: not a safe shape to plant in", f.Object)
		}
	}
	planted := []audit.Finding{plant(t, cat, "addresses", "addresses_key", "namespace")}
	if len(planted[0].Witness.Rows) != 2 {
		t.Fatalf("no witness: %s", planted[0].Witness.NotBuilt)
	}
	s.Prove(context.Background(), planted)
	p := planted[0].Proof
	if p.Verdict != audit.Refuted || !strings.Contains(p.Message, "23505 on addresses_key_no_namespace") {
		t.Fatalf("planted false finding: %s", p.Message)
	}
	if !slices.ContainsFunc(planted[0].Notes, func(n string) bool { return strings.Contains(n, prove.BugReportURL) }) {
		t.Errorf("a refuted finding asks for no bug report: %q", planted[0].Notes)
	}
	res := &pipeline.Result{Doc: &report.Document{Findings: planted}}
	if res.Fails(pipeline.Threshold{Severity: audit.Warning}) {
		t.Error("a refuted error still fails the run")
	}
	planted[0].Proof = nil
	if !res.Fails(pipeline.Threshold{Severity: audit.Warning}) {
		t.Error("the same error unproven does not fail the run: the check above proves nothing")
	}
}

// TestPlantedOnConflictRefuted: an ON CONFLICT statement whose arbiter is
// NULLS NOT DISTINCT conflicts with its repeat; a finding planted on it is
// refuted because the conflict fires.
func TestPlantedOnConflictRefuted(t *testing.T) {
	s := scratch(t)
	if s.Major < 15 {
		t.Skipf("PostgreSQL %s has no NULLS NOT DISTINCT", s.Version)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "grants.sql")
	sql := "CREATE TABLE grants (org_id bigint NOT NULL, scope text, CONSTRAINT grants_key UNIQUE NULLS NOT DISTINCT (org_id, scope));\n" +
		"INSERT INTO grants (org_id, scope) VALUES ($1, $2) ON CONFLICT (org_id, scope) DO NOTHING;\n"
	writeFile(t, path, sql)
	findings, cat, hist := lintWithHistory(t, s.Major, path)
	if len(findings) != 0 || len(hist.Queries) != 1 {
		t.Fatalf("the fixture of a closed arbiter reports %d findings and has %d queries", len(findings), len(hist.Queries))
	}
	tb := cat.ResolveTable("", "grants")
	f := []audit.Finding{{Rule: "on-conflict-hole", Object: "public.grants.grants_key",
		Escape: &audit.Escape{Table: tb, Index: tb.Index("grants_key"), Parts: []catalog.IndexPart{{Column: "scope"}}, Query: &hist.Queries[0]}}}
	witness.Attach(f, cat)
	if got := f[0].Witness.Rows; len(got) != 2 || !strings.Contains(got[0], "VALUES (1, NULL)") {
		t.Fatalf("the statement's parameters were not given values: %q (%s)", got, f[0].Witness.NotBuilt)
	}
	s.Prove(context.Background(), f)
	if f[0].Proof.Verdict != audit.Refuted || !strings.Contains(f[0].Proof.Message, "the conflict fired") {
		t.Fatalf("planted on-conflict finding: %s", f[0].Proof.Message)
	}
}

// TestSQLCParametersProven: an ON CONFLICT statement of a query file runs
// with its parameters ($n, sqlc.arg(name), sqlc.narg(name), @name) given
// values of their columns' types, the hole's NULL.
func TestSQLCParametersProven(t *testing.T) {
	s := scratch(t)
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.sql")
	queries := filepath.Join(dir, "queries.sql")
	writeFile(t, schema, `CREATE TABLE usage_events (
    id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
    organization_id bigint NOT NULL,
    external_subscription_id text,
    transaction_id text NOT NULL,
    amount bigint NOT NULL CHECK (amount > 0),
    recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX usage_events_dedupe ON usage_events (organization_id, external_subscription_id, transaction_id);
`)
	writeFile(t, queries, `-- name: RecordUsageEvent :exec
INSERT INTO usage_events (organization_id, external_subscription_id, transaction_id, amount)
VALUES ($1, $2, $3, $4)
ON CONFLICT (organization_id, external_subscription_id, transaction_id) DO NOTHING;

-- name: UpsertUsageEvent :exec
INSERT INTO usage_events (organization_id, external_subscription_id, transaction_id, amount)
VALUES (sqlc.arg(org), sqlc.narg(sub), sqlc.arg(tx), @amount)
ON CONFLICT (organization_id, external_subscription_id, transaction_id) DO UPDATE SET amount = @amount;
`)
	findings, _ := lint(t, s.Major, schema, queries)
	fs := slices.DeleteFunc(findings, func(f audit.Finding) bool { return f.Rule != "on-conflict-hole" })
	if len(fs) != 2 {
		t.Fatalf("%d on-conflict-hole findings, want 2", len(fs))
	}
	s.Prove(context.Background(), fs)
	for _, f := range fs {
		w := f.Witness
		if len(w.Rows) != 2 || strings.ContainsAny(w.Rows[0], "$@") || strings.Contains(w.Rows[0], "sqlc.") ||
			!strings.Contains(w.Rows[0], "VALUES (1, NULL, 'a', 1)") {
			t.Errorf("%s: the parameters were not all given values: %q (%s)", f.Object, w.Rows, w.NotBuilt)
		}
		if f.Proof.Verdict != audit.Proven || !strings.Contains(f.Proof.Message, "the conflict never fired") {
			t.Errorf("%s: %s\n%s", f.Object, f.Proof.Message, w.SQL())
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProveReportsAFixDefect: a fix that does not close the hole (here a plain
// index instead of a unique one) is reported as the defect it is.
func TestProveReportsAFixDefect(t *testing.T) {
	s := scratch(t)
	findings, _ := lint(t, s.Major, "../testdata/rules/nullable-key/events_transaction_id.sql")
	var f *audit.Finding
	for i := range findings {
		if findings[i].Rule == "nullable-key" {
			f = &findings[i]
		}
	}
	if f == nil {
		t.Fatal("no nullable-key finding in events_transaction_id.sql")
	}
	f.Witness.Fix = &audit.WitnessFix{Title: "a plain index", Statements: []string{
		"CREATE INDEX events_plain ON events (organization_id, transaction_id) WHERE external_subscription_id IS NULL"}}
	fs := []audit.Finding{*f}
	s.Prove(context.Background(), fs)
	if p := fs[0].Proof; p.Verdict != audit.Proven || p.Fix != audit.FixAccepted || !strings.Contains(p.Message, "a defect in idemcheck's fix") {
		t.Fatalf("a fix that lets the rows in: %s", p.Message)
	}
}

// TestNotProvenSaysWhy: a CHECK the copy cannot have (it calls the
// application's own function, or the source could not render it) makes
// the finding "not proven: CHECK ... not modelled"; a CHECK the witness's
// values do not pass refuses the first row, and the finding says so; a
// CHECK with a regular expression gets a value that matches it.
func TestNotProvenSaysWhy(t *testing.T) {
	s := scratch(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "checks.sql")
	writeFile(t, path, `CREATE FUNCTION plausible(text) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT length($1) > 2';
CREATE TABLE handles (account_id bigint NOT NULL, namespace text, handle text NOT NULL CONSTRAINT handle_plausible CHECK (plausible(handle)));
CREATE UNIQUE INDEX handles_key ON handles (account_id, namespace, handle);
CREATE TABLE codes (account_id bigint NOT NULL, namespace text, code text NOT NULL CONSTRAINT code_shape CHECK (code ~ '^[0-9]{4}-[A-Z]{2}$'));
CREATE UNIQUE INDEX codes_key ON codes (account_id, namespace, code);
CREATE TABLE tickets (account_id bigint NOT NULL, namespace text, ref text NOT NULL CONSTRAINT ref_prefix CHECK (starts_with(ref, 'T-')));
CREATE UNIQUE INDEX tickets_key ON tickets (account_id, namespace, ref);
CREATE TABLE labels (account_id bigint NOT NULL, namespace text, label text NOT NULL CONSTRAINT label_text CHECK (label <> ''));
CREATE UNIQUE INDEX labels_key ON labels (account_id, namespace, label);
`)
	findings, cat := lint(t, s.Major, path)
	// A CHECK the source could not render: the copy cannot have it either.
	cat.ResolveTable("", "labels").Check("label_text").SQL = ""
	for i := range findings {
		findings[i].Witness = nil
	}
	witness.Attach(findings, cat)
	s.Prove(context.Background(), findings)
	want := map[string]string{
		"public.handles.handles_key": "not proven: CHECK handle_plausible not modelled: PostgreSQL refused it on the copy: function plausible(text) does not exist",
		"public.labels.labels_key":   "not proven: CHECK label_text not modelled",
		"public.tickets.tickets_key": "not proven: PostgreSQL " + s.Version + " refused the first row, so the witness shows nothing: CHECK ref_prefix refused it (23514)",
		"public.codes.codes_key":     "proven: PostgreSQL " + s.Version + " accepted both rows",
	}
	for _, f := range findings {
		if f.Rule != "nullable-key" {
			continue
		}
		if w, ok := want[f.Object]; !ok || !strings.HasPrefix(f.Proof.Message, w) {
			t.Errorf("%s: %s\n%s", f.Object, f.Proof.Message, f.Witness.SQL())
		}
		delete(want, f.Object)
	}
	for object := range want {
		t.Errorf("no finding on %s", object)
	}
}

// TestWitnessThatMissesTheHoleIsNotARefutation: when the witness does not
// manage to leave the hole part NULL (here a generated column the model
// cannot evaluate is never NULL), the index refusing the second row says
// nothing against the finding: it is not proven, not refuted.
func TestWitnessThatMissesTheHoleIsNotARefutation(t *testing.T) {
	s := scratch(t)
	path := filepath.Join(t.TempDir(), "generated.sql")
	writeFile(t, path, `CREATE TABLE tags (account_id bigint NOT NULL, ns text, label text GENERATED ALWAYS AS ((ns IS NULL)::text) STORED);
CREATE UNIQUE INDEX tags_key ON tags (account_id, label);
`)
	_, cat := lint(t, s.Major, path)
	planted := []audit.Finding{plant(t, cat, "tags", "tags_key", "label")}
	s.Prove(context.Background(), planted)
	p := planted[0].Proof
	if p.Verdict != audit.NotProven || !strings.Contains(p.Message, "did not leave the first row inside the index with the hole part NULL") {
		t.Fatalf("%s\n%s", p.Message, planted[0].Witness.SQL())
	}
}
