package cmd

import (
	"strings"
	"testing"
)

// A --schema or --table pattern that matches nothing is an error naming
// the pattern and what the database has.
func TestInspectFilterMatchesNothing(t *testing.T) {
	dsn := inspectTestDB(t, inspectHoleSchema+"CREATE SCHEMA billing; CREATE TABLE billing.invoices (id int);")
	code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--schema", "publik")
	if code != ExitUsage || !strings.Contains(errOut, "--schema publik matches no schema; the database has billing, public") {
		t.Errorf("--schema publik: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--schema", "billing", "--table", "events")
	if code != ExitUsage || !strings.Contains(errOut, "--table events matches no table in the schemas audited; they hold billing.invoices") {
		t.Errorf("--table events in billing: exit %d\n%s%s", code, out, errOut)
	}
	// Each pattern must match: one good pattern does not excuse a typo.
	code, out, errOut = runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--table", "clean", "--table", "evnets")
	if code != ExitUsage || !strings.Contains(errOut, "--table evnets matches no table") {
		t.Errorf("--table clean --table evnets: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--schema", "bill*", "--table", "inv*"); code != ExitOK {
		t.Errorf("matching patterns: exit %d\n%s%s", code, out, errOut)
	}
}
