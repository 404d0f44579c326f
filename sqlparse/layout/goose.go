package layout

import "github.com/idemcheck/idemcheck/sqlparse/scan"

// LayoutGoose is goose's {version}_{name}.sql with -- +goose Up/Down.
const LayoutGoose Layout = "goose"

var goose = &Def{
	Bookkeeping: []string{gooseTable},
	Name:        LayoutGoose,
	Tool:        "goose",
	Files:       "`{version}_{name}.sql`",
	UpPart:      "`-- +goose Up` .. `Down`, StatementBegin/End",
	Order:       "numeric version",
	Marker:      markerLine("-- +goose up"),
	List:        listVersioned(LayoutGoose),
	Up: func(f File, text string) scan.Input {
		return annotatedUp(f, text, "+goose")
	},
	Fix: markedFix(".sql", "-- +goose Up\n", "-- +goose NO TRANSACTION\n-- +goose Up\n", "\n-- +goose Down\n"+FixNoDown),
}
