package fixsql

import (
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/layout"
)

var now = time.Date(2026, 11, 29, 23, 0, 0, 0, time.UTC)

// findings has one fix that runs in a transaction, one that cannot (two
// statements), and a suppressed finding whose fix must not be written.
func findings() []audit.Finding {
	return []audit.Finding{
		{Rule: "nullable-key", Object: "public.a.a_key", Pos: catalog.Pos{File: "/tmp/x/0001_a.up.sql", Line: 3, Col: 1},
			Fixes: []audit.Fix{{Title: "make b NOT NULL", SQL: "ALTER TABLE a ALTER COLUMN b SET NOT NULL;", Precheck: "SELECT * FROM a\nWHERE b IS NULL;"}}},
		{Rule: "nullable-key", Object: "public.c.c_key",
			Fixes: []audit.Fix{{Title: "partial index", NoTransaction: true,
				SQL: "CREATE UNIQUE INDEX CONCURRENTLY c_null ON c (a) WHERE b IS NULL;\nDROP INDEX CONCURRENTLY c_old;"}}},
		{Rule: "nullable-key", Object: "public.d.d_key", Suppressed: &audit.Suppression{Kind: "inline", Reason: "x"},
			Fixes: []audit.Fix{{Title: "never", SQL: "ALTER TABLE d ALTER COLUMN e SET NOT NULL;"}}},
	}
}

func names(files []File) string {
	var out []string
	for _, f := range files {
		out = append(out, f.Name)
	}
	return strings.Join(out, " ")
}

func TestMigrationNamesAndMarkers(t *testing.T) {
	cases := []struct {
		layout   layout.Layout
		existing []string
		names    string
		marker   string // in the file that cannot run in a transaction
	}{
		{layout.LayoutGolangMigrate, []string{"000007"},
			"000008_idemcheck_fixes.up.sql 000008_idemcheck_fixes.down.sql " +
				"000009_idemcheck_fixes_concurrently_1.up.sql 000009_idemcheck_fixes_concurrently_1.down.sql " +
				"000010_idemcheck_fixes_concurrently_2.up.sql 000010_idemcheck_fixes_concurrently_2.down.sql", ""},
		{layout.LayoutGoose, []string{"00041", "00042"}, "00043_idemcheck_fixes.sql 00044_idemcheck_fixes_concurrently.sql", "-- +goose NO TRANSACTION\n"},
		{layout.LayoutDbmate, []string{"20240101000000"}, "20261129230000_idemcheck_fixes.sql 20261129230001_idemcheck_fixes_concurrently.sql", "-- migrate:up transaction:false\n"},
		{layout.LayoutSQLMigrate, []string{"3"}, "4_idemcheck_fixes.sql 5_idemcheck_fixes_concurrently.sql", "-- +migrate Up notransaction\n"},
		{layout.LayoutFlyway, []string{"1", "2.1"}, "V3__idemcheck_fixes.sql V4__idemcheck_fixes_concurrently.sql V4__idemcheck_fixes_concurrently.sql.conf", ""},
	}
	for _, c := range cases {
		t.Run(string(c.layout), func(t *testing.T) {
			var existing []layout.File
			for _, v := range c.existing {
				existing = append(existing, layout.File{Version: v})
			}
			files, err := Migration(findings(), c.layout, existing, now)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(files); got != c.names {
				t.Errorf("names\n got  %s\n want %s", got, c.names)
			}
			all := ""
			for _, f := range files {
				all += f.Content
				if strings.Contains(f.Content, "CONCURRENTLY") && c.marker != "" && !strings.HasPrefix(f.Content, c.marker) {
					t.Errorf("%s does not start with %q:\n%s", f.Name, c.marker, f.Content)
				}
				if strings.Contains(f.Content, "SET NOT NULL") && strings.Contains(f.Content, "CONCURRENTLY") {
					t.Errorf("%s mixes transactional and CONCURRENTLY statements", f.Name)
				}
			}
			if strings.Contains(all, "d_key") {
				t.Error("a suppressed finding's fix was written")
			}
			if !strings.Contains(all, "--   WHERE b IS NULL;") {
				t.Errorf("precheck not written as a comment:\n%s", all)
			}
		})
	}
}

func TestMigrationUnsupportedLayout(t *testing.T) {
	if _, err := Migration(findings(), layout.LayoutPrisma, nil, now); err == nil || !strings.Contains(err.Error(), "file name") {
		t.Errorf("prisma: error %v, want advice to give a file name", err)
	}
}

func TestSingle(t *testing.T) {
	got := Single(findings())
	tx := strings.Index(got, "SET NOT NULL")
	noTx := strings.Index(got, "cannot run inside a transaction")
	conc := strings.Index(got, "CONCURRENTLY c_null")
	if tx < 0 || noTx < tx || conc < noTx {
		t.Errorf("want transactional fixes, then the marker, then CONCURRENTLY:\n%s", got)
	}
	if !strings.Contains(got, "(0001_a.up.sql:3:1)") {
		t.Errorf("finding position not named by its migration:\n%s", got)
	}
}

// TestSameFixWrittenOnce: two findings on one index (the hole, and the DROP
// NOT NULL that opened it) share their first fix; it is written once, under
// both, since rebuilding the index twice is wasted work on a large table.
func TestSameFixWrittenOnce(t *testing.T) {
	nnd := audit.Fix{Title: "rebuild t_key NULLS NOT DISTINCT", NoTransaction: true,
		SQL: "CREATE UNIQUE INDEX CONCURRENTLY t_key_nnd ON t (a, b) NULLS NOT DISTINCT;\nDROP INDEX CONCURRENTLY t_key;\nALTER INDEX t_key_nnd RENAME TO t_key;"}
	fs := []audit.Finding{
		{Rule: "nullable-key", Object: "public.t.t_key", Fixes: []audit.Fix{nnd}},
		{Rule: "not-null-dropped", Object: "public.t.t_key", Pos: catalog.Pos{File: "m/0002_b.up.sql", Line: 1, Col: 1}, Fixes: []audit.Fix{nnd}},
	}
	out := Single(fs)
	if n := strings.Count(out, "CREATE UNIQUE INDEX CONCURRENTLY t_key_nnd"); n != 1 {
		t.Errorf("the shared fix is written %d times:\n%s", n, out)
	}
	if !strings.Contains(out, "-- nullable-key public.t.t_key\n-- and not-null-dropped public.t.t_key (0002_b.up.sql:1:1)\n") {
		t.Errorf("the second finding is not named:\n%s", out)
	}
}

// TestWitnessAsBeforeCheck: a finding's witness goes into the fix file as
// a commented check to run on a copy before the fix, with the proof when
// --prove ran; a finding without one gets none.
func TestWitnessAsBeforeCheck(t *testing.T) {
	fs := findings()
	fs[0].Witness = &audit.Witness{Rows: []string{"INSERT INTO a (k, b) VALUES (1, NULL);", "INSERT INTO a (k, b) VALUES (1, NULL);"}}
	fs[0].Proof = &audit.Proof{Verdict: audit.Proven, Message: "proven: PostgreSQL 15.8 accepted both rows"}
	out := Single(fs)
	want := "-- before: on a copy of the table without its foreign keys, PostgreSQL accepts both rows below " +
		"(proven: PostgreSQL 15.8 accepted both rows); once this fix is applied it refuses them.\n" +
		"--   BEGIN;\n--   INSERT INTO a (k, b) VALUES (1, NULL);\n--   INSERT INTO a (k, b) VALUES (1, NULL);\n--   ROLLBACK;\n" +
		"ALTER TABLE a ALTER COLUMN b SET NOT NULL;\n"
	if !strings.Contains(out, want) {
		t.Errorf("the fix file lacks the before check:\n%s", out)
	}
	if strings.Count(out, "-- before:") != 1 {
		t.Errorf("a finding without a witness got a before check:\n%s", out)
	}
}
