package audit

import (
	"fmt"
	"strings"
)

// AddData puts the live data counts of f (inspect --data) on it: the counts
// themselves, one note per key part saying what they mean, and what they
// change (UseData).
func AddData(f *Finding, d *DataCounts) {
	f.Data = d
	f.Notes = append(f.Notes, DataNotes(d)...)
	UseData(f)
}

// DataNotes says what the counts mean, one note per key part: how many rows
// hold NULL there, and whether rows already collide.
func DataNotes(d *DataCounts) []string {
	var notes []string
	for _, p := range d.Parts {
		var b strings.Builder
		fmt.Fprintf(&b, "data: %s: ", p.Part)
		switch {
		case p.NullRowsSkipped != "":
			fmt.Fprintf(&b, "NULL count skipped (%s)", p.NullRowsSkipped)
		case p.NullRows == 0 && p.RowsSkipped == "" && p.Rows == 0:
			b.WriteString("the index covers no row yet")
		case p.NullRows == 0 && p.RowsSkipped == "":
			fmt.Fprintf(&b, "no row of the %d the index covers holds NULL", p.Rows)
		case p.NullRows == 0:
			b.WriteString("no row holds NULL")
		default:
			fmt.Fprintf(&b, "%s NULL", countWords(p.NullRows, "row holds", "rows hold"))
		}
		switch {
		case p.CollidingGroupsSkipped != "":
			fmt.Fprintf(&b, "; collision count skipped (%s)", p.CollidingGroupsSkipped)
		case p.CollidingGroups > 0:
			fmt.Fprintf(&b, "; %s if NULLs were equal: the hole was used, and a NULLS NOT DISTINCT or split index fails to build until they are resolved",
				countWords(p.CollidingGroups, "group of rows already collides", "groups of rows already collide"))
		case p.NullRows > 0:
			b.WriteString("; no rows collide yet")
		}
		notes = append(notes, b.String())
	}
	return notes
}

func countWords(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
