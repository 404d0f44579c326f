package audit_test

import (
	"slices"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
)

// The notes inspect --data prints under a finding, one per key part.
func TestDataNotes(t *testing.T) {
	d := &audit.DataCounts{Parts: []audit.PartCounts{
		{Part: "a", Rows: 0},
		{Part: "b", Rows: 40},
		{Part: "c", NullRows: 1, Rows: 40},
		{Part: "d", NullRows: 5, CollidingGroups: 2, Rows: 40},
		{Part: "e", NullRowsSkipped: "timed out", CollidingGroupsSkipped: "timed out", RowsSkipped: "timed out"},
		{Part: "f", RowsSkipped: "timed out", CollidingGroups: 1},
	}}
	want := []string{
		"data: a: the index covers no row yet",
		"data: b: no row of the 40 the index covers holds NULL",
		"data: c: 1 row holds NULL; no rows collide yet",
		"data: d: 5 rows hold NULL; 2 groups of rows already collide if NULLs were equal: the hole was used, and a NULLS NOT DISTINCT or split index fails to build until they are resolved",
		"data: e: NULL count skipped (timed out); collision count skipped (timed out)",
		"data: f: no row holds NULL; 1 group of rows already collides if NULLs were equal: the hole was used, and a NULLS NOT DISTINCT or split index fails to build until they are resolved",
	}
	if got := audit.DataNotes(d); !slices.Equal(got, want) {
		t.Errorf("notes:\n%q\nwant\n%q", got, want)
	}
	f := audit.Finding{Rule: "optional-unique", Notes: []string{"first"}}
	audit.AddData(&f, &audit.DataCounts{Parts: []audit.PartCounts{{Part: "email", NullRows: 3, Rows: 10}}})
	if f.Data == nil || !slices.Equal(f.Notes, []string{"first", "data: email: 3 rows hold NULL; no rows collide yet"}) {
		t.Errorf("AddData: data %v, notes %q", f.Data, f.Notes)
	}
	if f.Message != "; live, 3 of 10 rows hold NULL in email" {
		t.Errorf("AddData did not let the counts speak (UseData): message %q", f.Message)
	}
}
