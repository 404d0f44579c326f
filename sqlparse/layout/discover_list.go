package layout

import (
	"github.com/idemcheck/idemcheck/sqlparse/scan"

	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// listTree chooses and orders the files of one tree the way its tool does.
func listTree(dir, display string, layout Layout, sc dirScan) (Tree, []scan.Diagnostic) {
	tree := Tree{Root: display, Layout: layout}
	var files []File
	var diags []scan.Diagnostic
	switch layout {
	case LayoutGolangMigrate:
		files, tree.Skipped = listUpFiles(display, layout, sc.sqlFiles)
		files, diags = sortFiles(files, compareNumericVersion)
	case LayoutGoose, LayoutDbmate, LayoutTern:
		files, tree.Skipped = listVersionedFiles(display, layout, sc.sqlFiles)
		files, diags = sortFiles(files, compareNumericVersion)
	case LayoutSQLMigrate:
		files, tree.Skipped = listNamedFiles(display, layout, sc.sqlFiles)
		files, diags = sortFiles(files, compareSQLMigrate)
	case LayoutFlyway:
		files, tree.Skipped = listFlyway(display, sc.sqlFiles)
		files, diags = sortFiles(files, compareFlyway)
	case LayoutLiquibase:
		files, tree.Skipped = listNamedFiles(display, layout, sc.sqlFiles)
		files, diags = sortFiles(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	case LayoutDirs:
		files, tree.Skipped = listVersionDirs(dir, display, layout, sc, "up.sql", "down.sql")
		files, diags = sortFiles(files, compareNumericVersion)
	case LayoutPrisma:
		// Prisma applies every folder in the order of the folder names,
		// two folders with one timestamp included.
		files, tree.Skipped = listVersionDirs(dir, display, layout, sc, "migration.sql", "")
		files, diags = sortFiles(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	case LayoutSqitch:
		files, tree.Skipped, diags = listSqitch(dir, display)
	case LayoutTemporal:
		files, tree.Skipped, diags = listTemporal(dir, display, sc)
	case LayoutMultiDialect:
		files, tree.Skipped, diags = listMultiDialect(display, sc.sqlFiles)
	case LayoutDump, LayoutPlain:
		files, tree.Skipped = listNamedFiles(display, layout, sc.sqlFiles)
		for i := range files {
			files[i].Version = ""
		}
		files, diags = sortFiles(files, func(a, b File) int { return naturalCompare(a.Path, b.Path) })
	}
	tree.Files = files
	return tree, diags
}

func newFile(display, name string, layout Layout) File {
	p := filepath.Join(display, name)
	return File{Path: p, Layout: layout, disk: p}
}

func skip(display, name, reason string) SkippedFile {
	return SkippedFile{Path: filepath.Join(display, name), Reason: reason}
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

// listVersionedFiles keeps {version}_{name}.sql (goose, dbmate, tern).
func listVersionedFiles(display string, layout Layout, names []string) ([]File, []SkippedFile) {
	var files []File
	var skipped []SkippedFile
	for _, n := range names {
		if kind := downKind(n); kind != "" {
			skipped = append(skipped, skip(display, n, kind))
			continue
		}
		v, name := splitVersion(n)
		if v == "" {
			skipped = append(skipped, skip(display, n, fmt.Sprintf("no version number in its name, so %s does not apply it", layout)))
			continue
		}
		f := newFile(display, n, layout)
		f.Version, f.Name = v, name
		files = append(files, f)
	}
	return files, skipped
}

// listNamedFiles keeps every .sql that is not a down file; the version is
// the name (sql-migrate orders by it).
func listNamedFiles(display string, layout Layout, names []string) ([]File, []SkippedFile) {
	var files []File
	var skipped []SkippedFile
	for _, n := range names {
		if kind := downKind(n); kind != "" {
			skipped = append(skipped, skip(display, n, kind))
			continue
		}
		f := newFile(display, n, layout)
		f.Version = strings.TrimSuffix(n, filepath.Ext(n))
		f.Name = f.Version
		files = append(files, f)
	}
	return files, skipped
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

// listVersionDirs keeps {version}_{name}/{up}. The down scripts beside
// them, and .sql files outside the version folders, are skipped.
func listVersionDirs(dir, display string, layout Layout, sc dirScan, up, down string) ([]File, []SkippedFile) {
	var files []File
	var skipped []SkippedFile
	for _, n := range sc.sqlFiles {
		skipped = append(skipped, skip(display, n, fmt.Sprintf("not in a {version}_{name} folder, so %s does not apply it", layout)))
	}
	for _, sub := range sc.subdirs {
		v, name := splitVersionDir(sub)
		if v == "" {
			continue
		}
		if down != "" && fileExists(filepath.Join(dir, sub, down)) {
			skipped = append(skipped, skip(display, filepath.Join(sub, down), "a down migration"))
		}
		if !fileExists(filepath.Join(dir, sub, up)) {
			continue
		}
		f := newFile(display, filepath.Join(sub, up), layout)
		f.Version, f.Name = v, name
		files = append(files, f)
	}
	return files, skipped
}

// splitVersionDir is splitVersion for directory names, which have no
// extension to drop ("2019-02-26-002946_create.users" keeps its dot).
func splitVersionDir(name string) (string, string) {
	v, _ := splitVersion(name + ".dir")
	if v == "" {
		return "", name
	}
	return v, strings.TrimLeft(name[len(v):], "_-.")
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

// sortSkipped orders skipped files by path, so that notes come in the
// order of a directory listing.
func sortSkipped(skipped []SkippedFile) {
	slices.SortStableFunc(skipped, func(a, b SkippedFile) int { return strings.Compare(a.Path, b.Path) })
}

// listSqitch reads sqitch.plan and takes deploy/{change}.sql in plan order.
// A reworked change (named again after a tag) was deployed from
// deploy/{change}@{tag}.sql before the rework.
func listSqitch(dir, display string) ([]File, []SkippedFile, []scan.Diagnostic) {
	planPath := filepath.Join(dir, "sqitch.plan")
	data, err := readSQLFile(planPath)
	if err != nil {
		return nil, nil, []scan.Diagnostic{pathError(filepath.Join(display, "sqitch.plan"), err)}
	}
	type change struct {
		name string
		line int
		tag  string // the first tag after this change, for reworks
	}
	var changes []*change
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "%") {
			continue
		}
		fields := strings.Fields(line)
		if strings.HasPrefix(line, "@") {
			tag := strings.TrimPrefix(fields[0], "@")
			for i := len(changes) - 1; i >= 0 && changes[i].tag == ""; i-- {
				changes[i].tag = tag
			}
			continue
		}
		changes = append(changes, &change{name: fields[0], line: lineNo})
	}
	seen := map[string]int{}
	for _, c := range changes {
		seen[c.name]++
	}
	var files []File
	var diags []scan.Diagnostic
	used := map[string]bool{}
	left := map[string]int{}
	for _, c := range changes {
		left[c.name]++
		rel := filepath.Join("deploy", c.name+".sql")
		if left[c.name] < seen[c.name] && c.tag != "" {
			rel = filepath.Join("deploy", c.name+"@"+c.tag+".sql")
		}
		if !fileExists(filepath.Join(dir, rel)) {
			diags = append(diags, scan.Diagnostic{Level: scan.Error, Message: fmt.Sprintf(
				"%s:%d: change %q has no deploy script %s", filepath.Join(display, "sqitch.plan"), c.line, c.name, filepath.Join(display, rel))})
			continue
		}
		f := newFile(display, rel, LayoutSqitch)
		f.Name = c.name
		files = append(files, f)
		used[rel] = true
	}
	var skipped []SkippedFile
	for _, sub := range []struct{ dir, reason string }{
		{"deploy", "not in sqitch.plan, so sqitch does not deploy it"},
		{"revert", "a revert script"},
		{"verify", "a verify script"},
	} {
		entries, err := os.ReadDir(filepath.Join(dir, sub.dir))
		if err != nil {
			continue
		}
		for _, e := range entries {
			rel := filepath.Join(sub.dir, e.Name())
			if strings.HasSuffix(e.Name(), ".sql") && !used[rel] {
				skipped = append(skipped, skip(display, rel, sub.reason))
			}
		}
	}
	return files, skipped, diags
}
