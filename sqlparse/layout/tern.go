package layout

import (
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// LayoutTern is tern's {nnn}_{name}.sql, up above the create/drop line.
const LayoutTern Layout = "tern"

// ternMarker divides a tern migration into its up and down parts.
const ternMarker = "---- create above / drop below ----"

var tern = &Def{
	Bookkeeping: []string{ternTable},
	Name:        LayoutTern,
	Tool:        "tern",
	Files:       "`{nnn}_{name}.sql`",
	UpPart:      "above `---- create above / drop below ----`",
	Order:       "number",
	Marker:      func(head []byte) bool { return indexFold(head, ternMarker) >= 0 },
	List:        listVersioned(LayoutTern),
	Up:          ternUp,
}

// ternUp keeps what lies above tern's "---- create above / drop below ----".
func ternUp(f File, text string) scan.Input {
	b := newBlanker(text)
	below := false
	for _, l := range splitLines(text) {
		if !below && strings.EqualFold(strings.TrimSpace(l.text), ternMarker) {
			below = true
		}
		if below {
			b.blank(l.start, l.end)
		}
	}
	return scan.Input{Path: f.Path, Text: string(b.buf)}
}
