package sqlparse

import (
	"path/filepath"
	"strings"
	"testing"
)

const layoutsDir = "../testdata/layouts"

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
			"deploy/zz_appschema.sql", "deploy/users.sql", "deploy/a_user_keys.sql"}, 3},
		{"multi-dialect", LayoutMultiDialect, "migrations", []string{
			"1_sessions.postgres.up.sql", "2_session_user.up.sql", "10_session_token.autocommit.up.sql"}, 3},
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
			if tree.Skipped != c.skipped {
				t.Errorf("skipped = %d, want %d", tree.Skipped, c.skipped)
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
