package layout

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// treeFiles lists every file of every tree, in replay order, relative to
// base.
func treeFiles(t *testing.T, trees []Tree, base string) []string {
	t.Helper()
	var out []string
	for _, tree := range trees {
		for _, f := range tree.Files {
			rel, err := filepath.Rel(base, f.Path)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// skippedFiles lists every tree's skipped files relative to base, with
// their reasons.
func skippedFiles(t *testing.T, trees []Tree, base string) []string {
	t.Helper()
	var out []string
	for _, tree := range trees {
		for _, s := range tree.Skipped {
			rel, err := filepath.Rel(base, s.Path)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(rel)+": "+s.Reason)
		}
	}
	return out
}

func assertList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// Version folders named by number (<major>/<minor>_name.up.sql) are
// replayed in numeric order: 1, 2, 10, 100, not 1, 10, 100, 2.
func TestDiscoverNestedVersionFolders(t *testing.T) {
	root := filepath.Join(layoutsDir, "nested/migrations")
	trees, diags := Discover([]string{root}, DiscoverOptions{})
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	var roots []string
	for _, tree := range trees {
		if tree.Layout != LayoutGolangMigrate {
			t.Errorf("%s: layout %s, want golang-migrate", tree.Root, tree.Layout)
		}
		roots = append(roots, filepath.Base(tree.Root))
	}
	assertList(t, "version folders", roots, []string{"1", "2", "10", "100"})
	assertList(t, "files", treeFiles(t, trees, root), []string{
		"1/1_create_shops.up.sql", "2/1_create_carts.up.sql", "10/1_cart_checkout_token.up.sql",
		"10/2_cart_checkout_key.up.sql", "100/1_cart_expiry.up.sql"})
}

// temporal-sql-tool's versioned/v{version} folders are applied by version
// (1.9 before 1.10), each folder's files in the order its manifest.json
// names them; a file the manifest does not name is skipped.
func TestDiscoverTemporalManifests(t *testing.T) {
	root := filepath.Join(layoutsDir, "temporal/versioned")
	for _, path := range []string{filepath.Join(layoutsDir, "temporal"), root} {
		trees, diags := Discover([]string{path}, DiscoverOptions{})
		if len(diags) != 0 {
			t.Fatalf("diagnostics: %v", diags)
		}
		if len(trees) != 1 || trees[0].Layout != LayoutTemporal || trees[0].Root != root {
			t.Fatalf("%s: trees %+v, want one temporal tree at %s", path, trees, root)
		}
		assertList(t, "files", treeFiles(t, trees, root), []string{
			"v1.0/base.sql", "v1.2/timers.sql", "v1.9/signals.sql",
			"v1.10/signal_run.sql", "v1.10/add_signal_key.sql"})
		assertList(t, "skipped", skippedFiles(t, trees, root), []string{
			"v1.10/draft_combined.sql: not named in v1.10/manifest.json, so temporal-sql-tool does not run it"})
		if v := trees[0].Files[4].Version; v != "1.10" {
			t.Errorf("version of the last file = %q, want 1.10", v)
		}
	}
}

// A version folder's manifest that names a missing file, or no manifest at
// all, is an error naming the folder; the other folders still load.
func TestDiscoverTemporalBadManifest(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"v1.0/manifest.json": `{"CurrVersion": "1.0", "SchemaUpdateCqlFiles": ["base.sql"]}`,
		"v1.0/base.sql":      "CREATE TABLE a (id int);",
		"v1.1/manifest.json": `{"CurrVersion": "1.1", "SchemaUpdateCqlFiles": ["gone.sql"]}`,
		"v1.2/manifest.json": `{"CurrVersion": "1.2", "SchemaUpdateCqlFiles": [`,
		"v1.3/manifest.json": `{"CurrVersion": "1.3", "SchemaUpdateCqlFiles": ["c.sql"]}`,
		"v1.3/c.sql":         "CREATE TABLE c (id int);",
	})
	trees, diags := Discover([]string{dir}, DiscoverOptions{})
	if len(trees) != 1 {
		t.Fatalf("trees %+v", trees)
	}
	assertList(t, "files", treeFiles(t, trees, dir), []string{"v1.0/base.sql", "v1.3/c.sql"})
	var got []string
	for _, d := range diags {
		got = append(got, d.Level.String()+" "+strings.ReplaceAll(d.Message, dir+string(filepath.Separator), ""))
	}
	assertList(t, "diagnostics", got, []string{
		`error v1.1/manifest.json names gone.sql, which does not exist`,
		`error v1.2/manifest.json: cannot read it as JSON: unexpected end of JSON input`,
	})
}

// Prisma applies every folder, in folder-name order, even when two share a
// timestamp.
func TestDiscoverPrismaSharedTimestamp(t *testing.T) {
	root := filepath.Join(layoutsDir, "prisma-shared-timestamp/prisma/migrations")
	trees, diags := Discover([]string{filepath.Join(layoutsDir, "prisma-shared-timestamp")}, DiscoverOptions{})
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if len(trees) != 1 || trees[0].Layout != LayoutPrisma {
		t.Fatalf("trees %+v", trees)
	}
	assertList(t, "files", treeFiles(t, trees, root), []string{
		"20240301120000_init/migration.sql",
		"20240517083000_a_create_holds/migration.sql",
		"20240517083000_b_hold_keys/migration.sql"})
}

// A tree of .up.sql files in which two files share a version is not a
// golang-migrate tree (golang-migrate refuses it): it is read as plain, every
// up file in natural order, and a note says why.
func TestDiscoverSharedVersionIsPlain(t *testing.T) {
	root := filepath.Join(layoutsDir, "shared-version/migrations")
	trees, diags := Discover([]string{root}, DiscoverOptions{})
	if len(trees) != 1 || trees[0].Layout != LayoutPlain {
		t.Fatalf("trees %+v, want one plain tree", trees)
	}
	assertList(t, "files", treeFiles(t, trees, root), []string{
		"0001_create_a_members.up.sql", "0001_create_b_invites.up.sql",
		"0002_invite_expiry.up.sql", "0010_member_names.up.sql"})
	assertList(t, "skipped", skippedFiles(t, trees, root), []string{
		"0001_create_a_members.down.sql: a down migration",
		"0001_create_b_invites.down.sql: a down migration"})
	if len(diags) != 1 || diags[0].Level != scan.Note ||
		!strings.Contains(diags[0].Message, "0001_create_a_members.up.sql and 0001_create_b_invites.up.sql share version 0001") ||
		!strings.Contains(diags[0].Message, "read as plain") {
		t.Errorf("diagnostics = %v, want one note saying why the tree is plain", diags)
	}

	// Named explicitly, golang-migrate keeps its own rule: an error that
	// names both files.
	trees, diags = Discover([]string{root}, DiscoverOptions{Layout: LayoutGolangMigrate})
	if len(diags) != 1 || diags[0].Level != scan.Error || !strings.Contains(diags[0].Message, "duplicate migration version 0001") {
		t.Errorf("--layout golang-migrate: diagnostics %v", diags)
	}
	if len(trees) != 1 || len(trees[0].Files) != 3 {
		t.Errorf("--layout golang-migrate: trees %+v", trees)
	}
}

// Every file a layout leaves out is listed with the reason, whatever the
// layout: down and undo files, other databases' files, files the tool does
// not recognise.
func TestDiscoverListsSkippedFiles(t *testing.T) {
	cases := []struct {
		name   string
		layout Layout
		files  map[string]string
		want   []string
	}{
		{"golang-migrate", "", map[string]string{
			"1_a.up.sql": "SELECT 1;", "1_a.down.sql": "SELECT 2;", "2_b.up.sql": "SELECT 3;", "seed.sql": "SELECT 4;"},
			[]string{"1_a.down.sql: a down migration", "seed.sql: not named {version}_{title}.up.sql, so golang-migrate does not apply it"}},
		{"goose", LayoutGoose, map[string]string{
			"1_a.sql": "-- +goose Up\nSELECT 1;", "notes.sql": "SELECT 2;"},
			[]string{"notes.sql: no version number in its name, so goose does not apply it"}},
		{"flyway", "", map[string]string{
			"V1__a.sql": "SELECT 1;", "U1__a.sql": "SELECT 2;", "afterMigrate.sql": "SELECT 3;"},
			[]string{"U1__a.sql: an undo migration", "afterMigrate.sql: not named V{version}__{desc}.sql or R__{desc}.sql, so Flyway does not apply it as a migration"}},
		{"multi-dialect", "", map[string]string{
			"1_a.postgres.up.sql": "SELECT 1;", "1_a.up.sql": "SELECT 2;", "1_a.mysql.up.sql": "SELECT 3;", "1_a.down.sql": "SELECT 4;"},
			[]string{"1_a.down.sql: a down migration", "1_a.mysql.up.sql: a mysql migration", "1_a.up.sql: version 1 has a postgres file, 1_a.postgres.up.sql"}},
		{"dirs", "", map[string]string{
			"2019-01-01-000000_a/up.sql": "SELECT 1;", "2019-01-01-000000_a/down.sql": "SELECT 2;"},
			[]string{"2019-01-01-000000_a/down.sql: a down migration"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := testtree.Write(t, c.files)
			trees, diags := Discover([]string{dir}, DiscoverOptions{Layout: c.layout})
			if len(diags) != 0 || len(trees) != 1 {
				t.Fatalf("trees %+v diags %v", trees, diags)
			}
			assertList(t, "skipped", skippedFiles(t, trees, dir), c.want)
		})
	}
}
