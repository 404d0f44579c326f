package audit

import (
	"fmt"

	"github.com/idemcheck/idemcheck/audit/internal/fixes"
	"github.com/idemcheck/idemcheck/audit/internal/prose"
)

// minRowsForNotNull is the evidence docs/rules.md asks before NOT NULL is put
// first or suggested: live, with data checks on, no row holds NULL in a
// table of at least this many rows (the data check's exact count). Fewer
// rows say little about what the application writes.
const minRowsForNotNull = 1000

// UseData lets the live data counts on f (inspect --data) speak. For a
// hole, NOT NULL moves to the first fix when no row holds NULL in the key
// parts of a table of at least 1,000 rows, and its caveat says why. For a
// unique-when-present index, the message says how many rows hold NULL, and
// suggests NOT NULL on the same evidence.
func UseData(f *Finding) {
	d := f.Data
	if d == nil || len(d.Parts) == 0 {
		return
	}
	rows, counted := d.Parts[0].Rows, d.Parts[0].RowsSkipped == ""
	nulls := int64(0)
	for _, p := range d.Parts {
		if p.NullRowsSkipped != "" {
			counted = false
		}
		nulls += p.NullRows
	}
	if !counted {
		return
	}
	parts := make([]string, len(d.Parts))
	for i, p := range d.Parts {
		parts[i] = p.Part
	}
	evidence := nulls == 0 && rows >= minRowsForNotNull
	switch f.Rule {
	case NullableKey.ID:
		colliding, collided := int64(0), true
		for _, p := range d.Parts {
			colliding += p.CollidingGroups
			if p.CollidingGroupsSkipped != "" {
				collided = false
			}
		}
		switch {
		case collided && colliding > 0:
			// The hole was used: duplicates are in the table now.
			f.Message += fmt.Sprintf("; live, %s: the hole was used", countWords(colliding,
				"group of rows already collides", "groups of rows already collide"))
			f.Severity, f.severitySet = Error, true
		case nulls == 0 && fixes.HasNotNull(f.Fixes):
			f.Message += fmt.Sprintf("; live, no row of %d holds NULL in %s: NOT NULL is safe now", rows, prose.List(parts, "or"))
		case nulls == 0:
			f.Message += fmt.Sprintf("; live, no row of %d holds NULL in %s", rows, prose.List(parts, "or"))
		}
		if evidence {
			f.Fixes = fixes.NotNullFirst(f.Fixes, fmt.Sprintf("Offered first on the data check's evidence: no row of the %d the index covers "+
				"holds NULL in %s, so nothing relies on NULL there today.", rows, prose.List(parts, "or")))
		}
	case OptionalUnique.ID:
		switch {
		case evidence:
			f.Message += fmt.Sprintf("; live, no row of %d holds NULL in %s: if every row must have one, make it NOT NULL",
				rows, prose.List(parts, "or"))
		case nulls == 0:
			f.Message += fmt.Sprintf("; live, no row of %d holds NULL in %s", rows, prose.List(parts, "or"))
		default:
			f.Message += fmt.Sprintf("; live, %d of %d rows hold NULL in %s", nulls, rows, prose.List(parts, "or"))
		}
	}
}
