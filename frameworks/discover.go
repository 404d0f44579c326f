package frameworks

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
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
// win), and is dropped when it holds only schema files.
func Find(paths []string) (sqlPaths []string, found []Found) {
	for _, p := range paths {
		info, err := os.Stat(p)
		switch {
		case err != nil || p == "-":
			sqlPaths = append(sqlPaths, p)
		case !info.IsDir():
			if k := KindOf(p); k != "" {
				found = append(found, Found{Paths: []string{p}, Kind: k, Explicit: true})
			} else {
				sqlPaths = append(sqlPaths, p)
			}
		default:
			schemas, hasSQL := walk(p, 0)
			found = append(found, schemas...)
			if hasSQL || len(schemas) == 0 {
				sqlPaths = append(sqlPaths, p)
			}
		}
	}
	return sqlPaths, found
}

// walk looks for schema files and .sql files in dir and below.
func walk(dir string, depth int) (found []Found, hasSQL bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, true // let the SQL loader report it
	}
	var prisma []string
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		if e.IsDir() {
			if depth < maxDepth && !strings.HasPrefix(name, ".") && name != "node_modules" && name != "vendor" {
				f, sql := walk(p, depth+1)
				found = append(found, f...)
				hasSQL = hasSQL || sql
			}
			continue
		}
		switch KindOf(name) {
		case Rails:
			// Only Rails' own place: a schema.rb elsewhere is some other
			// program's Ruby.
			if filepath.Base(dir) == "db" {
				found = append(found, Found{Paths: []string{p}, Kind: Rails})
			}
		case Prisma:
			prisma = append(prisma, p)
		}
		if strings.EqualFold(filepath.Ext(name), ".sql") {
			hasSQL = true
		}
	}
	if len(prisma) > 0 {
		sort.Strings(prisma)
		found = append(found, Found{Paths: prisma, Kind: Prisma})
	}
	return found, hasSQL
}

// Beside reports whether a SQL tree rooted at root sits beside the schema
// file: inside the schema file's directory (prisma/migrations beside
// prisma/schema.prisma, db/structure.sql beside db/schema.rb), or, for a
// folder of .prisma files (prisma/schema/), beside that folder.
func (f Found) Beside(root string) bool {
	dir := filepath.Clean(filepath.Dir(f.Paths[0]))
	root = filepath.Clean(root)
	within := func(d string) bool {
		return root == d || strings.HasPrefix(root, d+string(filepath.Separator))
	}
	if within(dir) {
		return true
	}
	return f.Kind == Prisma && filepath.Base(dir) == "schema" && within(filepath.Dir(dir))
}
