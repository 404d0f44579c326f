package cmd

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The four "unique when present" shapes of issue 13 lint clean under the
// default --fail-on warning (their findings are info), and each near miss,
// with one more nullable part whose NULL rows keep an identity, is a hole
// at warning that fails the run.
func TestUniqueWhenPresentShapesExitZero(t *testing.T) {
	shapes := map[string]string{
		"scope_name":             "scope_name_nullable_tenant",
		"prisma_idempotency_key": "prisma_idempotency_key_nullable_project",
		"draft_number":           "draft_number_nullable_series",
		"one_primary":            "one_primary_nullable_url",
	}
	for shape, nearMiss := range shapes {
		r := run(t, "lint", "--format", "json", "../testdata/rules/optional-unique/"+shape+".sql")
		assertCode(t, r, ExitOK)
		if severities := findingSeverities(t, r.stdout); severities != "info optional-unique" {
			t.Errorf("%s: findings %q, want one info optional-unique", shape, severities)
		}
		r = run(t, "lint", "--format", "json", "../testdata/rules/nullable-key/"+nearMiss+".sql")
		assertCode(t, r, ExitFindings)
		if severities := findingSeverities(t, r.stdout); !strings.Contains(severities, "warning nullable-key") ||
			strings.Contains(severities, "error") {
			t.Errorf("%s: findings %q, want a nullable-key warning", nearMiss, severities)
		}
	}
}

func findingSeverities(t *testing.T, out string) string {
	t.Helper()
	var doc struct {
		Findings []struct{ Rule, Severity string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var got []string
	for _, f := range doc.Findings {
		got = append(got, f.Severity+" "+f.Rule)
	}
	return strings.Join(got, ", ")
}

// --min-severity chooses what is printed, in every format; the summary and
// the exit status still count everything.
func TestMinSeverityFlag(t *testing.T) {
	tree := "../testdata/examples/payments"
	r := run(t, "lint", "--color", "never", tree)
	assertCode(t, r, ExitFindings)
	assertContains(t, "text", r.stdout, "info optional-unique accounts.accounts_email_key (email): email may be NULL",
		"1 info (optional-unique 1) in 16 files")

	r = run(t, "lint", "--color", "never", "--min-severity", "warning", tree)
	assertCode(t, r, ExitFindings)
	if strings.Contains(r.stdout, "info optional-unique") {
		t.Errorf("--min-severity warning printed an info finding:\n%s", r.stdout)
	}
	assertContains(t, "text", r.stdout, "1 below --min-severity warning not shown")

	r = run(t, "lint", "--min-severity", "error", "--format", "json", tree)
	if got := findingSeverities(t, r.stdout); strings.Contains(got, "warning") || strings.Contains(got, "info") || got == "" {
		t.Errorf("--min-severity error, json: %s", got)
	}
	for _, format := range []string{"sarif", "github", "gitlab"} {
		all := run(t, "lint", "--format", format, tree)
		some := run(t, "lint", "--format", format, "--min-severity", "error", tree)
		if !strings.Contains(all.stdout, "accounts_email_key") || strings.Contains(some.stdout, "accounts_email_key") ||
			!strings.Contains(some.stdout, "charge_claims") {
			t.Errorf("--format %s: --min-severity error did not leave out exactly the lower findings", format)
		}
	}
	r = run(t, "lint", "--min-severity", "notice", tree)
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, `unknown --min-severity "notice" (want error, warning, info)`)
}

// The two rule docs tell a hole from unique when present with an example of
// each, say that the partial form is silent, and optional-unique shows the
// name lists the reasoning falls back on.
func TestRulesDocsTellHoleFromUniqueWhenPresent(t *testing.T) {
	for _, id := range []string{"nullable-key", "optional-unique"} {
		r := run(t, "rules", id)
		assertCode(t, r, ExitOK)
		assertContains(t, id, r.stdout, "UNIQUE (account_id, kind, address, namespace)", "UNIQUE (scope_id, name)",
			"WHERE", "IS NOT NULL", "explicit")
	}
	r := run(t, "rules", "optional-unique")
	assertContains(t, "optional-unique", r.stdout, "audit/names.go",
		"idempot, dedup, duplicat, claim, guard", "kind, type, category, status", "tagger, author",
		"deleted_at, discarded_at")
}

// The seed's charge claim stays an error; its first fix keeps NULL
// meaningful: NULLS NOT DISTINCT at the default --pg-version, the partial
// split with --pg-version 14, and NOT NULL last in both.
func TestChargeClaimFirstFixByVersion(t *testing.T) {
	for version, want := range map[string]string{
		"":   "rebuild charge_claims_unique_claim NULLS NOT DISTINCT (PostgreSQL 15 and later)",
		"14": "add a partial unique index for rows where namespace is NULL",
	} {
		args := []string{"lint", "--format", "json", "--rule", "nullable-key"}
		if version != "" {
			args = append(args, "--pg-version", version)
		}
		r := run(t, append(args, "../testdata/examples/payments")...)
		var doc struct {
			Findings []struct {
				Severity, Object string
				Fixes            []struct{ Title string }
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range doc.Findings {
			if f.Object != "public.charge_claims.charge_claims_unique_claim" {
				continue
			}
			found = true
			last := f.Fixes[len(f.Fixes)-1].Title
			if f.Severity != "error" || f.Fixes[0].Title != want || last != "make namespace NOT NULL" {
				t.Errorf("--pg-version %q: %s, fixes %v; want error, %q first and NOT NULL last", version, f.Severity, f.Fixes, want)
			}
		}
		if !found {
			t.Errorf("--pg-version %q: the charge claim is not reported", version)
		}
	}
}

// An optional-unique finding offers no fix that adds uniqueness, so
// --fix-sql writes nothing for it.
func TestFixSQLWritesNothingForOptionalUnique(t *testing.T) {
	out := t.TempDir() + "/fixes.sql"
	r := run(t, "lint", "--fix-sql", out, "../testdata/rules/optional-unique/prisma_idempotency_key.sql")
	assertCode(t, r, ExitOK)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "-- Nothing to fix.") || strings.Contains(string(data), "CREATE") {
		t.Errorf("--fix-sql for an optional-unique finding:\n%s", data)
	}
}
