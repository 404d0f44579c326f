package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

func TestLoadAppliesInMigrationOrder(t *testing.T) {
	var applied []string
	apply := func(p *Parsed) []scan.Diagnostic {
		st := p.Statement
		applied = append(applied, st.Text)
		if strings.Contains(st.Text, "payments_customer_key") {
			return []scan.Diagnostic{{Level: scan.Note, Pos: st.Pos, Message: "applied the key"}}
		}
		return nil
	}
	stdin := strings.NewReader("\\set x 1\nCREATE TABLE from_stdin (id int);\n")
	res := Load([]string{filepath.Join(layoutsDir, "golang-migrate"), "no/such/dir", "-"},
		LoadOptions{Stdin: stdin, Apply: apply})
	wantApplied := []string{"CREATE TABLE customers", "CREATE TABLE payments", "CREATE UNIQUE INDEX payments_customer_key", "CREATE TABLE from_stdin"}
	if len(applied) != len(wantApplied) {
		t.Fatalf("applied %q", applied)
	}
	for i, w := range wantApplied {
		if !strings.HasPrefix(applied[i], w) {
			t.Errorf("applied[%d] = %q, want %q", i, applied[i], w)
		}
	}
	if res.Files != 4 || res.Statements != 4 || len(res.Trees) != 2 || res.SkippedFiles != 3 {
		t.Errorf("files %d statements %d trees %d skipped files %d", res.Files, res.Statements, len(res.Trees), res.SkippedFiles)
	}
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, d.Level.String()+" "+d.Message)
	}
	down := filepath.Join(layoutsDir, "golang-migrate/payments/migrations")
	want := []string{
		"note skipped " + filepath.Join(down, "10_unique_idempotency_key.down.sql") + ": a down migration",
		"note skipped " + filepath.Join(down, "1_create_customers.down.sql") + ": a down migration",
		"note skipped " + filepath.Join(down, "2_create_payments.down.sql") + ": a down migration",
		"note applied the key", "error no/such/dir: no such file or directory", `note skipped psql meta-command \set`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("diagnostics in input order:\n got %q\nwant %q", got, want)
	}
	key := filepath.Join(layoutsDir, "golang-migrate/payments/migrations/10_unique_idempotency_key.up.sql")
	if c := res.Comments[key]; len(c) != 1 || !strings.Contains(c[0].Text, "one payment per client key") {
		t.Errorf("comments of %s = %+v", key, c)
	}
}

func TestLoadBadFileKeepsOthers(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"1_a.up.sql": "CREATE TABLE a (id int);",
		"2_b.up.sql": "CREATE TABLE b (id int); SELECT 'unterminated;",
		"3_c.up.sql": "CREATE TABLE c (id int);",
	})
	res := Load([]string{dir}, LoadOptions{})
	if res.Files != 3 || res.Statements != 3 {
		t.Errorf("files %d statements %d, want 3 and 3", res.Files, res.Statements)
	}
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Level != scan.Error ||
		res.Diagnostics[0].Pos.String() != filepath.Join(dir, "2_b.up.sql")+":1:33" {
		t.Errorf("diagnostics = %v", res.Diagnostics)
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"2_b.up.sql": "CREATE TABLE b (id int);",
	})
	// A dangling link cannot be read, whoever runs the test (CI runs as root).
	broken := filepath.Join(dir, "1_a.up.sql")
	if err := os.Symlink(filepath.Join(dir, "moved-away.sql"), broken); err != nil {
		t.Skip("symlinks not supported:", err)
	}
	res := Load([]string{dir}, LoadOptions{})
	if res.Statements != 1 || len(res.Diagnostics) != 1 || res.Diagnostics[0].Level != scan.Error ||
		!strings.Contains(res.Diagnostics[0].Message, broken) {
		t.Errorf("statements %d diagnostics %v", res.Statements, res.Diagnostics)
	}
}

const layoutsDir = "../../testdata/layouts"
