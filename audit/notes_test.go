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

// Replayed positions: a hole opened after the index was created is placed
// at the last statement that opened it or renamed the index (docs/rules.md,
// "Messages and positions"); the creation and the earlier openings are related.
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
	if f.Pos.String() != "related.sql:4:1" {
		t.Errorf("Pos = %s, want the rename, the last statement that opened the hole", f.Pos)
	}
	var got []string
	for _, r := range f.Related {
		got = append(got, r.Pos.String()+" "+r.Message)
	}
	want := []string{"related.sql:2:1 unique index orders_ref created here", "related.sql:3:1 ref lost NOT NULL here"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("related = %q, want %q", got, want)
	}
}

// An ON CONFLICT claim stays where the statement is, and the migration that
// later opened its arbiter's hole is a related location: reporting only a
// change's findings must see it.
func TestOnConflictHoleRelatesTheOpening(t *testing.T) {
	src := `CREATE TABLE flags (id bigint PRIMARY KEY, name text NOT NULL, account_id bigint NOT NULL);
CREATE UNIQUE INDEX flags_name_account ON flags (name, account_id);
INSERT INTO flags (id, name, account_id) VALUES ($1, $2, $3) ON CONFLICT (name, account_id) DO NOTHING;
ALTER TABLE flags ALTER COLUMN account_id DROP NOT NULL;
`
	all, _ := lintSource(t, "conflict.sql", src)
	fs := ofRule(all, "on-conflict-hole")
	if len(fs) != 1 || fs[0].Pos.String() != "conflict.sql:3:1" {
		t.Fatalf("findings %+v, want one at the INSERT", fs)
	}
	var got []string
	for _, r := range fs[0].Related {
		got = append(got, r.Pos.String()+" "+r.Message)
	}
	want := []string{"conflict.sql:2:1 arbiter flags_name_account created here", "conflict.sql:4:1 account_id lost NOT NULL here"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("related = %q, want %q", got, want)
	}
}
