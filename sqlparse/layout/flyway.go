package layout

import (
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// LayoutFlyway is Flyway's V{version}__{desc}.sql and R__{desc}.sql.
const LayoutFlyway Layout = "flyway"

var (
	flywayVersioned = regexp.MustCompile(`^[Vv]([0-9]+(?:[._][0-9]+)*)__(.*)\.sql$`)
	flywayRepeat    = regexp.MustCompile(`^R__(.*)\.sql$`)
	flywayUndo      = regexp.MustCompile(`^U([0-9]+(?:[._][0-9]+)*)__(.*)\.sql$`)
)

var flyway = &Def{
	Bookkeeping: []string{flywayTable},
	Name:        LayoutFlyway,
	Tool:        "Flyway",
	Files:       "`V{version}__{desc}.sql`, `R__{desc}.sql` (undo skipped)",
	UpPart:      "whole file",
	Order:       "versions part by part, repeatables last",
	List: func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		files, skipped := listFlyway(t.display, t.sc.sqlFiles)
		files, diags := sortFiles(files, compareFlyway)
		return files, skipped, diags
	},
	Fix: &FixStyle{
		// A script that must not run in a transaction gets a .conf
		// beside it saying so.
		Files: func(version, title, body string, noTx bool) []FixFile {
			name := "V" + version + "__" + title + ".sql"
			files := []FixFile{{Name: name, Content: body}}
			if noTx {
				files = append(files, FixFile{Name: name + ".conf", Content: "executeInTransaction=false\n"})
			}
			return files
		},
		VersionWidth: 1,
	},

	// The tool drops a leading UTF-8 byte order mark.
	DropsBOM: true,
}

// isFlywayName reports the names Flyway reads: versioned, repeatable and
// undo migrations.
func isFlywayName(n string) bool {
	return flywayVersioned.MatchString(n) || flywayRepeat.MatchString(n) || flywayUndo.MatchString(n)
}

// listFlyway keeps V{version}__{desc}.sql and R__{desc}.sql.
func listFlyway(display string, names []string) ([]File, []SkippedFile) {
	var files []File
	var skipped []SkippedFile
	for _, n := range names {
		if m := flywayVersioned.FindStringSubmatch(n); m != nil {
			f := newFile(display, n, LayoutFlyway)
			f.Version, f.Name = m[1], m[2]
			files = append(files, f)
		} else if m := flywayRepeat.FindStringSubmatch(n); m != nil {
			f := newFile(display, n, LayoutFlyway)
			f.Name = m[1]
			files = append(files, f)
		} else if flywayUndo.MatchString(n) {
			skipped = append(skipped, skip(display, n, "an undo migration"))
		} else {
			skipped = append(skipped, skip(display, n, "not named V{version}__{desc}.sql or R__{desc}.sql, so Flyway does not apply it as a migration"))
		}
	}
	return files, skipped
}

// compareFlyway is Flyway's order: versioned migrations by version, part by
// part (1.9 before 1.10, 1.0 equal to 1), then repeatable ones by
// description.
func compareFlyway(a, b File) int {
	switch {
	case a.Version == "" && b.Version == "":
		return strings.Compare(a.Name, b.Name)
	case a.Version == "":
		return 1
	case b.Version == "":
		return -1
	}
	return compareDotted(a.Version, b.Version)
}
