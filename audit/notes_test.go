package audit_test

import (
	"strings"
	"testing"
)

// A DO block that alters the table with SQL built at run time is something
// replay cannot follow: the finding must say so, at the EXECUTE, and must not
// say so for a table the block never names.
func TestUnmodelledStatementNote(t *testing.T) {
	src := `CREATE TABLE events (org bigint NOT NULL, ext text);
CREATE TABLE events_archive (org bigint NOT NULL, ext text);
CREATE UNIQUE INDEX events_ext ON events (org, ext);
CREATE UNIQUE INDEX events_archive_ext ON events_archive (org, ext);
DO $$
BEGIN
  EXECUTE format('ALTER TABLE %I ALTER COLUMN ext SET NOT NULL', 'events');
END $$;
`
	fs, _ := lintSource(t, "notes.sql", src)
	if len(fs) != 2 {
		t.Fatalf("got %d findings, want 2", len(fs))
	}
	for _, f := range fs {
		notes := strings.Join(f.Notes, "\n")
		mentioned := strings.Contains(notes, "replay could not follow the statement at notes.sql:7:11")
		if want := f.Object == "public.events.events_ext"; mentioned != want {
			t.Errorf("%s: unmodelled note present = %v, want %v (notes %q)", f.Object, mentioned, want, notes)
		}
	}
}

// Replayed positions: a hole opened by DROP NOT NULL points at that
// statement, and a renamed index at its rename.
func TestRelatedPositionsFromReplay(t *testing.T) {
	src := `CREATE TABLE orders (shop bigint NOT NULL, ref text NOT NULL);
CREATE UNIQUE INDEX orders_ref_tmp ON orders (shop, ref);
ALTER TABLE orders ALTER COLUMN ref DROP NOT NULL;
ALTER INDEX orders_ref_tmp RENAME TO orders_ref;
`
	fs, _ := lintSource(t, "related.sql", src)
	fs = ofRule(fs, "nullable-key")
	if len(fs) != 1 {
		t.Fatalf("got %d findings, want 1", len(fs))
	}
	f := fs[0]
	if f.Pos.String() != "related.sql:2:1" {
		t.Errorf("Pos = %s, want the CREATE INDEX", f.Pos)
	}
	var got []string
	for _, r := range f.Related {
		got = append(got, r.Pos.String()+" "+r.Message)
	}
	want := []string{"related.sql:3:1 ref lost NOT NULL here", "related.sql:4:1 index renamed to orders_ref here"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("related = %q, want %q", got, want)
	}
}
