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
// CHECK; then one planted case of each later rule (migrations 000008 and
// on), where the transfers migration that drops NOT NULL also leaves the
// index with a hole that nullable-key reports.
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
	if len(doc.Inputs) != 1 || doc.Inputs[0].Layout != "golang-migrate" || doc.Inputs[0].Files != 16 {
		t.Errorf("inputs = %+v, want one golang-migrate tree of 16 up files", doc.Inputs)
	}
	if len(doc.Errors) != 0 {
		t.Errorf("input errors: %s", doc.Errors)
	}

	var got []string
	for _, f := range doc.Findings {
		got = append(got, f.Severity+" "+f.Rule+" "+f.Object+" "+strings.Join(f.Columns, ","))
		if f.Rule == "nullable-key" && len(f.Fixes) < 3 {
			t.Errorf("%s: %d fixes, want NULLS NOT DISTINCT, the partial split and NOT NULL", f.Object, len(f.Fixes))
		}
	}
	sort.Strings(got)
	want := []string{
		"error not-null-dropped public.transfers.transfers_account_destination_ref_key destination",
		"error nullable-key public.charge_claims.charge_claims_unique_claim namespace",
		"error nullable-key public.usage_events.index_unique_transaction_id external_subscription_id",
		"error on-conflict-hole public.feature_flags.feature_flags_name_account_key account_id",
		"info optional-unique public.accounts.accounts_email_key email",
		"warning deferrable-unique public.ledger_entries.ledger_entries_account_entry_key ",
		"warning idempotency-table-shape public.idempotency_keys ",
		"warning key-without-unique public.refund_requests.request_id request_id",
		"warning nullable-key public.transfers.transfers_account_destination_ref_key destination",
		"warning partition-local-unique public.webhook_deliveries_2026_01.webhook_deliveries_2026_01_ref_key delivery_ref,delivered_on",
		"warning unique-dropped public.payouts.payouts_account_ref_currency_key account_id,payout_ref,currency",
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

// TestExamplesPaymentsOlderServer: the tree's NULLS NOT DISTINCT constraint
// is the planted nnd-unsupported case, reported only for a server older
// than 15.
func TestExamplesPaymentsOlderServer(t *testing.T) {
	r := run(t, "lint", "--pg-version", "14", "--rule", "nnd-unsupported", "../testdata/examples/payments")
	assertCode(t, r, ExitFindings)
	want := "000015_create_api_tokens.up.sql:9:5: error nnd-unsupported"
	if !strings.Contains(r.stdout, want) || strings.Count(r.stdout, "nnd-unsupported") != 1 {
		t.Errorf("want one finding %q, got:\n%s", want, r.stdout)
	}
	if r := run(t, "lint", "--rule", "nnd-unsupported", "../testdata/examples/payments"); r.code != ExitOK || strings.Contains(r.stdout, "nnd-unsupported") {
		t.Errorf("PostgreSQL 16 knows NULLS NOT DISTINCT, yet:\n%s", r.stdout)
	}
}
