package layout

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// LayoutMultiDialect is {version}_{name}.postgres.up.sql beside other
// databases' files.
const LayoutMultiDialect Layout = "multi-dialect"

// dialectUp matches an up or down file named for one database.
var dialectUp = regexp.MustCompile(`\.(postgres|postgresql|pg|mysql|sqlite|sqlite3|cockroach|cockroachdb|mssql|sqlserver|clickhouse)\.(?:autocommit\.)?(?:up|down)\.sql$`)

var multiDialect = &Def{
	Name:   LayoutMultiDialect,
	Files:  "`{version}_{name}.postgres.up.sql` beside `.mysql.`, `.sqlite3.` ...",
	UpPart: "the postgres file, else the dialect-free one",
	Order:  "version",
	List: func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		return listMultiDialect(t.display, t.sc.sqlFiles)
	},
}

// multiDialectName is {version}_{name}[.dialect][.autocommit].up.sql.
var multiDialectName = regexp.MustCompile(`(?i)^(.*?)(?:\.(postgres|postgresql|pg|mysql|sqlite|sqlite3|cockroach|cockroachdb|mssql|sqlserver|clickhouse))?(?:\.autocommit)?\.(up|down)\.sql$`)

// listMultiDialect takes, per version, the postgres file when there is one
// and otherwise the dialect-free one.
func listMultiDialect(display string, names []string) ([]File, []SkippedFile, []scan.Diagnostic) {
	type choice struct {
		file     File
		postgres bool
	}
	chosen := map[string]*choice{}
	var order []string
	var diags []scan.Diagnostic
	var skipped []SkippedFile
	for _, n := range names {
		m := multiDialectName.FindStringSubmatch(n)
		if m == nil {
			skipped = append(skipped, skip(display, n, "not named {version}_{name}[.postgres].up.sql"))
			continue
		}
		if strings.EqualFold(m[3], "down") {
			skipped = append(skipped, skip(display, n, "a down migration"))
			continue
		}
		dialect := strings.ToLower(m[2])
		isPostgres := dialect == "postgres" || dialect == "postgresql" || dialect == "pg"
		if dialect != "" && !isPostgres {
			skipped = append(skipped, skip(display, n, "a "+dialect+" migration"))
			continue
		}
		f := newFile(display, n, LayoutMultiDialect)
		f.Version, f.Name = splitVersion(m[1] + ".x")
		if f.Version == "" {
			skipped = append(skipped, skip(display, n, "no version number in its name"))
			continue
		}
		key := normalizeDigits(f.Version)
		prev := chosen[key]
		switch {
		case prev == nil:
			chosen[key] = &choice{f, isPostgres}
			order = append(order, key)
		case prev.postgres == isPostgres:
			diags = append(diags, scan.Diagnostic{Level: scan.Error, Message: fmt.Sprintf(
				"duplicate migration version %s: %s and %s both claim it; %s is not used, rename one of them",
				f.Version, prev.file.Path, f.Path, f.Path)})
		case isPostgres:
			skipped = append(skipped, SkippedFile{Path: prev.file.Path, Reason: fmt.Sprintf(
				"version %s has a postgres file, %s", f.Version, filepath.Base(f.Path))})
			chosen[key] = &choice{f, true}
		default:
			skipped = append(skipped, skip(display, n, fmt.Sprintf(
				"version %s has a postgres file, %s", f.Version, filepath.Base(prev.file.Path))))
		}
	}
	files := make([]File, 0, len(order))
	for _, k := range order {
		files = append(files, chosen[k].file)
	}
	files, more := sortFiles(files, compareNumericVersion)
	sortSkipped(skipped)
	return files, skipped, append(diags, more...)
}
