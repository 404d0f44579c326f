package layout

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

func newFile(display, name string, layout Layout) File {
	p := filepath.Join(display, name)
	return File{Path: p, Layout: layout, disk: p}
}

func skip(display, name, reason string) SkippedFile {
	return SkippedFile{Path: filepath.Join(display, name), Reason: reason}
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

// listTree chooses and orders the files of one tree the way its tool does.
func listTree(dir, display string, layout Layout, sc dirScan) (Tree, []scan.Diagnostic) {
	tree := Tree{Root: display, Layout: layout}
	var diags []scan.Diagnostic
	if d := Lookup(layout); d != nil {
		tree.Files, tree.Skipped, diags = d.List(treeDir{dir: dir, display: display, sc: sc})
	}
	// The files of dir itself were scanned; those in its folders (Prisma's,
	// diesel's, a plan's) may be links out of the tree.
	tree.Files = slices.DeleteFunc(tree.Files, func(f File) bool {
		if f.disk == "" || filepath.Dir(f.disk) == filepath.Clean(dir) {
			return false
		}
		target, inside := insideTree(sc.root, f.disk)
		if !inside {
			diags = append(diags, scan.Diagnostic{Level: scan.Note, Message: NotFollowed(f.Path, target)})
		}
		return !inside
	})
	return tree, diags
}

// listVersioned lists {version}_{name}.sql in numeric version order
// (goose, dbmate, tern).
func listVersioned(layout Layout) func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
	return func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		files, skipped := listVersionedFiles(t.display, layout, t.sc.sqlFiles)
		files, diags := sortFiles(files, compareNumericVersion)
		return files, skipped, diags
	}
}

// listVersionDirs keeps {version}_{name}/{up}. The down scripts beside
// them, and .sql files outside the version folders, are skipped. A version
// folder that cannot be read is an error, never a migration left out.
func listVersionDirs(t treeDir, layout Layout, up, down string) ([]File, []SkippedFile, []scan.Diagnostic) {
	dir, display, sc := t.dir, t.display, t.sc
	var files []File
	var skipped []SkippedFile
	var diags []scan.Diagnostic
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
		ok, err := fileAt(filepath.Join(dir, sub, up))
		if err != nil {
			diags = append(diags, pathError(filepath.Join(display, sub), err))
		}
		if !ok {
			continue
		}
		f := newFile(display, filepath.Join(sub, up), layout)
		f.Version, f.Name = v, name
		files = append(files, f)
	}
	return files, skipped, diags
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

// sortSkipped orders skipped files by path, so that notes come in the
// order of a directory listing.
func sortSkipped(skipped []SkippedFile) {
	slices.SortStableFunc(skipped, func(a, b SkippedFile) int { return strings.Compare(a.Path, b.Path) })
}
