package layout

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLayoutNames runs layout detection and every layout's file listing
// over a directory of arbitrary file names (one name per line). The
// directory does not exist, so only the names decide: nothing may panic,
// every file listed must be one of the names given, and a file is never
// both used and counted as skipped.
func FuzzLayoutNames(f *testing.F) {
	for _, seed := range []string{
		"1_create.up.sql\n1_create.down.sql\n2_more.up.sql",
		"V1__init.sql\nV1.1__more.sql\nR__views.sql\nU1.1__undo.sql",
		"20230101120000_a.sql\n20230101120000_a.sql",
		"10_b.postgres.up.sql\n10_b.up.sql\n10_b.mysql.up.sql\n1_a.autocommit.up.sql",
		"001-x.sql\n002-y.sql\nstructure.sql",
		"1.sql\n01.sql\n001.sql\n1e9999_x.sql\n-1_x.sql",
		"v1__x.sql\nV__.sql\nV1__.sql\n.sql\n..sql\nup.sql",
		"\xff.sql\n٣_arabic.sql\n１_fullwidth.sql",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, list string) {
		names := fuzzNames(list)
		dir := filepath.Join(t.TempDir(), "absent")
		var sc dirScan
		sc.others = map[string]bool{}
		for _, n := range names {
			sc.others[n] = true
			if strings.EqualFold(filepath.Ext(n), ".sql") {
				sc.sqlFiles = append(sc.sqlFiles, n)
			}
		}
		if len(sc.sqlFiles) > 0 {
			if l, _ := detectSQLFiles(dir, sc.sqlFiles); l == "" {
				t.Fatalf("detectSQLFiles(%q) found no layout for .sql files", sc.sqlFiles)
			}
		}
		given := map[string]bool{}
		for _, n := range sc.sqlFiles {
			given[filepath.Join("m", n)] = true
		}
		for _, layout := range Layouts() {
			tree, _ := listTree(dir, "m", layout, sc)
			if len(tree.Files)+len(tree.Skipped) > len(sc.sqlFiles) {
				t.Fatalf("%s: %d files used and %d skipped out of %d names", layout, len(tree.Files), len(tree.Skipped), len(sc.sqlFiles))
			}
			used := map[string]bool{}
			for _, file := range tree.Files {
				used[file.Path] = true
				if layout != LayoutSqitch && layout != LayoutDirs && layout != LayoutPrisma && layout != LayoutTemporal && !given[file.Path] {
					t.Fatalf("%s listed %q, which is not one of the names", layout, file.Path)
				}
			}
			for _, s := range tree.Skipped {
				if used[s.Path] {
					t.Fatalf("%s both used and skipped %q", layout, s.Path)
				}
			}
		}
	})
}

// fuzzNames cuts the fuzzer's text into file names a directory could hold:
// no empty names, no separators, no NUL, no duplicates.
func fuzzNames(list string) []string {
	seen := map[string]bool{}
	var names []string
	for _, n := range strings.Split(list, "\n") {
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\x00") || seen[n] || len(names) >= 64 {
			continue
		}
		seen[n] = true
		names = append(names, n)
	}
	return names
}
