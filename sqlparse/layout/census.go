package layout

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The census is every file under a path lint was given that could be
// schema, whatever discovery made of it, so that lint can account for each
// one: replayed, skipped with a reason, or unread (docs/layouts.md, "What
// lint reads"). It walks deeper than discovery looks for trees, so that a
// tree sitting too deep is named rather than silently missed.

// CensusDepth is how many folders below a given directory the census
// looks; trees are only looked for maxTreeDepth folders down.
const CensusDepth = 6

// TreeDepth is how many folders below a given directory discovery looks
// for a migration tree.
const TreeDepth = maxTreeDepth

// Candidate is one file under a path that could be schema.
type Candidate struct {
	Path string
	// Kind is "sql" (.sql and .sql.<dialect>), "rails" (db/schema.rb),
	// "prisma" (.prisma) or "manifest" (sqitch.plan, a Liquibase
	// changelog, Prisma's migration_lock.toml, temporal's
	// v{version}/manifest.json).
	Kind string
	// Dialect is the <dialect> of a .sql.<dialect> name, lower case, or
	// the other database a folder above it is named for (clickhouse/);
	// "" for .sql.
	Dialect string
	// Fixture is the test-fixture or example folder the file sits in,
	// below the path given (FixtureDir); "" when none.
	Fixture string
	// Definitions is set for a file of a Rails db folder's views/,
	// functions/ or triggers/ (the scenic and fx gems): definitions the
	// schema references, not a migration tree. It is that db folder.
	Definitions string
	// NotApplied is set for a file of a project whose runner applies only
	// one folder of it (a Hasura project's seeds, views and scripts beside
	// its migrations): why the runner does not apply it.
	NotApplied string
	// Depth is how many folders below the path given the file sits.
	Depth int
}

// Census lists the schema-like files under p (a file or a directory), in
// walk order. It never enters the folders discovery never enters (names
// starting with a dot, node_modules, vendor) and follows no link out of p.
// .gitignore is not read.
func Census(p string) []Candidate {
	info, err := os.Stat(p)
	if err != nil {
		return nil
	}
	if !info.IsDir() {
		if k, d := candidateKind(filepath.Base(p), filepath.Base(filepath.Dir(p))); k != "" {
			return []Candidate{{Path: p, Kind: k, Dialect: d}}
		}
		return nil
	}
	root, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil
	}
	var out []Candidate
	visited := map[string]bool{}
	// proj is the Hasura project a folder is in (projDir its folder),
	// until the walk reaches the project's migrations or leaves them aside.
	var walk func(dir string, depth int, fixture, defs, dialect, notApplied string, proj *hasuraProject, projDir string)
	walk = func(dir string, depth int, fixture, defs, dialect, notApplied string, proj *hasuraProject, projDir string) {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || visited[real] {
			return
		}
		visited[real] = true
		sc, err := scanDir(dir, root)
		if err != nil {
			return
		}
		names := make([]string, 0, len(sc.others))
		for n := range sc.others {
			names = append(names, n)
		}
		sortNatural(names)
		subdir := map[string]bool{}
		for _, s := range sc.subdirs {
			subdir[s] = true
		}
		if proj == nil && notApplied == "" {
			if p, ok := hasuraProjectAt(dir, dir, sc); ok {
				proj, projDir = &p, dir
			}
		}
		own := notApplied
		if proj != nil {
			// A folder on the way to the migrations (db/ of
			// db/migrations): its own files are not migrations.
			own = proj.notApplied("")
		}
		for _, n := range names {
			if subdir[n] {
				continue
			}
			if k, d := candidateKind(n, filepath.Base(dir)); k != "" {
				if d == "" && k == "sql" {
					d = dialect
				}
				out = append(out, Candidate{Path: filepath.Join(dir, n), Kind: k, Dialect: d,
					Fixture: fixture, Definitions: defs, NotApplied: own, Depth: depth})
			}
		}
		if depth >= CensusDepth {
			return
		}
		for _, s := range sortedSubdirs(sc) {
			if ignoredDir(s) {
				continue
			}
			fx, df, dl, na, pj := fixture, defs, dialect, notApplied, proj
			if proj != nil {
				rel, _ := filepath.Rel(projDir, filepath.Join(dir, s))
				switch {
				case within(rel, proj.migrations):
					pj = nil
				case !within(proj.migrations, rel):
					na, pj = proj.notApplied(rel), nil
				}
			}
			if dl == "" {
				dl = dialectDir(s)
			}
			if fx == "" && FixtureDir(s) {
				fx = filepath.Join(dir, s)
			}
			if df == "" && RailsDefinitionDir(sc, s) {
				df = dir
			}
			walk(filepath.Join(dir, s), depth+1, fx, df, dl, na, pj, projDir)
		}
	}
	walk(p, 0, "", "", "", "", nil, "")
	return out
}

func sortNatural(names []string) {
	slices.SortStableFunc(names, naturalCompare)
}

func sortedSubdirs(sc dirScan) []string {
	subs := append([]string(nil), sc.subdirs...)
	sortNatural(subs)
	return subs
}

// candidateKind says whether a file named name, in a folder named dir,
// could be schema, and its dialect.
func candidateKind(name, dir string) (kind, dialect string) {
	lower := strings.ToLower(name)
	if d, ok := SQLDialect(name); ok {
		return "sql", d
	}
	switch {
	case strings.HasSuffix(lower, ".prisma"):
		return "prisma", ""
	case lower == "schema.rb" && dir == "db":
		return "rails", ""
	case lower == "sqitch.plan" || lower == "migration_lock.toml" || liquibaseChangelogName.MatchString(lower):
		return "manifest", ""
	case lower == temporalManifest && temporalVersionDir.MatchString(dir):
		// manifest.json is a common name (a web app's): temporal's only
		// in a v{version} folder.
		return "manifest", ""
	}
	return "", ""
}

var liquibaseChangelogName = regexp.MustCompile(`^db\.changelog.*\.(xml|ya?ml|json)$|^changelog(-master)?\.(xml|ya?ml)$`)

// SQLDialect reports whether name is a SQL file: name.sql (dialect ""),
// or name.sql.<dialect> (dialect lower case, such as "postgres" or
// "sqlite").
func SQLDialect(name string) (dialect string, ok bool) {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, ".sql") {
		return "", len(lower) > len(".sql")
	}
	i := strings.LastIndex(lower, ".sql.")
	if i <= 0 {
		return "", false
	}
	d := lower[i+len(".sql."):]
	if d == "" {
		return "", false
	}
	for _, c := range d {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return "", false
		}
	}
	return d, true
}

// PostgresDialect reports whether a .sql.<dialect> file is meant for
// PostgreSQL (a plain .sql file is).
func PostgresDialect(d string) bool {
	switch d {
	case "", "postgres", "postgresql", "pg", "pgsql", "psql":
		return true
	}
	return false
}

// trimSQLSuffix drops .sql or .sql.<dialect> from a lower-case name.
func trimSQLSuffix(lower string) string {
	if d, ok := SQLDialect(lower); ok && d != "" {
		lower = lower[:len(lower)-len(d)-1]
	}
	return strings.TrimSuffix(lower, ".sql")
}

// otherDatabases are the words that, in a folder's name below a given
// path, say its SQL is another database's (db/clickhouse_migrate/).
var otherDatabases = []string{"clickhouse", "mysql", "mariadb", "sqlite", "mssql", "sqlserver", "oracle", "cockroach", "snowflake", "bigquery", "duckdb"}

// dialectDir is the database a folder's name says its SQL is for, or "".
func dialectDir(name string) string {
	lower := strings.ToLower(name)
	for _, w := range otherDatabases {
		if strings.Contains(lower, w) {
			return w
		}
	}
	return ""
}

// fixtureDirs are the folder names that hold a project's test data and
// examples rather than its schema: below a given path they are not looked
// in for trees (given directly, they are read).
var fixtureDirs = map[string]bool{
	"testdata": true, "test": true, "tests": true, "__tests__": true, "spec": true,
	"fixtures": true, "fixture": true, "__fixtures__": true, "test_fixtures": true,
	"test-fixtures": true, "testfixtures": true,
	"examples": true, "example": true, "templates": true, "template": true,
}

// FixtureDir reports whether a folder named name holds test fixtures,
// examples or templates (fixtureDirs).
func FixtureDir(name string) bool { return fixtureDirs[strings.ToLower(name)] }

// FixtureDirNames lists fixtureDirs, for the docs.
func FixtureDirNames() []string {
	out := make([]string, 0, len(fixtureDirs))
	for n := range fixtureDirs {
		out = append(out, n)
	}
	sortNatural(out)
	return out
}

// railsDefinitionDirs are the folders of a Rails db/ folder whose SQL the
// schema references: scenic's views, fx's functions and triggers.
var railsDefinitionDirs = map[string]bool{"views": true, "functions": true, "triggers": true}

// RailsDefinitionDir reports whether sub, a folder of the directory sc
// scanned, holds definitions a Rails schema references: that directory is
// a Rails db folder (it holds schema.rb or structure.sql).
func RailsDefinitionDir(sc dirScan, sub string) bool {
	return railsDefinitionDirs[sub] && (sc.others["schema.rb"] || sc.others["structure.sql"])
}

// ddlStatement finds a statement that changes the schema.
var ddlStatement = regexp.MustCompile(`(?i)\b(create|alter|drop)\s+(or\s+replace\s+)?(unique\s+index|index|table|type|schema|view|materialized|sequence|function|procedure|trigger|extension|domain|policy|rule|aggregate|operator|collation|publication|temp|temporary|unlogged|global|local|constraint|role|event)\b|\bcomment\s+on\b`)

// HasDDL reports whether the file at p holds a statement that changes a
// schema (CREATE, ALTER, DROP, COMMENT ON); a file of queries (sqlc's) is
// not schema. A file that cannot be read counts as schema: it is then
// named as not read, never quietly dropped.
func HasDDL(p string) bool {
	// A named pipe or a device would block or never end: not looked in.
	if info, err := os.Stat(p); err != nil || !info.Mode().IsRegular() {
		return true
	}
	f, err := os.Open(p)
	if err != nil {
		return true
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 4<<20))
	if err != nil {
		return true
	}
	return ddlStatement.Match(stripSQLComments(data))
}

// stripSQLComments blanks -- line comments, so that a query file's
// commentary ("-- drop table when ...") is not taken for DDL.
func stripSQLComments(data []byte) []byte {
	var b bytes.Buffer
	for line := range bytes.Lines(data) {
		if i := bytes.Index(line, []byte("--")); i >= 0 {
			b.Write(line[:i])
			b.WriteByte('\n')
			continue
		}
		b.Write(line)
	}
	return b.Bytes()
}

// foundInstead names, for a directory in which no tree was found, the SQL
// files it holds all the same and why none made a tree: "; found 2 SQL
// files, none replayed: a.sql.sqlite (for sqlite), ...". "" when it holds
// none.
func foundInstead(p string) string {
	var named []string
	n := 0
	for _, c := range Census(p) {
		if c.Kind != "sql" {
			continue
		}
		n++
		if len(named) == 5 {
			continue
		}
		why := ""
		switch {
		case !PostgresDialect(c.Dialect):
			why = "for " + c.Dialect
		case c.Fixture != "":
			why = "in a test-fixture folder"
		case c.Definitions != "":
			why = "a Rails schema's definition"
		case c.Depth > maxTreeDepth:
			why = fmt.Sprintf("%d folders down", c.Depth)
		case downKind(filepath.Base(c.Path)) != "":
			why = downKind(filepath.Base(c.Path))
		case !HasDDL(c.Path):
			why = "no CREATE, ALTER or DROP: queries"
		default:
			continue
		}
		named = append(named, fmt.Sprintf("%s (%s)", c.Path, why))
	}
	if n == 0 {
		return ""
	}
	s := fmt.Sprintf("; it holds %s, none of them replayed", countFiles(n, "SQL file", "SQL files"))
	if len(named) > 0 {
		s += ": " + strings.Join(named, ", ")
		if n > len(named) {
			s += fmt.Sprintf(" and %d more", n-len(named))
		}
	}
	return s
}

// anyDDL reports whether some file of a tree changes a schema.
func anyDDL(files []File) bool {
	for _, f := range files {
		if f.disk == "" || HasDDL(f.disk) {
			return true
		}
	}
	return false
}
