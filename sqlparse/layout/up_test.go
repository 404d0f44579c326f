package layout

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// readFixture reads the up part of one fixture file.
func readFixture(t *testing.T, layout Layout, rel string) scan.Input {
	t.Helper()
	p := filepath.Join(layoutsDir, rel)
	in, err := ReadUp(File{Path: p, Layout: layout, disk: p})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestUpParts checks, per layout, which statements of a fixture file are
// the up part, and the NoTransaction flag.
func TestUpParts(t *testing.T) {
	cases := []struct {
		layout Layout
		file   string
		want   []string // first word(s) of each statement
		noTx   bool
	}{
		{LayoutGoose, "goose/db/migrations/2_create_transfers.sql", []string{"CREATE TABLE transfers", "CREATE FUNCTION touch_transfer"}, false},
		{LayoutGoose, "goose/db/migrations/10_transfers_request_id.sql", []string{"CREATE UNIQUE INDEX CONCURRENTLY"}, true},
		{LayoutDbmate, "dbmate/db/migrations/2_create_orders.sql", []string{"CREATE TABLE orders"}, false},
		{LayoutDbmate, "dbmate/db/migrations/10_orders_client_token.sql", []string{"CREATE UNIQUE INDEX CONCURRENTLY"}, true},
		{LayoutSQLMigrate, "sql-migrate/migrations/2_invoice_lines.sql", []string{"CREATE TABLE invoice_lines", "CREATE FUNCTION line_count"}, false},
		{LayoutSQLMigrate, "sql-migrate/migrations/10_dedupe.sql", []string{"CREATE UNIQUE INDEX CONCURRENTLY"}, true},
		{LayoutTern, "tern/migrations/1_create_devices.sql", []string{"CREATE TABLE devices"}, false},
		{LayoutLiquibase, "liquibase/changelog/001-create-members.sql", []string{"CREATE TABLE members", "CREATE UNIQUE INDEX members_club_card"}, false},
		{LayoutLiquibase, "liquibase/changelog/002-member-functions.sql", []string{"CREATE FUNCTION member_count", "CREATE INDEX CONCURRENTLY"}, true},
		{LayoutGolangMigrate, "golang-migrate/payments/migrations/10_unique_idempotency_key.up.sql", []string{"CREATE UNIQUE INDEX payments_customer_key"}, false},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			in := readFixture(t, c.layout, c.file)
			r := scan.Split(in)
			if len(r.Statements) != len(c.want) {
				t.Fatalf("statements = %q, want %d starting %q", texts(r), len(c.want), c.want)
			}
			for i, st := range r.Statements {
				if !strings.HasPrefix(st.Text, c.want[i]) {
					t.Errorf("statement %d = %q, want it to start %q", i, st.Text, c.want[i])
				}
				if strings.Contains(st.Text, "DROP") {
					t.Errorf("down SQL in the up part: %q", st.Text)
				}
			}
			if in.NoTransaction != c.noTx {
				t.Errorf("NoTransaction = %v, want %v", in.NoTransaction, c.noTx)
			}
			if len(r.Diagnostics) != 0 {
				t.Errorf("diagnostics: %v", r.Diagnostics)
			}
		})
	}
}

func TestUpKeepsPositions(t *testing.T) {
	in := readFixture(t, LayoutDbmate, "dbmate/db/migrations/2_create_orders.sql")
	r := scan.Split(in)
	if p := r.Statements[0].Pos; p.Line != 2 || p.Col != 1 {
		t.Errorf("CREATE TABLE orders at %v, want line 2 col 1", p)
	}
	in = readFixture(t, LayoutLiquibase, "liquibase/changelog/001-create-members.sql")
	r = scan.Split(in)
	if p := r.Statements[1].Pos; p.Line != 12 {
		t.Errorf("second changeset at %v, want line 12", p)
	}
	for _, c := range r.Comments {
		if strings.Contains(c.Text, "rollback") {
			t.Errorf("rollback line kept as a comment: %+v", c)
		}
	}
}

func TestUpLiquibaseSplitStatementsFalse(t *testing.T) {
	src := "--liquibase formatted sql\n--changeset a:1 splitStatements:false\nSELECT 1; SELECT 2;\n--rollback SELECT 0;\n--changeset a:2\nSELECT 3; SELECT 4;\n"
	r := scan.Split(upPart(File{Path: "c.sql", Layout: LayoutLiquibase}, src))
	assertTexts(t, r, "SELECT 1; SELECT 2", "SELECT 3", "SELECT 4")
}

func TestUpMissingFile(t *testing.T) {
	_, err := ReadUp(File{Path: "gone.sql", disk: filepath.Join(t.TempDir(), "gone.sql")})
	if err == nil || !strings.Contains(err.Error(), "gone.sql") {
		t.Errorf("error = %v, want one naming gone.sql", err)
	}
}

func TestSplitGooseStatementBlock(t *testing.T) {
	src := "-- +goose Up\n" +
		"CREATE TABLE x (id int);\n" +
		"-- +goose StatementBegin\n" +
		"SELECT 1; SELECT 2;\n" +
		"-- +goose StatementEnd\n" +
		"CREATE TABLE y (id int);\n" +
		"-- +goose Down\n" +
		"DROP TABLE y;\n"
	in := upPart(File{Path: "g.sql", Layout: LayoutGoose}, src)
	if len(in.Text) != len(src) || strings.Count(in.Text, "\n") != strings.Count(src, "\n") {
		t.Fatalf("Text must keep offsets and lines")
	}
	r := scan.Split(in)
	assertTexts(t, r, "CREATE TABLE x (id int)", "SELECT 1; SELECT 2", "CREATE TABLE y (id int)")
	if p := r.Statements[1].Pos; p.Line != 4 || p.Col != 1 {
		t.Errorf("block statement at %v, want line 4", p)
	}
	if len(r.Statements[1].Comments) != 1 || !strings.Contains(r.Statements[1].Comments[0].Text, "StatementBegin") {
		t.Errorf("comments = %+v", r.Statements[1].Comments)
	}
}

// texts returns the statements' texts.
func texts(r scan.SplitResult) []string {
	var out []string
	for _, s := range r.Statements {
		out = append(out, s.Text)
	}
	return out
}

func assertTexts(t *testing.T, r scan.SplitResult, want ...string) {
	t.Helper()
	if got := texts(r); strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("statements:\n got %q\nwant %q", got, want)
	}
}
