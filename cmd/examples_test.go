package cmd

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
)

// TestExamplesPayments lints the shipped example tree and checks that it
// reports exactly the holes planted there: the charge claim and the usage
// events dedupe key, plus the optional email as info, and nothing for the
// partial split, the exclusive arc or the NOT NULL proven by a validated
// CHECK.
func TestExamplesPayments(t *testing.T) {
	r := run(t, "lint", "--format", "json", "../testdata/examples/payments")
	assertCode(t, r, ExitFindings)

	var doc struct {
		Inputs []struct {
			Layout string `json:"layout"`
			Files  int    `json:"file_count"`
		} `json:"inputs"`
		Findings []struct {
			Rule     string   `json:"rule"`
			Severity string   `json:"severity"`
			Object   string   `json:"object"`
			Columns  []string `json:"columns"`
			Message  string   `json:"message"`
			Fixes    []struct {
				SQL string `json:"sql"`
			} `json:"fixes"`
		} `json:"findings"`
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	if len(doc.Inputs) != 1 || doc.Inputs[0].Layout != "golang-migrate" || doc.Inputs[0].Files != 7 {
		t.Errorf("inputs = %+v, want one golang-migrate tree of 7 up files", doc.Inputs)
	}
	if len(doc.Errors) != 0 {
		t.Errorf("input errors: %s", doc.Errors)
	}

	var got []string
	for _, f := range doc.Findings {
		got = append(got, f.Severity+" "+f.Rule+" "+f.Object+" "+strings.Join(f.Columns, ","))
		if f.Rule == "nullable-key" && len(f.Fixes) < 3 {
			t.Errorf("%s: %d fixes, want NOT NULL, NULLS NOT DISTINCT and the partial split", f.Object, len(f.Fixes))
		}
	}
	sort.Strings(got)
	want := []string{
		"error nullable-key public.charge_claims.charge_claims_unique_claim namespace",
		"error nullable-key public.usage_events.index_unique_transaction_id external_subscription_id",
		"info optional-unique public.accounts.accounts_email_key email",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range doc.Findings {
		if f.Object == "public.usage_events.index_unique_transaction_id" &&
			!strings.Contains(f.Message, "two usage_events with the same organization_id and transaction_id and no external_subscription_id are both accepted") {
			t.Errorf("usage_events message not in the table's own words: %s", f.Message)
		}
	}
}
