package layout

import "github.com/idemcheck/idemcheck/sqlparse/scan"

// LayoutDirs is {version}_{name}/up.sql (diesel, sqlx, refinery).
const LayoutDirs Layout = "dirs"

var dirs = &Def{
	Bookkeeping: []string{dieselTable, sqlxTable, refineryTable},
	Name:        LayoutDirs,
	Tool:        "diesel/sqlx/refinery",
	Files:       "`{version}_{name}/up.sql` (diesel, sqlx, refinery)",
	UpPart:      "`up.sql`",
	Order:       "version",
	FolderFile:  "up.sql",
	List: func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		files, skipped, unread := listVersionDirs(t, LayoutDirs, "up.sql", "down.sql")
		files, diags := sortFiles(files, compareNumericVersion)
		return files, skipped, append(unread, diags...)
	},
}
