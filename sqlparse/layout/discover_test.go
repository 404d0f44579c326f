package layout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

const layoutsDir = "../../testdata/layouts"

// TestDiscoverLayouts checks, for one fixture tree per layout, the detected
// layout and the exact files chosen, in the order the tool applies them.
func TestDiscoverLayouts(t *testing.T) {
	cases := []struct {
		dir     string
		layout  Layout
		root    string
		files   []string // relative to root
		skipped int
	}{
		{"golang-migrate", LayoutGolangMigrate, "payments/migrations", []string{
			"1_create_customers.up.sql", "2_create_payments.up.sql", "10_unique_idempotency_key.up.sql"}, 3},
		{"goose", LayoutGoose, "db/migrations", []string{
			"1_create_accounts.sql", "2_create_transfers.sql", "10_transfers_request_id.sql"}, 0},
		{"dbmate", LayoutDbmate, "db/migrations", []string{
			"1_create_shops.sql", "2_create_orders.sql", "10_orders_client_token.sql"}, 0},
		{"sql-migrate", LayoutSQLMigrate, "migrations", []string{
			"1_init.sql", "2_invoice_lines.sql", "10_dedupe.sql"}, 0},
		{"tern", LayoutTern, "migrations", []string{
			"1_create_devices.sql", "2_device_vendor.sql", "10_device_owner.sql"}, 0},
		{"flyway", LayoutFlyway, "db/migration", []string{
			"V1__create_merchants.sql", "V1.9__create_refunds.sql", "V1.10__refunds_reference.sql",
			"V2__refund_reason.sql", "R__audit_functions.sql", "R__refund_totals.sql"}, 1},
		{"liquibase", LayoutLiquibase, "changelog", []string{
			"001-create-members.sql", "002-member-functions.sql"}, 0},
		{"dirs", LayoutDirs, "migrations", []string{
			"00000000000000_diesel_initial_setup/up.sql", "2019-02-26-002946_create_posts/up.sql",
			"2019-10-03-154210_posts_slug/up.sql"}, 3},
		{"prisma", LayoutPrisma, "prisma/migrations", []string{
			"20240101093000_init/migration.sql", "20240215170512_booking_keys/migration.sql"}, 0},
		{"sqitch", LayoutSqitch, "", []string{
			"deploy/zz_appschema.sql", "deploy/users.sql", "deploy/a_user_keys.sql"}, 6},
		{"temporal", LayoutTemporal, "versioned", []string{
			"v1.0/base.sql", "v1.2/timers.sql", "v1.9/signals.sql", "v1.10/signal_run.sql", "v1.10/add_signal_key.sql"}, 1},
		{"schema-deltas", LayoutSchemaDeltas, "storage/schema", []string{
			"common/schema_version.sql",
			"common/full_schemas/10/full.sql.postgres", "main/full_schemas/10/full.sql.postgres", "state/full_schemas/10/full.sql.postgres",
			"main/delta/11/01payments_request_key.sql", "main/delta/11/02payments_request_key_idx.sql.postgres",
			"state/delta/12/00state_group_heads.sql", "common/delta/12/01jobs_ordering.sql", "main/delta/12/02refunds.sql"}, 7},
		{"multi-dialect", LayoutMultiDialect, "migrations", []string{
			"1_sessions.postgres.up.sql", "2_session_user.up.sql", "10_session_token.autocommit.up.sql"}, 6},
		{"dump", LayoutDump, "db", []string{"structure.sql"}, 0},
		{"plain", LayoutPlain, "schema", []string{
			"1_extensions.sql", "2_tables.sql", "10_indexes.sql"}, 1},
	}
	seen := map[Layout]bool{}
	for _, c := range cases {
		seen[c.layout] = true
		t.Run(c.dir, func(t *testing.T) {
			path := filepath.Join(layoutsDir, c.dir)
			trees, diags := Discover([]string{path}, DiscoverOptions{})
			if len(diags) != 0 {
				t.Fatalf("diagnostics: %v", diags)
			}
			if len(trees) != 1 {
				t.Fatalf("got %d trees, want 1: %+v", len(trees), trees)
			}
			tree := trees[0]
			if tree.Layout != c.layout {
				t.Errorf("layout = %q, want %q", tree.Layout, c.layout)
			}
			root := filepath.Join(path, c.root)
			if tree.Root != root {
				t.Errorf("root = %q, want %q", tree.Root, root)
			}
			var want []string
			for _, f := range c.files {
				want = append(want, filepath.Join(root, f))
			}
			if got := filePaths(tree); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("files:\n got %q\nwant %q", got, want)
			}
			if len(tree.Skipped) != c.skipped {
				t.Errorf("skipped = %v, want %d", tree.Skipped, c.skipped)
			}
		})
	}
	for _, l := range Layouts() {
		if !seen[l] {
			t.Errorf("layout %q has no fixture tree", l)
		}
	}
}

func filePaths(tree Tree) []string {
	var paths []string
	for _, f := range tree.Files {
		paths = append(paths, f.Path)
	}
	return paths
}

// Under a layout that orders by version (here named with --layout: without
// it such a tree is read as plain, see TestDiscoverSharedVersionIsPlain),
// two files of one version are an error naming both, as in the tools.
func TestDiscoverDuplicateVersion(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"1_accounts.up.sql":  "CREATE TABLE accounts (id int);",
		"2_orders.up.sql":    "CREATE TABLE orders (id int);",
		"002_refunds.up.sql": "CREATE TABLE refunds (id int);",
		"3_keys.up.sql":      "CREATE TABLE keys (id int);",
	})
	trees, diags := Discover([]string{dir}, DiscoverOptions{Layout: LayoutGolangMigrate})
	if len(diags) != 1 || diags[0].Level != scan.Error {
		t.Fatalf("want one error, got %v", diags)
	}
	msg := diags[0].Message
	for _, name := range []string{"002_refunds.up.sql", "2_orders.up.sql"} {
		if !strings.Contains(msg, filepath.Join(dir, name)) {
			t.Errorf("error %q does not name %s", msg, name)
		}
	}
	got := filePaths(trees[0])
	want := []string{filepath.Join(dir, "1_accounts.up.sql"), filepath.Join(dir, "002_refunds.up.sql"), filepath.Join(dir, "3_keys.up.sql")}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files = %q, want %q (the other files still load)", got, want)
	}
}

func TestDiscoverLayoutOverride(t *testing.T) {
	// Without --layout these files look like a plain directory.
	dir := testtree.Write(t, map[string]string{
		"2_orders.sql":   "CREATE TABLE orders (id int);",
		"10_refunds.sql": "CREATE TABLE refunds (id int);",
		"1_init.sql":     "CREATE TABLE init (id int);",
	})
	trees, _ := Discover([]string{dir}, DiscoverOptions{})
	if trees[0].Layout != LayoutPlain {
		t.Fatalf("detected %q, want plain", trees[0].Layout)
	}
	trees, diags := Discover([]string{dir}, DiscoverOptions{Layout: LayoutGoose})
	if len(diags) != 0 || len(trees) != 1 {
		t.Fatalf("trees %v diags %v", trees, diags)
	}
	if trees[0].Layout != LayoutGoose || trees[0].Files[2].Version != "10" || trees[0].Files[2].Layout != LayoutGoose {
		t.Errorf("override not applied: %+v", trees[0])
	}
}

func TestDiscoverSingleFileAndSeveralPaths(t *testing.T) {
	single := filepath.Join(layoutsDir, "goose/db/migrations/2_create_transfers.sql")
	flyway := filepath.Join(layoutsDir, "flyway")
	trees, diags := Discover([]string{single, flyway}, DiscoverOptions{})
	if len(diags) != 0 || len(trees) != 2 {
		t.Fatalf("trees %d diags %v", len(trees), diags)
	}
	f := trees[0].Files[0]
	if trees[0].Layout != LayoutGoose || f.Path != single || f.Version != "2" || f.Name != "create_transfers" {
		t.Errorf("single file: %+v", trees[0])
	}
	if trees[1].Layout != LayoutFlyway || len(trees[1].Files) != 6 {
		t.Errorf("second path: %+v", trees[1])
	}
}

func TestDiscoverStdin(t *testing.T) {
	src := "-- migrate:up\nCREATE TABLE a (id int);\n-- migrate:down\nDROP TABLE a;\n"
	trees, diags := Discover([]string{"-"}, DiscoverOptions{Stdin: strings.NewReader(src)})
	if len(diags) != 0 || len(trees) != 1 {
		t.Fatalf("trees %v diags %v", trees, diags)
	}
	f := trees[0].Files[0]
	if f.Path != "<stdin>" || f.Layout != LayoutDbmate {
		t.Errorf("stdin file = %+v", f)
	}
	in, err := ReadUp(f)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(in.Text, "DROP") || !strings.Contains(in.Text, "CREATE TABLE a") {
		t.Errorf("up part of stdin = %q", in.Text)
	}
}

func TestDiscoverBadPaths(t *testing.T) {
	empty := testtree.Write(t, map[string]string{"README.md": "no SQL here"})
	missing := filepath.Join(empty, "does-not-exist")
	good := filepath.Join(layoutsDir, "plain")
	trees, diags := Discover([]string{missing, empty, good}, DiscoverOptions{})
	if len(trees) != 1 || trees[0].Layout != LayoutPlain {
		t.Errorf("the good path must still load: %+v", trees)
	}
	if len(diags) != 2 {
		t.Fatalf("want 2 errors, got %v", diags)
	}
	for i, p := range []string{missing, empty} {
		if diags[i].Level != scan.Error || !strings.Contains(diags[i].Message, p) {
			t.Errorf("diagnostic %d = %v, want an error naming %s", i, diags[i], p)
		}
	}
}

func TestDiscoverSymlinkLoop(t *testing.T) {
	dir := testtree.Write(t, map[string]string{"db/readme.txt": "x"})
	if err := os.Symlink("..", filepath.Join(dir, "db", "loop")); err != nil {
		t.Skip("symlinks not supported:", err)
	}
	if err := os.Symlink(".", filepath.Join(dir, "self")); err != nil {
		t.Fatal(err)
	}
	trees, diags := Discover([]string{dir}, DiscoverOptions{})
	// Discovery ends, and each link that leads back is an error naming it.
	if len(trees) != 0 || len(diags) != 2 {
		t.Fatalf("trees %v diags %v", trees, diags)
	}
	for i, link := range []string{filepath.Join(dir, "db", "loop"), filepath.Join(dir, "self")} {
		if diags[i].Level != scan.Error || !strings.HasPrefix(diags[i].Message, link+": symbolic link loop") {
			t.Errorf("diagnostic %d = %v, want a loop error naming %s", i, diags[i], link)
		}
	}
}

func TestDiscoverIgnoresHiddenAndVendor(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"node_modules/pkg/1_x.up.sql": "CREATE TABLE x (id int);",
		".git/1_y.up.sql":             "CREATE TABLE y (id int);",
		"vendor/1_z.up.sql":           "CREATE TABLE z (id int);",
		"app/migrations/1_a.up.sql":   "CREATE TABLE a (id int);",
	})
	trees, diags := Discover([]string{dir}, DiscoverOptions{})
	if len(diags) != 0 || len(trees) != 1 || trees[0].Root != filepath.Join(dir, "app/migrations") {
		t.Errorf("trees %+v diags %v", trees, diags)
	}
}

func TestParseLayout(t *testing.T) {
	if l, err := ParseLayout("Flyway"); err != nil || l != LayoutFlyway {
		t.Errorf("ParseLayout(Flyway) = %q, %v", l, err)
	}
	_, err := ParseLayout("rails")
	if err == nil || !strings.Contains(err.Error(), "golang-migrate") || !strings.Contains(err.Error(), "sqitch") {
		t.Errorf("error must list the valid names: %v", err)
	}
}

func TestSplitVersion(t *testing.T) {
	cases := map[string][2]string{
		"20190226_add.sql":                 {"20190226", "add"},
		"2019-02-26-002946_create_posts":   {"2019-02-26-002946", "create_posts"},
		"20230101_120000_create_users.sql": {"20230101_120000", "create_users"},
		"10_keys.sql":                      {"10", "keys"},
		"20240823204123_0_42_5.sql":        {"20240823204123", "0_42_5"},
		"20240821_0_42_3.sql":              {"20240821", "0_42_3"},
		"readme.sql":                       {"", "readme"},
	}
	for in, want := range cases {
		v, rest := splitVersion(in)
		if v != want[0] || rest != want[1] {
			t.Errorf("splitVersion(%q) = %q, %q; want %q, %q", in, v, rest, want[0], want[1])
		}
	}
}

func TestDiscoverSqitchRework(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"sqitch.plan": "%project=shop\nusers 2024-01-01T00:00:00Z A <a@example.com>\n@v1.0 2024-01-02T00:00:00Z A <a@example.com>\n" +
			"orders [users] 2024-01-03T00:00:00Z A <a@example.com>\nusers [users@v1.0] 2024-01-04T00:00:00Z A <a@example.com> # reworked\n",
		"deploy/users.sql":      "CREATE TABLE users (id int, email text);",
		"deploy/users@v1.0.sql": "CREATE TABLE users (id int);",
		"deploy/orders.sql":     "CREATE TABLE orders (id int);",
		"revert/users.sql":      "DROP TABLE users;",
	})
	trees, diags := Discover([]string{dir}, DiscoverOptions{})
	if len(diags) != 0 || len(trees) != 1 {
		t.Fatalf("trees %v diags %v", trees, diags)
	}
	want := []string{"deploy/users@v1.0.sql", "deploy/orders.sql", "deploy/users.sql"}
	for i, f := range trees[0].Files {
		if i >= len(want) || f.Path != filepath.Join(dir, want[i]) {
			t.Errorf("file %d = %s, want %s", i, f.Path, want)
		}
	}
	if len(trees[0].Skipped) != 1 {
		t.Errorf("skipped = %v, want 1 (revert script)", trees[0].Skipped)
	}
}

func TestDiscoverFlywayEqualVersions(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"V1__init.sql":    "SELECT 1;",
		"V1.0__again.sql": "SELECT 2;",
		"V1_1__next.sql":  "SELECT 3;",
		"V1.01__dup.sql":  "SELECT 4;",
	})
	trees, diags := Discover([]string{dir}, DiscoverOptions{})
	if len(diags) != 2 {
		t.Errorf("want 2 duplicate errors (1 = 1.0, 1_1 = 1.01), got %v", diags)
	}
	if len(trees) != 1 || len(trees[0].Files) != 2 {
		t.Errorf("trees %+v", trees)
	}
}

func TestDiscoverPrismaWithoutLockFile(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"20240110000000_second/migration.sql": "SELECT 2;",
		"20240101000000_first/migration.sql":  "SELECT 1;",
	})
	trees, diags := Discover([]string{dir}, DiscoverOptions{})
	if len(diags) != 0 || len(trees) != 1 || trees[0].Layout != LayoutPrisma ||
		trees[0].Files[0].Name != "first" || trees[0].Files[1].Version != "20240110000000" {
		t.Errorf("trees %+v diags %v", trees, diags)
	}
}
