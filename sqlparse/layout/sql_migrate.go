package layout

import (
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// LayoutSQLMigrate is sql-migrate's {name}.sql with -- +migrate Up/Down.
const LayoutSQLMigrate Layout = "sql-migrate"

var sqlMigrate = &Def{
	Bookkeeping: []string{sqlMigrateTable},
	Name:        LayoutSQLMigrate,
	Tool:        "sql-migrate",
	Files:       "`{name}.sql`",
	UpPart:      "`-- +migrate Up` .. `Down`, StatementBegin/End",
	Order:       "name",
	Marker:      markerLine("-- +migrate up"),
	List: func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		files, skipped := listNamedFiles(t.display, LayoutSQLMigrate, t.sc.sqlFiles)
		files, diags := sortFiles(files, compareSQLMigrate)
		return files, skipped, diags
	},
	Up: func(f File, text string) scan.Input {
		return annotatedUp(f, text, "+migrate")
	},
	Fix: markedFix(".sql", "-- +migrate Up\n", "-- +migrate Up notransaction\n", "\n-- +migrate Down\n"+FixNoDown),
}

// compareSQLMigrate is sql-migrate's order: names with a numeric prefix
// first, by that number, then by name.
func compareSQLMigrate(a, b File) int {
	an, bn := LeadingDigits(a.Version), LeadingDigits(b.Version)
	switch {
	case an != "" && bn != "":
		if c := compareDigitStrings(normalizeDigits(an), normalizeDigits(bn)); c != 0 {
			return c
		}
	case an != "":
		return -1
	case bn != "":
		return 1
	}
	return strings.Compare(a.Version, b.Version)
}
