package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeJudgments writes a judgment file from rows of tab-separated fields.
func writeJudgments(t *testing.T, rows ...string) *judgmentFile {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.tsv")
	if err := os.WriteFile(path, []byte("# rule\tobject\tparts\twhere\tverdict\treason\n"+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jf, err := readJudgments(path)
	if err != nil {
		t.Fatal(err)
	}
	return jf
}

func at(file string, line int) *position { return &position{File: file, Line: line} }

// A made-up corpus: two nullable unique indexes, a history rule that
// fires twice on one object, and findings that move between rules.
func sampleMeasurement() *measurement {
	c := &corpus{Name: "c", Path: "/src/c", Sub: "migrations"}
	lint := &document{Findings: []finding{
		{Rule: "nullable-key", Severity: "error", Object: "public.claims.claims_key", Columns: []string{"namespace"}, Position: at("/src/c/migrations/1.sql", 3)},
		{Rule: "nullable-key", Severity: "warning", Object: "public.tags.tags_scope_name_key", Columns: []string{"name"}, Position: at("/src/c/migrations/2.sql", 5)},
		{Rule: "unique-dropped", Severity: "warning", Object: "public.t.t_key", Columns: []string{"a"}, Position: at("/src/c/migrations/3.sql", 1)},
		{Rule: "unique-dropped", Severity: "warning", Object: "public.t.t_key", Columns: []string{"a"}, Position: at("/src/c/migrations/4.sql", 1)},
		{Rule: "key-without-unique", Severity: "warning", Object: "public.runs.merge_request_id", Columns: []string{"merge_request_id"}, Position: at("/src/c/migrations/5.sql", 2)},
		{Rule: "unique-dropped", Severity: "info", Object: "public.b.b_pkey", Columns: []string{"user_id"}, Position: at("/src/c/migrations/6.sql", 1)},
		{Rule: "unique-dropped", Severity: "warning", Object: "public.b.b_pkey", Columns: []string{"user_id"}, Position: at("/src/c/migrations/7.sql", 1)},
	}}
	inspect := &document{Findings: []finding{
		{Rule: "nullable-key", Severity: "error", Object: "public.claims.claims_key", Columns: []string{"namespace"}},
		{Rule: "optional-unique", Severity: "info", Object: "public.tags.tags_scope_name_key", Columns: []string{"name"}},
		{Rule: "key-without-unique", Severity: "warning", Object: "public.runs.merge_request_id", Columns: []string{"merge_request_id"}},
	}}
	return &measurement{Corpus: c, Lint: lint, Inspect: inspect, Indexes: []uniqueIndex{
		{Object: "public.claims.claims_key", Parts: []string{"account_id", "namespace"}, Nullable: []string{"namespace"}},
		{Object: "public.tags.tags_scope_name_key", Parts: []string{"scope_id", "name"}, Nullable: []string{"name"}},
	}}
}

func TestScoreDerivesFindingVerdictsFromIndexJudgments(t *testing.T) {
	jf := writeJudgments(t,
		"index\tpublic.claims.claims_key\taccount_id, namespace\t-\thole\tno namespace still names a claim",
		"index\tpublic.tags.tags_scope_name_key\tscope_id, name\t-\tpresent\tthe tag's own optional name",
		"unique-dropped\tpublic.t.t_key\ta\t3.sql\tfalse\trestored in 3.sql",
		"unique-dropped\tpublic.t.t_key\ta\t4.sql\ttrue\tnothing restores it after 4.sql",
		"key-without-unique\tpublic.runs.merge_request_id\tmerge_request_id\t-\tfalse\ta foreign key",
		"key-without-unique\tpublic.gone.key\tkey\t-\tfalse\tno longer reported",
		"unique-dropped\tpublic.b.b_pkey\tuser_id\t-\tinfo\treplaced by a superset: right as info",
	)
	s := scoreCorpus(sampleMeasurement(), jf, comparableRules())

	var got []string
	for _, j := range s.Findings {
		got = append(got, j.Finding.Rule+" "+j.Where+" "+j.Verdict)
	}
	want := []string{
		"nullable-key 1.sql true",  // on a hole
		"nullable-key 2.sql false", // on an index that is unique when present
		"unique-dropped 3.sql false",
		"unique-dropped 4.sql true", // the same object judged per file
		"key-without-unique 5.sql false",
		"unique-dropped 6.sql true",  // judged right at info
		"unique-dropped 7.sql false", // the same judgment at warning
	}
	if !slices.Equal(got, want) {
		t.Errorf("verdicts:\n got %q\nwant %q", got, want)
	}
	if len(s.Unjudged) != 0 {
		t.Errorf("unjudged: %+v", s.Unjudged)
	}
	if len(s.Unused) != 1 || s.Unused[0].Object != "public.gone.key" {
		t.Errorf("unused judgments: %+v", s.Unused)
	}

	// lint says nullable-key where inspect says optional-unique: one
	// difference each way, and inspect's finding is judged too.
	if len(s.LintOnly) != 1 || s.LintOnly[0].Finding.Object != "public.tags.tags_scope_name_key" {
		t.Errorf("lint only: %+v", s.LintOnly)
	}
	if len(s.InspectOnly) != 1 || s.InspectOnly[0].Finding.Rule != "optional-unique" || s.InspectOnly[0].Verdict != "true" {
		t.Errorf("inspect only: %+v", s.InspectOnly)
	}

	tallies := s.ruleTallies()
	if nk := tallies["nullable-key"]; nk == nil || nk.True != 1 || nk.False != 1 {
		t.Errorf("nullable-key tally: %+v", nk)
	}
	r := s.recall()
	if r.Holes != 1 || r.Lint != 1 || r.Inspect != 1 || r.Present != 1 || len(r.Missed) != 0 {
		t.Errorf("recall: %+v", r)
	}
}

func TestScoreAsksForEveryMissingJudgmentOnce(t *testing.T) {
	jf := writeJudgments(t,
		"index\tpublic.claims.claims_key\taccount_id, namespace\t-\t?\twritten by -append-unjudged",
	)
	s := scoreCorpus(sampleMeasurement(), jf, comparableRules())
	var got []string
	for _, j := range s.Unjudged {
		got = append(got, j.Rule+" "+j.Object+" "+j.Where)
	}
	slices.Sort(got)
	want := []string{
		"index public.claims.claims_key ",        // already "?" in the file
		"index public.tags.tags_scope_name_key ", // its findings wait for it
		"key-without-unique public.runs.merge_request_id ",
		"unique-dropped public.b.b_pkey 6.sql",
		"unique-dropped public.b.b_pkey 7.sql",
		"unique-dropped public.t.t_key 3.sql",
		"unique-dropped public.t.t_key 4.sql",
	}
	if !slices.Equal(got, want) {
		t.Errorf("unjudged:\n got %q\nwant %q", got, want)
	}
	for _, j := range s.Findings {
		if j.Verdict != "" {
			t.Errorf("%s has verdict %q with nothing judged", j, j.Verdict)
		}
	}

	// -append-unjudged writes the new ones only, and they read back as "?".
	if err := jf.appendUnjudged(s.Unjudged); err != nil {
		t.Fatal(err)
	}
	again, err := readJudgments(jf.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Rows) != 7 {
		t.Errorf("after appending: %d rows, want 7", len(again.Rows))
	}
}

func TestPrecisionAndTarget(t *testing.T) {
	for _, tc := range []struct {
		t    tally
		want string
	}{
		{tally{Findings: 10, True: 9, False: 1}, "met"},
		{tally{Findings: 10, True: 8, Debatable: 2}, "MISSED (under 90%)"}, // debatable counts as false
		{tally{Findings: 3, True: 3}, "met (no false alarm)"},
		{tally{Findings: 3, True: 2, Debatable: 1}, "MISSED (under 10 findings, a false alarm)"},
		{tally{Findings: 12, True: 12, Unjudged: 1}, "unjudged"},
		{tally{}, "met (no finding)"},
	} {
		if got := targetMet(tc.t); got != tc.want {
			t.Errorf("targetMet(%+v) = %q, want %q", tc.t, got, tc.want)
		}
	}
	strict, lenient, ok := tally{Findings: 4, True: 2, False: 1, Debatable: 1}.precision()
	if !ok || strict != 0.5 || lenient != 0.75 {
		t.Errorf("precision = %v, %v, %v; want 0.5, 0.75, true", strict, lenient, ok)
	}
}

func TestReadJudgmentsRejectsBadRows(t *testing.T) {
	for _, tc := range []struct{ row, want string }{
		{"index\tpublic.t.k\ta, b\t-\ttrue\treason", `verdict "true" is not one of hole, present, safe, debatable, ?`},
		{"nullable-key\tpublic.t.k\tb\t-\thole\treason", `verdict "hole" is not one of true, false, debatable, info, ?`},
		{"nullable-key\tpublic.t.k\tb\t-\tfalse\t", "a verdict needs a one-line reason"},
		{"nullable-key\tpublic.t.k\tb\tfalse\treason", "want 6 tab-separated fields"},
		{"nullable-key\tpublic.t.k\tb\t-\tfalse\tr\nnullable-key\tpublic.t.k\tb\t-\ttrue\tr", "judges the same thing as line 1"},
	} {
		path := filepath.Join(t.TempDir(), "c.tsv")
		if err := os.WriteFile(path, []byte(tc.row+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readJudgments(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to say %q", tc.row, err, tc.want)
		}
	}
}

func TestRefusalsFoldAbortedTransactions(t *testing.T) {
	stderr := strings.Join([]string{
		`psql:/tmp/x/00001.sql:4: ERROR:  relation "t" does not exist`,
		`psql:/tmp/x/00001.sql:5: ERROR:  current transaction is aborted, commands ignored until end of transaction block`,
		`psql:/tmp/x/00001.sql:6: ERROR:  current transaction is aborted, commands ignored until end of transaction block`,
		`psql:/tmp/x/00002.sql:1: NOTICE:  something`,
		`psql:/tmp/x/00002.sql:9: ERROR:  syntax error at or near "COMMIT"`,
	}, "\n")
	got, err := refusals(strings.NewReader(stderr), map[string]string{"/tmp/x/00001.sql": "1_a.sql", "/tmp/x/00002.sql": "2_b.sql"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`1_a.sql:4: relation "t" does not exist (and 2 statements after it in the same transaction)`,
		`2_b.sql:9: syntax error at or near "COMMIT"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("refusals:\n got %q\nwant %q", got, want)
	}
}

func TestCorpusArgumentsTakeTheManifestsOptions(t *testing.T) {
	manifest := []corpus{{Name: "auth", URL: "u", Commit: "abc", Sub: "migrations", Vars: []string{"Namespace=auth"}, Setup: "s.sql"}}
	c, err := parseCorpusArg("auth=/tmp/auth,var=Namespace=other", manifest)
	if err != nil {
		t.Fatal(err)
	}
	if c.tree() != "/tmp/auth/migrations" || c.Setup != "s.sql" || c.Commit != "abc" || !slices.Equal(c.Vars, []string{"Namespace=other"}) {
		t.Errorf("corpus: %+v", c)
	}
	if _, err := parseCorpusArg("lago", nil); err == nil {
		t.Error("a corpus argument without a path was accepted")
	}
	if _, err := parseCorpusArg("lago=/x,colour=red", nil); err == nil || !strings.Contains(err.Error(), `unknown option "colour"`) {
		t.Errorf("unknown option: %v", err)
	}
}

func TestRenderFillsTopLevelAndOptions(t *testing.T) {
	got, err := render("x.sql", `CREATE TABLE {{ index .Options "Namespace" }}.users (); -- {{ .Namespace }}`, []string{"Namespace=auth"})
	if err != nil {
		t.Fatal(err)
	}
	if got != "CREATE TABLE auth.users (); -- auth" {
		t.Errorf("render = %q", got)
	}
	if _, err := render("x.sql", `{{ .Missing }}`, []string{"Namespace=auth"}); err == nil {
		t.Error("a placeholder without a value rendered silently")
	}
}

// Rows under "# historical" judge a finding that comes back (reported as
// reappeared) and are not listed as unused when they match nothing.
func TestHistoricalJudgments(t *testing.T) {
	jf := writeJudgments(t,
		"index\tpublic.claims.claims_key\taccount_id, namespace\t-\thole\tno namespace still names a claim",
		"index\tpublic.tags.tags_scope_name_key\tscope_id, name\t-\tpresent\tthe tag's own optional name",
		"unique-dropped\tpublic.t.t_key\ta\t-\tfalse\trestored later",
		"unique-dropped\tpublic.b.b_pkey\tuser_id\t-\tinfo\treplaced by a superset",
		"key-without-unique\tpublic.gone.key\tkey\t-\tfalse\tno longer reported",
		"# historical: false alarms the rules no longer raise",
		"key-without-unique\tpublic.runs.merge_request_id\tmerge_request_id\t-\tfalse\ta foreign key",
		"key-without-unique\tpublic.old.key\tkey\t-\tfalse\tgone for good",
	)
	s := scoreCorpus(sampleMeasurement(), jf, comparableRules())
	if len(s.Unused) != 1 || s.Unused[0].Object != "public.gone.key" {
		t.Errorf("unused: %+v, want only the row above the marker", s.Unused)
	}
	if len(s.Reappeared) != 1 || s.Reappeared[0].Object != "public.runs.merge_request_id" || s.Historical != 2 {
		t.Errorf("reappeared %+v, historical %d; want merge_request_id, 2", s.Reappeared, s.Historical)
	}
	if tally := s.ruleTallies()["key-without-unique"]; tally == nil || tally.False != 1 {
		t.Errorf("a reappeared finding keeps its verdict: %+v", tally)
	}
}

// Notes that name files are one kind whatever the file.
func TestNoteKindsIgnorePaths(t *testing.T) {
	m := sampleMeasurement()
	m.Lint.Notes = []diagnosis{
		{Message: "skipped /src/c/migrations/2019-01-01_a/down.sql: a down migration"},
		{Message: "skipped /src/c/migrations/2020-02-02_b/down.sql: a down migration"},
		{Message: `relation "x" does not exist`},
	}
	kinds := noteKinds(m)
	if len(kinds) != 2 || kinds[0].count != 2 || kinds[0].kind != "skipped FILE: a down migration" {
		t.Errorf("kinds: %+v", kinds)
	}
}

// TestProofsCountedBesideJudgments: --prove's verdicts are counted beside
// the hand judgments, a refuted finding is listed with its judgment and
// cause, and a verdict lint and inspect disagree on is listed.
func TestProofsCountedBesideJudgments(t *testing.T) {
	jf := writeJudgments(t,
		"index\tpublic.claims.claims_key\taccount_id, namespace\t-\thole\tno namespace still names a claim",
		"index\tpublic.tags.tags_scope_name_key\tscope_id, name\t-\thole\ta name beside an email",
	)
	m := sampleMeasurement()
	m.Lint.Findings[0].Proof = &proof{Verdict: "proven", Message: "proven: PostgreSQL 15.8 accepted both rows", Fix: "refused"}
	m.Lint.Findings[1].Proof = &proof{Verdict: "refuted", Message: "refuted: PostgreSQL 15.8 refused the second row (23505 on tags_cover)"}
	m.Inspect.Findings[0].Proof = &proof{Verdict: "not proven", Message: "not proven: CHECK x not modelled", Fix: "not run"}
	p := scoreCorpus(m, jf, comparableRules()).proofs()
	if p.Witnesses != 2 || p.Proven != 1 || p.JudgedTrue != 2 || p.TrueProven != 1 || p.FixRefused != 1 {
		t.Errorf("counts %+v", p)
	}
	if len(p.Refuted) != 1 || p.Refuted[0].Finding.Object != "public.tags.tags_scope_name_key" || p.Refuted[0].Verdict != "true" {
		t.Errorf("refuted %+v", p.Refuted)
	}
	if len(p.Differ) != 1 || !strings.Contains(p.Differ[0], "lint proven, fix refused, inspect not proven, fix not run") {
		t.Errorf("differences %q", p.Differ)
	}
	var out strings.Builder
	printProofs(&out, []*score{scoreCorpus(m, jf, comparableRules())})
	for _, want := range []string{"| c | 2 | 1 | 1 | 0 | 2 | 1 | 1 | 0 |", "judged true: refuted: PostgreSQL 15.8 refused the second row"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}
