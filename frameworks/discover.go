package frameworks

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse"
)

// Found is a schema file found among lint's paths: a schema.rb, or the
// .prisma files of one directory (Prisma reads a folder of them as one
// schema).
type Found struct {
	Paths []string
	Kind  Kind
	// Explicit is set when the user named the file itself: it is then the
	// input, even beside SQL migrations.
	Explicit bool
}

// maxDepth is how far below a given directory a schema file is looked for:
// db/schema.rb, prisma/schema.prisma, packages/db/prisma/schema.prisma.
const maxDepth = 3

// Find splits lint's paths into the paths for the SQL loader and the schema
// files. A schema file named directly is taken out of the SQL paths. A
// directory is searched for schema files; it stays a SQL path when it holds
// any .sql file, so that SQL migrations beside a schema file are read (and
// win), and is dropped when it holds only schema files. SQL beside a schema
// file that sits deeper than the SQL loader looks (a monorepo's
// packages/db/prisma/migrations) is named to the loader itself.
//
// A link under a directory that leads out of it is not followed, and a
// folder that cannot be read is an error: diags say so.
func Find(paths []string) (sqlPaths []string, found []Found, diags []sqlparse.Diagnostic) {
	for _, p := range paths {
		info, err := os.Stat(p)
		switch {
		case err != nil || p == "-":
			sqlPaths = append(sqlPaths, p)
		case !info.IsDir():
			if k := KindOf(p); k != "" {
				f := Found{Paths: []string{p}, Kind: k, Explicit: true}
				if k == Prisma {
					// A file of a multi-file schema is read with the rest.
					all, note, d := wholePrismaSchema(p)
					diags = append(diags, d...)
					if all != nil {
						f.Paths = putFirst(all, p)
						diags = append(diags, sqlparse.Diagnostic{Level: sqlparse.Note, Message: note})
					}
				}
				found = append(found, f)
			} else {
				sqlPaths = append(sqlPaths, p)
			}
		default:
			w := &walker{root: p}
			schemas, sqlFiles := w.walk(p, 0, false)
			diags = append(diags, w.diags...)
			found = append(found, schemas...)
			var deep []string
			for _, f := range schemas {
				if l := f.besideSQL(); l != "" && depthBelow(p, l) > sqlReach {
					deep = append(deep, l)
				}
			}
			other := false
			for _, file := range sqlFiles {
				if !within(file, deep) {
					other = true
					break
				}
			}
			if other || len(schemas) == 0 {
				sqlPaths = append(sqlPaths, p)
			}
			sqlPaths = append(sqlPaths, deep...)
		}
	}
	said := map[string]bool{}
	for _, d := range diags {
		said[d.Message] = true
	}
	configs := map[string]bool{}
	for _, f := range found {
		if f.Kind == Prisma {
			if d := unresolvedError(f.Paths); d != nil {
				diags = append(diags, *d)
			}
			// A config setting lint cannot follow is said, once per
			// config, never silently replaced by discovery.
			if cfg, ds := configProblems(f.Paths[0]); cfg != "" && !configs[cfg] {
				configs[cfg] = true
				for _, d := range ds {
					if !said[d.Message] {
						said[d.Message] = true
						diags = append(diags, d)
					}
				}
			}
		}
	}
	return sqlPaths, found, diags
}

// sqlReach is how far below a directory given to lint the SQL loader looks
// for a migration tree (sqlparse's maxTreeDepth).
const sqlReach = 2

// depthBelow counts the directories from root down to p.
func depthBelow(root, p string) int {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." {
		return 0
	}
	return strings.Count(rel, string(filepath.Separator)) + 1
}

// within reports whether p is one of dirs or below one of them.
func within(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// besideSQL is the SQL a schema file found in a tree is compared with, if
// it exists: Rails' db/ when it holds structure.sql, Prisma's migrations
// folder beside the schema (beside prisma/schema/ for that folder form), or
// the one the project's Prisma config names (migrations: { path }).
func (f Found) besideSQL() string {
	dir := filepath.Dir(f.Paths[0])
	switch f.Kind {
	case Rails:
		if isFile(filepath.Join(dir, "structure.sql")) {
			return dir
		}
	case Prisma:
		if m, _, configured := prismaMigrations(f.Paths[0]); configured && isDir(m) {
			return m
		}
		return besideMigrations(f.Paths[0])
	}
	return ""
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// walker is one walk of a directory lint was given: root, and what the
// walk has to say (the links under it that lead out of it, which it does
// not follow; folders it cannot read).
type walker struct {
	root  string
	diags []sqlparse.Diagnostic
}

// walk looks for schema files and .sql files in dir and below, maxDepth
// directories down. Below a directory of .prisma files it goes on for
// .prisma files alone (prismaOnly), since they may belong to its schema.
func (w *walker) walk(dir string, depth int, prismaOnly bool) (found []Found, sqlFiles []string) {
	all, err := os.ReadDir(dir)
	if err != nil {
		if prismaOnly {
			// It may hold models of the schema above it.
			w.diags = append(w.diags, sqlparse.Diagnostic{Level: sqlparse.Error, Message: fmt.Sprintf("%s: cannot read: %v", dir, unwrapPath(err))})
			return nil, nil
		}
		return nil, []string{dir} // let the SQL loader report it
	}
	entries := all[:0]
	for _, e := range all {
		if e.Type()&fs.ModeSymlink != 0 {
			p := filepath.Join(dir, e.Name())
			if target, outside := sqlparse.OutsideTree(w.root, p); outside {
				// The SQL loader names the links it would have read.
				if KindOf(e.Name()) != "" {
					w.diags = append(w.diags, sqlparse.Diagnostic{Level: sqlparse.Note, Message: sqlparse.NotFollowed(p, target)})
				}
				continue
			}
		}
		entries = append(entries, e)
	}
	var prisma []string
	railsDB := false
	for _, e := range entries {
		if !e.IsDir() && KindOf(e.Name()) == Prisma {
			prisma = append(prisma, filepath.Join(dir, e.Name()))
		}
		if !e.IsDir() && (e.Name() == "schema.rb" || e.Name() == "structure.sql") {
			railsDB = true
		}
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		if e.IsDir() {
			if strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" {
				continue
			}
			// Test fixtures and examples below a given path are not its
			// schema; a Rails db folder's views/ (scenic) and functions/
			// (fx) are definitions its schema refers to (the SQL loader
			// leaves both out alike).
			if !prismaOnly && sqlparse.FixtureDir(name) || railsDB && railsDefinitionDirs[name] {
				continue
			}
			switch {
			case depth < maxDepth && !prismaOnly:
				f, sql := w.walk(p, depth+1, false)
				found = append(found, f...)
				sqlFiles = append(sqlFiles, sql...)
			case len(prisma) > 0 || prismaOnly:
				f, _ := w.walk(p, depth+1, true)
				found = append(found, f...)
			}
			continue
		}
		if prismaOnly {
			continue
		}
		// Only Rails' own place: a schema.rb elsewhere is some other
		// program's Ruby.
		if KindOf(name) == Rails && filepath.Base(dir) == "db" {
			found = append(found, Found{Paths: []string{p}, Kind: Rails})
		}
		if strings.EqualFold(filepath.Ext(name), ".sql") {
			sqlFiles = append(sqlFiles, p)
		}
	}
	if len(prisma) > 0 {
		sort.Strings(prisma)
		found = adoptPrismaFiles(found, Found{Paths: prisma, Kind: Prisma})
	}
	return found, sqlFiles
}

// adoptPrismaFiles adds to own, the .prisma files of one directory, the
// .prisma files found below it that have no datasource of their own, and
// returns found with them replaced by own. Prisma's documented multi-file
// layout is prisma/schema.prisma (datasource, generator) with the models in
// prisma/models/*.prisma, all one schema read from the prisma folder; a
// folder below with its own datasource is another schema. own's files stay
// first, so that the schema's place (Beside) is its top directory.
func adoptPrismaFiles(found []Found, own Found) []Found {
	out := found[:0]
	for _, f := range found {
		if f.Kind == Prisma && !declaresDatasource(f.Paths) {
			own.Paths = append(own.Paths, f.Paths...)
			continue
		}
		out = append(out, f)
	}
	return append(out, own)
}

var datasourceBlock = regexp.MustCompile(`(?m)^[ \t]*datasource[ \t]+\w+[ \t]*\{`)

// declaresDatasource reports whether any of the files holds a datasource
// block. A file that cannot be read counts as none: Read reports it later.
func declaresDatasource(paths []string) bool {
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil && datasourceBlock.Match(data) {
			return true
		}
	}
	return false
}

// Beside reports whether a SQL tree rooted at root sits beside the schema
// file: inside the schema file's directory (prisma/migrations beside
// prisma/schema.prisma, db/structure.sql beside db/schema.rb), or, for a
// folder of .prisma files (prisma/schema/), beside that folder; or the
// migrations folder the project's Prisma config names.
func (f Found) Beside(root string) bool {
	dir := filepath.Clean(filepath.Dir(f.Paths[0]))
	root = filepath.Clean(root)
	within := func(d string) bool {
		return root == d || strings.HasPrefix(root, d+string(filepath.Separator))
	}
	if within(dir) {
		return true
	}
	if f.Kind == Prisma {
		if m, _, configured := prismaMigrations(f.Paths[0]); configured && within(filepath.Clean(m)) {
			return true
		}
	}
	return f.Kind == Prisma && filepath.Base(dir) == "schema" && within(filepath.Dir(dir))
}

// railsDefinitionDirs are a Rails db folder's folders of SQL its schema
// refers to: scenic's views, fx's functions and triggers.
var railsDefinitionDirs = map[string]bool{"views": true, "functions": true, "triggers": true}
