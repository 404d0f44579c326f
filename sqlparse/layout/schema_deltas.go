package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// A full schema plus deltas is the layout of Synapse's runner
// (synapse/storage/prepare_database.py) and of the Python projects that
// copied it. A schema folder holds stores (common/, main/, state/ ...),
// each with full_schemas/<N>/ snapshots and delta/<N>/ folders; a store
// may also be given on its own. What the runner does on an empty
// PostgreSQL database, and so what is replayed, in this order:
//
//   - common/schema_version.sql, which it runs first, on every start, to
//     create its own bookkeeping tables;
//   - the highest snapshot N of common/full_schemas (of the stores when
//     there is no common/), not above SCHEMA_VERSION when the schema
//     folder's __init__.py sets it: the files of full_schemas/N/ of every
//     store together, sorted by file name (the path breaks a tie);
//   - then, for each version above N in turn, the files of delta/<v>/ of
//     every store together, sorted by file name; two stores with a file
//     of the same name in one version is an error, as in the runner.
//
// A file runs when its name ends in .sql or .sql.postgres; .sql.sqlite
// files are for SQLite, .py deltas are Python that idemcheck does not
// run, and the runner ignores anything else in the folders. Every store
// of a schema folder goes into one tree: Synapse applies common/ and all
// its stores to one database unless configured otherwise.

// LayoutSchemaDeltas is full_schemas/<N>/ snapshots with delta/<N>/ folders.
const LayoutSchemaDeltas Layout = "schema-deltas"

var schemaDeltas = &Def{
	Name:      LayoutSchemaDeltas,
	Tool:      "Synapse's full schemas and deltas",
	Files:     "`[store/]full_schemas/{N}/*.sql` and `[store/]delta/{N}/*.sql` (Synapse); `.sql.postgres` too",
	UpPart:    "`common/schema_version.sql`, the highest snapshot, then every delta above it (`.py` deltas skipped as not SQL)",
	Order:     "snapshot, then delta version by version; in each, the files of every store by file name",
	Signature: isSchemaDeltasDir,
	Up:        schemaDeltasUp,
	List: func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		return listSchemaDeltas(t.dir, t.display, t.sc)
	},
	Bookkeeping: []string{
		`CREATE TABLE schema_version (lock char(1) NOT NULL DEFAULT 'X' UNIQUE, version integer NOT NULL, upgraded bool NOT NULL, CHECK (lock = 'X'))`,
		`CREATE TABLE schema_compat_version (lock char(1) NOT NULL DEFAULT 'X' UNIQUE, compat_version integer NOT NULL, CHECK (lock = 'X'))`,
		`CREATE TABLE applied_schema_deltas (version integer NOT NULL, file text NOT NULL, UNIQUE (version, file))`,
		`CREATE TABLE applied_module_schemas (module_name text NOT NULL, file text NOT NULL, UNIQUE (module_name, file))`,
	},
}

const (
	fullSchemasDir = "full_schemas"
	deltaDir       = "delta"
	commonStore    = "common"
	// versionFile is the common store's file the runner runs before anything.
	versionFile = "schema_version.sql"
)

// schemaVersionLine is the assignment SCHEMA_VERSION = 94 in the schema
// folder's __init__.py: no delta above it runs.
var schemaVersionLine = regexp.MustCompile(`(?m)^SCHEMA_VERSION\s*=\s*([0-9]+)\b`)

// autoIncrementPlaceholder is the text Synapse's PostgreSQL engine replaces
// in every file before running it, and what it puts in its place.
const (
	autoIncrementPlaceholder = "$%AUTO_INCREMENT_PRIMARY_KEY%$"
	autoIncrementPostgres    = "BIGINT PRIMARY KEY GENERATED ALWAYS AS IDENTITY"
)

// schemaDeltasUp makes the runner's one substitution. Lines keep their
// numbers; columns after the placeholder on its own line move.
func schemaDeltasUp(f File, text string) scan.Input {
	return scan.Input{Path: f.Path, Text: strings.ReplaceAll(text, autoIncrementPlaceholder, autoIncrementPostgres)}
}

// isStoreDir reports whether sub (a folder of dir) has a full_schemas/ or
// delta/ folder holding a numbered version folder.
func isStoreDir(dir string) bool {
	for _, part := range []string{fullSchemasDir, deltaDir} {
		sc, err := scanDir(filepath.Join(dir, part), "")
		if err != nil {
			continue
		}
		for _, v := range sc.subdirs {
			if _, ok := deltaVersion(v); ok {
				return true
			}
		}
	}
	return false
}

// isSchemaDeltasDir: dir is a store, or holds stores; one of them has a
// full_schemas/ folder (a folder of deltas alone is no snapshot to start
// from).
func isSchemaDeltasDir(dir string, sc dirScan) bool {
	if hasName(sc.subdirs, fullSchemasDir) && isStoreDir(dir) {
		return true
	}
	for _, sub := range sc.subdirs {
		if !ignoredDir(sub) && dirExists(filepath.Join(dir, sub, fullSchemasDir)) && isStoreDir(filepath.Join(dir, sub)) {
			return true
		}
	}
	return false
}

func dirExists(p string) bool {
	ok, err := dirAt(p)
	return ok && err == nil
}

// dirAt is fileAt for a folder.
func dirAt(p string) (bool, error) {
	info, err := os.Stat(p)
	switch {
	case err == nil:
		return info.IsDir(), nil
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return false, nil
	}
	return false, err
}

// deltaVersion reads a version folder's name as the runner does: it looks
// only for str(v), so 072 is no version.
func deltaVersion(name string) (int, bool) {
	v, err := strconv.Atoi(name)
	if err != nil || v < 0 || strconv.Itoa(v) != name {
		return 0, false
	}
	return v, true
}

// store is one store folder: its name ("" for a store given on its own),
// where it is and how it is displayed.
type store struct{ name, dir, display string }

// deltaEntry is a file of a snapshot or delta folder of one store.
type deltaEntry struct {
	name    string // file name, the runner's sort key
	rel     string // path below the tree, for display
	version int
}

// listSchemaDeltas lists the tree the way prepare_database.py runs it on
// an empty database.
func listSchemaDeltas(dir, display string, sc dirScan) ([]File, []SkippedFile, []scan.Diagnostic) {
	var stores []store
	var skipped []SkippedFile
	var diags []scan.Diagnostic
	if hasName(sc.subdirs, fullSchemasDir) || hasName(sc.subdirs, deltaDir) {
		stores = []store{{dir: dir, display: display}}
	} else {
		for _, sub := range sc.subdirs {
			if !ignoredDir(sub) && isStoreDir(filepath.Join(dir, sub)) {
				stores = append(stores, store{name: sub, dir: filepath.Join(dir, sub), display: filepath.Join(display, sub)})
			}
		}
		// The runner names common/ first; the sort by file name below
		// makes the order of the others matter only for ties.
		slices.SortStableFunc(stores, func(a, b store) int {
			switch {
			case a.name == b.name:
				return 0
			case a.name == commonStore:
				return -1
			case b.name == commonStore:
				return 1
			}
			return strings.Compare(a.name, b.name)
		})
		for _, n := range fileNames(sc) {
			if isSchemaLike(n) {
				skipped = append(skipped, skip(display, n, "not in a store's full_schemas/ or delta/ folder, so the runner does not apply it"))
			}
		}
	}
	if len(stores) == 0 {
		return nil, nil, nil // no store here: discovery looks further down
	}
	rel := func(s store, parts ...string) string {
		if s.name == "" {
			return filepath.Join(parts...)
		}
		return filepath.Join(append([]string{s.name}, parts...)...)
	}

	limit, hasLimit := schemaVersionLimit(dir, sc)
	var files []File
	// Before anything, the runner creates its bookkeeping tables.
	for _, s := range stores {
		ssc, err := scanDir(s.dir, sc.root)
		if err != nil {
			diags = append(diags, pathError(s.display, err))
			continue
		}
		for _, n := range fileNames(ssc) {
			if !isSchemaLike(n) {
				continue
			}
			// The common store's, or that of a store given alone.
			if n == versionFile && (s.name == commonStore || s.name == "") {
				f := newFile(display, rel(s, n), LayoutSchemaDeltas)
				f.Name = strings.TrimSuffix(n, ".sql")
				files = append(files, f)
				continue
			}
			skipped = append(skipped, skip(display, rel(s, n), "not in full_schemas/ or delta/, so the runner does not apply it"))
		}
	}

	// The snapshot: the highest version of common/full_schemas (or of the
	// stores' when there is no common/).
	snapshots := map[string][]int{}
	base, found := -1, false
	for _, s := range stores {
		vs, d := versionFolders(filepath.Join(s.dir, fullSchemasDir), filepath.Join(s.display, fullSchemasDir), sc.root)
		diags = append(diags, d...)
		snapshots[s.name] = vs
	}
	candidates, hasCommon := snapshots[commonStore]
	if !hasCommon {
		for _, vs := range snapshots {
			candidates = append(candidates, vs...)
		}
	}
	for _, v := range candidates {
		if (!hasLimit || v <= limit) && v > base {
			base, found = v, true
		}
	}
	if !found {
		where := filepath.Join(display, fullSchemasDir)
		if len(stores) > 1 || stores[0].name != "" {
			where = filepath.Join(display, commonStore, fullSchemasDir)
		}
		diags = append(diags, scan.Diagnostic{Level: scan.Error, Message: fmt.Sprintf(
			"%s: no full schema to start from (the runner needs a full_schemas/<N>/ folder%s); no delta is replayed",
			where, limitNote(limit, hasLimit))})
		return files, skipped, diags
	}
	var snap []deltaEntry
	for _, s := range stores {
		folder := filepath.Join(s.dir, fullSchemasDir, strconv.Itoa(base))
		for _, v := range snapshots[s.name] {
			if v != base {
				skipped = append(skipped, folderSkips(display, rel(s, fullSchemasDir, strconv.Itoa(v)), filepath.Join(s.dir, fullSchemasDir, strconv.Itoa(v)), sc.root,
					fmt.Sprintf("snapshot %d is not used: the runner starts from %s/%d", v, fullSchemasDir, base))...)
			}
		}
		if !slices.Contains(snapshots[s.name], base) {
			diags = append(diags, scan.Diagnostic{Level: scan.Error, Message: fmt.Sprintf(
				"%s: no folder %d, the snapshot the runner starts from; the runner fails without it",
				filepath.Join(s.display, fullSchemasDir), base)})
			continue
		}
		entries, sk, d := versionEntries(folder, filepath.Join(s.display, fullSchemasDir, strconv.Itoa(base)), rel(s, fullSchemasDir, strconv.Itoa(base)), base, sc.root)
		skipped, diags = append(skipped, sk...), append(diags, d...)
		snap = append(snap, entries...)
	}
	sortEntries(snap)
	f, sk := takeEntries(display, snap)
	files, skipped = append(files, f...), append(skipped, sk...)

	// The deltas, version by version.
	deltas := map[int][]deltaEntry{}
	var versions []int
	for _, s := range stores {
		vs, d := versionFolders(filepath.Join(s.dir, deltaDir), filepath.Join(s.display, deltaDir), sc.root)
		diags = append(diags, d...)
		for _, v := range vs {
			folder := filepath.Join(s.dir, deltaDir, strconv.Itoa(v))
			r := rel(s, deltaDir, strconv.Itoa(v))
			switch {
			case v <= base:
				skipped = append(skipped, folderSkips(display, r, folder, sc.root,
					fmt.Sprintf("delta %d is at or below snapshot %d, which already holds it", v, base))...)
				continue
			case hasLimit && v > limit:
				skipped = append(skipped, folderSkips(display, r, folder, sc.root,
					fmt.Sprintf("delta %d is above SCHEMA_VERSION %d, so the runner does not apply it", v, limit))...)
				continue
			}
			entries, sk, d := versionEntries(folder, filepath.Join(s.display, deltaDir, strconv.Itoa(v)), r, v, sc.root)
			skipped, diags = append(skipped, sk...), append(diags, d...)
			if _, seen := deltas[v]; !seen {
				versions = append(versions, v)
			}
			deltas[v] = append(deltas[v], entries...)
		}
		skipped = append(skipped, strayVersionFolders(filepath.Join(s.dir, deltaDir), display, rel(s, deltaDir), sc.root)...)
	}
	slices.Sort(versions)
	for _, v := range versions {
		entries := deltas[v]
		sortEntries(entries)
		for i := 1; i < len(entries); i++ {
			if entries[i].name == entries[i-1].name {
				diags = append(diags, scan.Diagnostic{Level: scan.Error, Message: fmt.Sprintf(
					"delta %d: %s and %s share a file name, which the runner refuses (it stops before applying version %d)",
					v, filepath.Join(display, entries[i-1].rel), filepath.Join(display, entries[i].rel), v)})
			}
		}
		f, sk := takeEntries(display, entries)
		files, skipped = append(files, f...), append(skipped, sk...)
	}
	sortSkipped(skipped)
	return files, skipped, diags
}

func limitNote(limit int, hasLimit bool) string {
	if hasLimit {
		return fmt.Sprintf(" numbered at most SCHEMA_VERSION %d", limit)
	}
	return ""
}

// schemaVersionLimit reads SCHEMA_VERSION from the schema folder's
// __init__.py, when there is one.
func schemaVersionLimit(dir string, sc dirScan) (int, bool) {
	if !sc.others["__init__.py"] {
		return 0, false
	}
	data, err := sc.readFile(filepath.Join(dir, "__init__.py"))
	if err != nil {
		return 0, false
	}
	m := schemaVersionLine.FindSubmatch(data)
	if m == nil {
		return 0, false
	}
	v, err := strconv.Atoi(string(m[1]))
	return v, err == nil
}

// versionFolders lists the numbered folders of a full_schemas/ or delta/
// folder; one that is not there is no error (a store may have no deltas).
func versionFolders(dir, display, root string) ([]int, []scan.Diagnostic) {
	ok, err := dirAt(dir)
	if err != nil {
		return nil, []scan.Diagnostic{pathError(display, err)}
	}
	if !ok {
		return nil, nil
	}
	sc, err := scanDir(dir, root)
	if err != nil {
		return nil, []scan.Diagnostic{pathError(display, err)}
	}
	var out []int
	for _, sub := range sc.subdirs {
		if v, ok := deltaVersion(sub); ok {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out, outsideNotes(display, sc.outside)
}

// strayVersionFolders skips the files of delta/ folders whose names are no
// version the runner looks for (v1/, 072/).
func strayVersionFolders(dir, display, rel, root string) []SkippedFile {
	sc, err := scanDir(dir, root)
	if err != nil {
		return nil // reported by versionFolders
	}
	var out []SkippedFile
	for _, sub := range sc.subdirs {
		if _, ok := deltaVersion(sub); !ok {
			out = append(out, folderSkips(display, filepath.Join(rel, sub), filepath.Join(dir, sub), root,
				fmt.Sprintf("%s is no version number, so the runner never reads the folder", sub))...)
		}
	}
	for _, n := range fileNames(sc) {
		if isSchemaLike(n) {
			out = append(out, skip(display, filepath.Join(rel, n), "not in a delta/<version>/ folder, so the runner does not apply it"))
		}
	}
	return out
}

// folderSkips skips every schema-like file of a folder with one reason.
func folderSkips(display, rel, dir, root, reason string) []SkippedFile {
	sc, err := scanDir(dir, root)
	if err != nil {
		return nil
	}
	var out []SkippedFile
	for _, n := range fileNames(sc) {
		if isSchemaLike(n) || strings.HasSuffix(n, ".py") {
			out = append(out, skip(display, filepath.Join(rel, n), reason))
		}
	}
	return out
}

// versionEntries lists the files of one version folder of one store; the
// files of a folder inside it are skipped (the runner lists the folder as
// an entry, warns that it is no delta, and runs nothing in it).
func versionEntries(dir, display, rel string, version int, root string) ([]deltaEntry, []SkippedFile, []scan.Diagnostic) {
	sc, err := scanDir(dir, root)
	if err != nil {
		return nil, nil, []scan.Diagnostic{pathError(display, err)}
	}
	var out []deltaEntry
	for _, n := range fileNames(sc) {
		out = append(out, deltaEntry{name: n, rel: filepath.Join(rel, n), version: version})
	}
	var skipped []SkippedFile
	for _, sub := range sc.subdirs {
		if sub != "__pycache__" {
			skipped = append(skipped, folderSkips(filepath.Dir(display), filepath.Join(filepath.Base(display), sub), filepath.Join(dir, sub), root,
				"in a folder inside a version folder, which the runner does not enter")...)
		}
	}
	return out, skipped, outsideNotes(display, sc.outside)
}

// sortEntries is the runner's sort of its directory listings: by file
// name, then by path.
func sortEntries(entries []deltaEntry) {
	slices.SortStableFunc(entries, func(a, b deltaEntry) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.rel, b.rel)
	})
}

// takeEntries keeps the files the runner executes on PostgreSQL and skips
// the others with the reason.
func takeEntries(display string, entries []deltaEntry) ([]File, []SkippedFile) {
	var files []File
	var skipped []SkippedFile
	for _, e := range entries {
		lower := strings.ToLower(e.name)
		switch {
		case strings.HasSuffix(e.name, ".sql") || strings.HasSuffix(e.name, ".sql.postgres"):
			f := newFile(display, e.rel, LayoutSchemaDeltas)
			f.Version = strconv.Itoa(e.version)
			f.Name = strings.TrimSuffix(strings.TrimSuffix(e.name, ".postgres"), ".sql")
			files = append(files, f)
		case strings.HasSuffix(e.name, ".sql.sqlite"):
			skipped = append(skipped, skip(display, e.rel, "another dialect: a SQLite file, which the runner applies only on SQLite"))
		case strings.HasSuffix(e.name, ".py"):
			skipped = append(skipped, skip(display, e.rel, "not SQL: a Python delta, which idemcheck does not run (its tables and indexes are not in the model)"))
		case strings.HasSuffix(lower, ".pyc"):
			// The runner passes over compiled Python without a word.
		default:
			skipped = append(skipped, skip(display, e.rel, "neither .sql, .sql.postgres nor .py, so the runner does not apply it"))
		}
	}
	return files, skipped
}

// fileNames are the entries of a scanned folder that are not folders, in
// name order.
func fileNames(sc dirScan) []string {
	var out []string
	for n := range sc.others {
		if !hasName(sc.subdirs, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// isSchemaLike is a name that may hold SQL: .sql or .sql.<dialect>.
func isSchemaLike(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasSuffix(lower, ".sql") || strings.Contains(lower, ".sql.")
}
