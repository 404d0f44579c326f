package layout

import (
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// LayoutPrisma is Prisma Migrate's migrations/{timestamp}_{name}/migration.sql.
const LayoutPrisma Layout = "prisma"

var prisma = &Def{
	Bookkeeping: []string{prismaTable},
	Name:        LayoutPrisma,
	Tool:        "Prisma",
	Files:       "`migrations/{timestamp}_{name}/migration.sql`",
	UpPart:      "whole file",
	Order:       "folder name (two folders with one timestamp are both applied)",
	Signature:   func(dir string, sc dirScan) bool { return sc.others["migration_lock.toml"] },
	FolderFile:  "migration.sql",
	List: func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		// Prisma applies every folder in the order of the folder names,
		// two folders with one timestamp included.
		files, skipped, unread := listVersionDirs(t, LayoutPrisma, "migration.sql", "")
		files, diags := sortFiles(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
		return files, skipped, append(unread, diags...)
	},
}
