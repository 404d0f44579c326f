package fixes_test

import (
	"testing"

	"github.com/idemcheck/idemcheck/audit/internal/fixes"
	"github.com/idemcheck/idemcheck/catalog"
)

func TestDuplicateRows(t *testing.T) {
	ix := &catalog.Index{Name: "k", Unique: true, Method: "btree",
		Parts:     []catalog.IndexPart{{Column: "org"}, {Column: "ref"}},
		Predicate: &catalog.Compare{Op: "=", Left: &catalog.ColumnRef{Name: "org"}, Right: &catalog.Const{Value: "1"}}}
	tb := &catalog.Table{Schema: "billing", Name: "payments"}
	got := fixes.DuplicateRows(tb, ix)
	want := "SELECT org, ref, count(*) FROM billing.payments WHERE (org = 1) AND org IS NOT NULL AND ref IS NOT NULL GROUP BY org, ref HAVING count(*) > 1;"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// NULLS NOT DISTINCT makes rows with NULL key parts collide: none are
	// left out.
	ix.NullsNotDistinct, ix.Predicate = true, nil
	got = fixes.DuplicateRows(tb, ix)
	want = "SELECT org, ref, count(*) FROM billing.payments GROUP BY org, ref HAVING count(*) > 1;"
	if got != want {
		t.Errorf("NULLS NOT DISTINCT: got  %s\nwant %s", got, want)
	}
}
