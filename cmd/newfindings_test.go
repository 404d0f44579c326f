package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"

	"github.com/idemcheck/idemcheck/internal/testkit/gittest"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

// migrationTree writes a golang-migrate tree of n migrations under
// db/migrations, the history a real project has after a few years: most
// files create clean tables or move data, every seventh leaves a hole, and
// a few set up what the newer migrations below open.
func migrationTree(r *gittest.Repo, n int) {
	for i := 1; i <= n; i++ {
		var sql string
		switch {
		case i == 10:
			// The portable split: no hole until the partial index goes.
			sql = `CREATE TABLE charge_claims (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    kind text NOT NULL,
    address text NOT NULL,
    namespace text
);
CREATE UNIQUE INDEX charge_claims_key ON charge_claims (account_id, kind, address, namespace);
CREATE UNIQUE INDEX charge_claims_key_no_namespace ON charge_claims (account_id, kind, address) WHERE namespace IS NULL;
`
		case i == 20:
			sql = `CREATE TABLE transfers (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    destination text NOT NULL,
    transfer_ref text NOT NULL
);
CREATE UNIQUE INDEX transfers_once ON transfers (account_id, destination, transfer_ref);
`
		case i == 30:
			// An old claim with ON CONFLICT over a sound index: silent until
			// a newer migration swaps the arbiter for one with a hole.
			sql = `CREATE TABLE feature_flags (
    id bigint PRIMARY KEY,
    name text NOT NULL,
    account_id bigint NOT NULL
);
CREATE UNIQUE INDEX feature_flags_name_account ON feature_flags (name, account_id);
INSERT INTO feature_flags (id, name, account_id) SELECT id, 'beta', id FROM items_29
    ON CONFLICT (name, account_id) DO NOTHING;
`
		case i%7 == 0:
			sql = fmt.Sprintf(`CREATE TABLE events_%[1]d (
    id bigint PRIMARY KEY,
    organization_id bigint NOT NULL,
    subscription_id bigint,
    transaction_id text NOT NULL
);
CREATE UNIQUE INDEX events_%[1]d_dedupe ON events_%[1]d (organization_id, subscription_id, transaction_id);
`, i)
		case i%3 == 0:
			sql = fmt.Sprintf("INSERT INTO items_%d (id, sku) VALUES (1, 'a'), (2, 'b');\nUPDATE items_%d SET sku = upper(sku);\n", i-1, i-1)
		default:
			sql = fmt.Sprintf(`CREATE TABLE items_%[1]d (
    id bigint PRIMARY KEY,
    sku text NOT NULL,
    note text
);
CREATE UNIQUE INDEX items_%[1]d_sku ON items_%[1]d (sku);
`, i)
		}
		r.Write(fmt.Sprintf("db/migrations/%06d_step_%d.up.sql", i, i), sql)
		r.Write(fmt.Sprintf("db/migrations/%06d_step_%d.down.sql", i, i), "-- down\n")
	}
}

// newMigrations are the last commit's three migrations: one drops the
// partial index that covered an old index's hole, one drops NOT NULL from
// an old key column and creates a new table with a hole, one swaps the old
// ON CONFLICT claim's arbiter for an index with a hole.
var newMigrations = map[string]string{
	"db/migrations/000201_drop_claim_split.up.sql": `DROP INDEX charge_claims_key_no_namespace;
`,
	"db/migrations/000202_internal_transfers.up.sql": `ALTER TABLE transfers ALTER COLUMN destination DROP NOT NULL;
CREATE TABLE refund_claims (
    id bigint PRIMARY KEY,
    charge_id bigint NOT NULL,
    reason text,
    request_id text NOT NULL
);
CREATE UNIQUE INDEX refund_claims_once ON refund_claims (charge_id, reason, request_id);
`,
	"db/migrations/000203_global_flags.up.sql": `ALTER TABLE feature_flags ALTER COLUMN account_id DROP NOT NULL;
`,
}

// lintFinding is the part of a JSON finding these tests compare.
type lintFinding struct {
	Rule     string   `json:"rule"`
	Object   string   `json:"object"`
	Columns  []string `json:"columns"`
	Position *struct {
		File string `json:"file"`
		Line int    `json:"line"`
	} `json:"position"`
	Related []struct {
		Position struct {
			File string `json:"file"`
		} `json:"position"`
	} `json:"related"`
	Suppressed *struct {
		Kind string `json:"kind"`
	} `json:"suppressed"`
}

func (f lintFinding) key() string {
	pos := ""
	if f.Position != nil {
		pos = fmt.Sprintf("%s:%d", f.Position.File, f.Position.Line)
	}
	return fmt.Sprintf("%s %s (%s) at %s", f.Rule, f.Object, strings.Join(f.Columns, ", "), pos)
}

func (f lintFinding) files() []string {
	var out []string
	if f.Position != nil {
		out = append(out, f.Position.File)
	}
	for _, r := range f.Related {
		out = append(out, r.Position.File)
	}
	return out
}

type lintDoc struct {
	Findings []lintFinding `json:"findings"`
	Notes    []struct {
		Message string `json:"message"`
	} `json:"notes"`
	Summary struct {
		Unchanged int `json:"unchanged"`
		Baselined int `json:"baselined"`
	} `json:"summary"`
}

func parseLintDoc(t *testing.T, r result) lintDoc {
	t.Helper()
	var doc lintDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("JSON (exit %d, stderr %q): %v\n%s", r.code, r.stder, err, r.stdout)
	}
	return doc
}

// baselineNotes are the notes about the baseline (the others say which
// down migrations were skipped).
func (d lintDoc) baselineNotes() []string {
	var out []string
	for _, n := range d.Notes {
		if strings.HasPrefix(n.Message, "baseline ") {
			out = append(out, n.Message)
		}
	}
	return out
}

// shown are the keys of the findings not suppressed.
func (d lintDoc) shown() []string {
	var out []string
	for _, f := range d.Findings {
		if f.Suppressed == nil {
			out = append(out, f.key())
		}
	}
	slices.Sort(out)
	return out
}

// The acceptance: on a history whose last commit adds 3 migrations
// to a tree of 200, --new-from-rev HEAD~1 reports exactly the full run's
// findings with a location in those 3 files, including holes the new files
// opened in old indexes.
func TestNewFromRevReportsWhatTheLastCommitAdds(t *testing.T) {
	repo := gittest.New(t)
	migrationTree(repo, 200)
	repo.Commit("200 migrations")
	for name, sql := range newMigrations {
		repo.Write(name, sql)
	}
	repo.Commit("3 migrations")
	t.Chdir(repo.Dir)

	full := parseLintDoc(t, run(t, "lint", "--format", "json", "db/migrations"))
	var want []string
	for _, f := range full.Findings {
		for _, file := range f.files() {
			if _, ok := newMigrations[file]; ok {
				want = append(want, f.key())
				break
			}
		}
	}
	slices.Sort(want)
	r := run(t, "lint", "--format", "json", "--new-from-rev", "HEAD~1", "db/migrations")
	assertCode(t, r, ExitFindings)
	got := parseLintDoc(t, r)
	if !slices.Equal(got.shown(), want) {
		t.Errorf("--new-from-rev HEAD~1 reported\n  %s\nwant the full run's findings in the 3 new files\n  %s",
			strings.Join(got.shown(), "\n  "), strings.Join(want, "\n  "))
	}
	t.Logf("full run: %d findings; --new-from-rev HEAD~1: %d shown, %d in unchanged files", len(full.Findings), len(got.shown()), got.Summary.Unchanged)
	if n := len(full.Findings) - len(want); got.Summary.Unchanged != n || n < 25 {
		t.Errorf("summary says %d findings in unchanged files, the full run has %d more than the new ones", got.Summary.Unchanged, n)
	}
	// Each way a new file opens a hole in an old index is among them.
	for _, w := range []string{
		"nullable-key public.charge_claims.charge_claims_key (namespace) at db/migrations/000201_drop_claim_split.up.sql:1",
		"not-null-dropped public.transfers.transfers_once (destination) at db/migrations/000202_internal_transfers.up.sql:1",
		"nullable-key public.transfers.transfers_once (destination) at db/migrations/000202_internal_transfers.up.sql:1",
		"nullable-key public.refund_claims.refund_claims_once (reason) at db/migrations/000202_internal_transfers.up.sql:8",
		// Placed at the old INSERT; new because the arbiter's hole opened
		// in 000203, a related location.
		"on-conflict-hole public.feature_flags.feature_flags_name_account (account_id) at db/migrations/000030_step_30.up.sql:7",
	} {
		if !slices.Contains(got.shown(), w) {
			t.Errorf("missing %s", w)
		}
	}

	// The same from a subdirectory, with the tree named relative to it.
	t.Chdir(filepath.Join(repo.Dir, "db"))
	r = run(t, "lint", "--format", "json", "--new-from-rev", "HEAD~1", "migrations")
	var fromSub []string
	for _, k := range parseLintDoc(t, r).shown() {
		fromSub = append(fromSub, strings.Replace(k, " at migrations/", " at db/migrations/", 1))
	}
	if !slices.Equal(fromSub, want) {
		t.Errorf("from db/: %q, want %q", fromSub, want)
	}
}

// Uncommitted work counts: staged, unstaged and untracked files are all
// changed since HEAD, which is what the pre-commit hook relies on.
func TestNewFromRevCountsUncommittedChanges(t *testing.T) {
	repo := gittest.New(t)
	migrationTree(repo, 30)
	repo.Commit("30 migrations")
	t.Chdir(repo.Dir)
	r := run(t, "lint", "--new-from-rev", "HEAD", "db/migrations")
	assertCode(t, r, ExitOK)
	assertContains(t, "stdout", r.stdout, "0 errors, 0 warnings, 0 info in 30 files", "findings in unchanged files not shown")

	repo.Write("db/migrations/000031_untracked.up.sql", "CREATE TABLE a (x bigint NOT NULL, y text);\nCREATE UNIQUE INDEX a_key ON a (x, y);\n")
	repo.Write("db/migrations/000032_staged.up.sql", "CREATE TABLE b (x bigint NOT NULL, y text);\nCREATE UNIQUE INDEX b_key ON b (x, y);\n")
	repo.Git("add", "db/migrations/000032_staged.up.sql")
	repo.Write("db/migrations/000007_step_7.up.sql", "-- edited, unstaged\n"+
		"CREATE TABLE events_7 (id bigint PRIMARY KEY, organization_id bigint NOT NULL, subscription_id bigint, transaction_id text NOT NULL);\n"+
		"CREATE UNIQUE INDEX events_7_dedupe ON events_7 (organization_id, subscription_id, transaction_id);\n")
	r = run(t, "lint", "--format", "json", "--new-from-rev", "HEAD", "db/migrations")
	var files []string
	for _, f := range parseLintDoc(t, r).Findings {
		files = append(files, f.Position.File)
	}
	slices.Sort(files)
	want := []string{"db/migrations/000007_step_7.up.sql", "db/migrations/000031_untracked.up.sql", "db/migrations/000032_staged.up.sql"}
	if !slices.Equal(files, want) {
		t.Errorf("findings in %q, want one in each changed file %q", files, want)
	}
}

// Outside a git work tree, and in a shallow clone without the merge base,
// the run stops with exit 2 and says what to do.
func TestNewFromRevErrors(t *testing.T) {
	repo := gittest.New(t)
	migrationTree(repo, 12)
	repo.Commit("first")
	repo.Git("checkout", "-q", "-b", "feature")
	repo.Write("db/migrations/000013_more.up.sql", "SELECT 1;\n")
	repo.Commit("second")
	repo.Git("checkout", "-q", "main")
	repo.Write("db/migrations/000013_other.up.sql", "SELECT 2;\n")
	repo.Commit("third")

	outside := t.TempDir()
	t.Chdir(outside)
	r := run(t, "lint", "--new-from-rev", "main", filepath.Join(repo.Dir, "db/migrations"))
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, "--new-from-rev needs a git work tree", outside)
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing: the run stopped before linting", r.stdout)
	}

	// A clone of main one commit deep, and feature fetched one commit deep:
	// both exist, their merge base does not.
	clone := filepath.Join(t.TempDir(), "clone")
	repo.Git("clone", "-q", "--depth", "1", "--branch", "main", "file://"+repo.Dir, clone)
	shallow := gittest.At(t, clone)
	shallow.Git("fetch", "-q", "--depth", "1", "origin", "feature:feature")
	t.Chdir(clone)
	r = run(t, "lint", "--new-from-rev", "feature", "db/migrations")
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, "no merge base in this shallow clone", "fetch-depth: 0", "git fetch --unshallow")
	r = run(t, "lint", "--new-from-rev", "HEAD~1", "db/migrations")
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, "--new-from-rev HEAD~1: no such commit in this clone; the clone is shallow", "fetch-depth: 0")
	// An empty revision (a CI variable that is set only for merge requests)
	// lints the whole tree.
	r = run(t, "lint", "--new-from-rev", "", "db/migrations")
	assertCode(t, r, ExitFindings)
	assertContains(t, "stdout", r.stdout, "events_7_dedupe")
}

// On any tree: after --write-baseline, lint --baseline exits 0; a new hole
// then exits 1 and is the only finding shown; moving the old findings down
// keeps their fingerprints; a fixed one leaves a note.
func TestBaselineRoundTrip(t *testing.T) {
	repo := gittest.New(t) // only a scratch directory here
	migrationTree(repo, 40)
	t.Chdir(repo.Dir)
	baseline := filepath.Join(t.TempDir(), "baseline.json")
	r := run(t, "lint", "--write-baseline", baseline, "db/migrations")
	assertCode(t, r, ExitOK)
	assertContains(t, "stderr", r.stder, "idemcheck: wrote 5 findings to the baseline "+baseline)
	assertContains(t, "stdout", r.stdout, "5 errors") // the report is printed as usual

	r = run(t, "lint", "--baseline", baseline, "db/migrations")
	assertCode(t, r, ExitOK)
	assertContains(t, "stdout", r.stdout, "0 errors, 0 warnings, 0 info in 40 files (82 statements)", ", 5 in the baseline — ")

	// Lines move: comments above every old finding.
	for _, i := range []int{7, 14, 21, 28, 35} {
		path := fmt.Sprintf("db/migrations/%06d_step_%d.up.sql", i, i)
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		repo.Write(path, "-- moved down\n\n\n"+string(old))
	}
	r = run(t, "lint", "--baseline", baseline, "db/migrations")
	assertCode(t, r, ExitOK)

	repo.Write("db/migrations/000041_new_hole.up.sql", newMigrations["db/migrations/000202_internal_transfers.up.sql"][len("ALTER TABLE transfers ALTER COLUMN destination DROP NOT NULL;\n"):])
	r = run(t, "lint", "--format", "json", "--baseline", baseline, "db/migrations")
	assertCode(t, r, ExitFindings)
	doc := parseLintDoc(t, r)
	if want := []string{"nullable-key public.refund_claims.refund_claims_once (reason) at db/migrations/000041_new_hole.up.sql:7"}; !slices.Equal(doc.shown(), want) {
		t.Errorf("shown %q, want only the new hole %q", doc.shown(), want)
	}
	if doc.Summary.Baselined != 5 {
		t.Errorf("baselined %d, want 5", doc.Summary.Baselined)
	}

	// Fix one old hole: its entry matches nothing and is noted.
	repo.Write("db/migrations/000014_step_14.up.sql", "SELECT 1;\n")
	r = run(t, "lint", "--format", "json", "--baseline", baseline, "--disable", "nullable-key", "db/migrations")
	if notes := parseLintDoc(t, r).baselineNotes(); len(notes) != 0 {
		t.Errorf("notes %q with nullable-key disabled: an entry of a rule that did not run is not stale", notes)
	}
	r = run(t, "lint", "--format", "json", "--baseline", baseline, "db/migrations")
	notes := parseLintDoc(t, r).baselineNotes()
	want := "baseline " + baseline + ": nullable-key public.events_14.events_14_dedupe (subscription_id) matches no finding any more (fixed or renamed): write the baseline again to drop it"
	if !slices.Equal(notes, []string{want}) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

func TestBaselineErrors(t *testing.T) {
	dir := t.TempDir()
	tree := testtree.Write(t, map[string]string{"1.sql": holeSQL})
	missing := filepath.Join(dir, "missing.json")
	r := run(t, "lint", "--baseline", missing, tree)
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, "--baseline "+missing+": no such file (write one with --write-baseline "+missing+")")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"findings": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, "lint", "--baseline", bad, tree)
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, "--baseline "+bad+": not a baseline written by idemcheck --write-baseline")
}

// A baseline written by inspect on the database built from a tree makes
// lint --baseline on that tree exit 0, and the reverse; the findings of the
// rules inspect cannot run are left out with a note that says so.
func TestBaselineSharedByLintAndInspect(t *testing.T) {
	pgtest.RequireVersion(t, 150000, "NULLS NOT DISTINCT (the example's api_tokens)")
	dsn := pgtest.NewDatabase(t)
	applyTree(t, dsn, paymentsTree, nil)
	dir := t.TempDir()
	fromInspect, fromLint := filepath.Join(dir, "inspect.json"), filepath.Join(dir, "lint.json")

	r := run(t, "inspect", "--dsn", dsn, "--write-baseline", fromInspect)
	assertCode(t, r, ExitOK)
	assertContains(t, "stderr", r.stder, "wrote 8 findings")
	r = run(t, "lint", "--format", "json", "--baseline", fromInspect, paymentsTree)
	assertCode(t, r, ExitOK)
	doc := parseLintDoc(t, r)
	if len(doc.shown()) != 0 || doc.Summary.Baselined != 11 {
		t.Errorf("lint with inspect's baseline shows %q and has %d in the baseline, want none and 11", doc.shown(), doc.Summary.Baselined)
	}
	if notes := doc.baselineNotes(); len(notes) != 1 || !strings.Contains(notes[0],
		"3 findings of not-null-dropped, on-conflict-hole, unique-dropped not shown: the baseline was written by inspect, which does not run those rules") {
		t.Errorf("notes %q, want one about the 3 findings inspect cannot judge", doc.baselineNotes())
	}

	r = run(t, "lint", "--write-baseline", fromLint, paymentsTree)
	assertCode(t, r, ExitOK)
	r = run(t, "inspect", "--dsn", dsn, "--format", "json", "--baseline", fromLint)
	assertCode(t, r, ExitOK)
	doc = parseLintDoc(t, r)
	if len(doc.shown()) != 0 || doc.Summary.Baselined != 8 || len(doc.baselineNotes()) != 0 {
		t.Errorf("inspect with lint's baseline shows %q, %d in the baseline, notes %q; want none, 8, none", doc.shown(), doc.Summary.Baselined, doc.baselineNotes())
	}

	// A hole opened on the server after the baseline is new: dropping the
	// partial index of the refund claims' split.
	pgtest.Exec(t, dsn, "DROP INDEX refund_claims_claim_no_namespace_key")
	r = run(t, "inspect", "--dsn", dsn, "--format", "json", "--baseline", fromInspect)
	assertCode(t, r, ExitFindings)
	doc = parseLintDoc(t, r)
	if want := []string{"nullable-key public.refund_claims.refund_claims_claim_key (namespace) at "}; !slices.Equal(doc.shown(), want) {
		t.Errorf("after the drop, inspect shows %q, want %q", doc.shown(), want)
	}
}
