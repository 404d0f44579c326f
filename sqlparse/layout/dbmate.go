package layout

import (
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// LayoutDbmate is dbmate's {version}_{name}.sql with -- migrate:up/down.
const LayoutDbmate Layout = "dbmate"

var dbmate = &Def{
	Bookkeeping: []string{dbmateTable},
	Name:        LayoutDbmate,
	Tool:        "dbmate",
	Files:       "`{version}_{name}.sql`",
	UpPart:      "`-- migrate:up` .. `-- migrate:down`",
	Order:       "version",
	Marker:      markerLine("-- migrate:up"),
	List:        listVersioned(LayoutDbmate),
	Up:          dbmateUp,
	Fix: func() *FixStyle {
		s := markedFix(".sql", "-- migrate:up\n", "-- migrate:up transaction:false\n", "\n-- migrate:down\n"+FixNoDown)
		s.Timestamps = true
		return s
	}(),
}

// dbmateUp keeps what lies between "-- migrate:up" and "-- migrate:down".
func dbmateUp(f File, text string) scan.Input {
	in := scan.Input{Path: f.Path}
	b := newBlanker(text)
	section := "before"
	for _, l := range splitLines(text) {
		t := strings.ToLower(strings.TrimSpace(l.text))
		switch {
		case strings.HasPrefix(t, "-- migrate:up"):
			section = "up"
			if strings.Contains(t, "transaction:false") {
				in.NoTransaction = true
			}
		case strings.HasPrefix(t, "-- migrate:down"):
			section = "down"
			b.blank(l.start, l.end)
		case section != "up":
			b.blank(l.start, l.end)
		}
	}
	in.Text = string(b.buf)
	return in
}
