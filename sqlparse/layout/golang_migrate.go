package layout

import (
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// LayoutGolangMigrate is golang-migrate's {version}_{title}.up.sql.
const LayoutGolangMigrate Layout = "golang-migrate"

var golangMigrate = &Def{
	Bookkeeping: []string{golangMigrateTable, sqlxTable},
	Name:        LayoutGolangMigrate,
	Tool:        "golang-migrate",
	Files:       "`{version}_{title}.up.sql`",
	UpPart:      "whole file",
	Order:       "numeric version",
	List: func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		files, skipped := listUpFiles(t.display, LayoutGolangMigrate, t.sc.sqlFiles)
		files, diags := sortFiles(files, compareNumericVersion)
		return files, skipped, diags
	},
	Fix: &FixStyle{
		Files: func(version, title, body string, noTx bool) []FixFile {
			return []FixFile{
				{Name: version + "_" + title + ".up.sql", Content: body},
				{Name: version + "_" + title + ".down.sql", Content: FixNoDown},
			}
		},
		OnePerStatement: true,
		VersionWidth:    6,
	},
}

// isUpDownName reports golang-migrate's .up.sql and .down.sql names.
func isUpDownName(lower string) bool {
	return strings.HasSuffix(lower, ".up.sql") || strings.HasSuffix(lower, ".down.sql")
}

// listUpFiles keeps {version}_{title}.up.sql.
func listUpFiles(display string, layout Layout, names []string) ([]File, []SkippedFile) {
	var files []File
	var skipped []SkippedFile
	for _, n := range names {
		lower := strings.ToLower(n)
		switch {
		case strings.HasSuffix(lower, ".up.sql"):
			f := newFile(display, n, layout)
			f.Version, f.Name = splitVersion(n[:len(n)-len(".up.sql")] + ".x")
			files = append(files, f)
		case downKind(n) != "":
			skipped = append(skipped, skip(display, n, downKind(n)))
		default:
			skipped = append(skipped, skip(display, n, "not named {version}_{title}.up.sql, so golang-migrate does not apply it"))
		}
	}
	return files, skipped
}
