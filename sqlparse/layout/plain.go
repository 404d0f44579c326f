package layout

import "github.com/idemcheck/idemcheck/sqlparse/scan"

// LayoutPlain is any directory of .sql files, in natural name order.
const LayoutPlain Layout = "plain"

var plain = &Def{
	Name:   LayoutPlain,
	Files:  "any `.sql` not named down/undo/rollback",
	UpPart: "all",
	Order:  "natural sort (`2_x` before `10_x`)",
	List:   listWhole(LayoutPlain),

	// psql drops a leading UTF-8 byte order mark.
	DropsBOM: true,
}

// listWhole lists every .sql file that is not a down file, read whole, in
// natural name order (dump and plain).
func listWhole(layout Layout) func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
	return func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		files, skipped := listNamedFiles(t.display, layout, t.sc.sqlFiles)
		for i := range files {
			files[i].Version = ""
		}
		files, diags := sortFiles(files, func(a, b File) int { return naturalCompare(a.Path, b.Path) })
		return files, skipped, diags
	}
}
