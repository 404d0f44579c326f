package replay

import (
	"slices"
	"testing"
)

// TestReplayKeepsWhatAWitnessNeeds: the defaults, CHECK text, domain CHECKs
// and enum labels a copy of a table is made from, as each statement leaves
// them.
func TestReplayKeepsWhatAWitnessNeeds(t *testing.T) {
	cat, diags := replayScript(t,
		"CREATE TYPE mood AS ENUM ('sad', 'ok')",
		"ALTER TYPE mood ADD VALUE 'happy' AFTER 'ok'",
		"ALTER TYPE mood ADD VALUE 'glum' BEFORE 'sad'",
		"ALTER TYPE mood RENAME VALUE 'ok' TO 'fine'",
		"CREATE DOMAIN positive AS integer CHECK (VALUE > 0)",
		"ALTER DOMAIN positive ADD CONSTRAINT below_ten CHECK (VALUE < 10) NOT VALID",
		"CREATE TABLE t (id serial PRIMARY KEY, status text NOT NULL DEFAULT 'new', at timestamptz(3) DEFAULT now(), "+
			"n positive, m mood, CONSTRAINT status_known CHECK (status IN ('new', 'done')))",
		"ALTER TABLE t ALTER COLUMN at DROP DEFAULT",
		"ALTER TABLE t ALTER COLUMN n SET DEFAULT 1 + 1",
	)
	for _, d := range diags {
		t.Errorf("replay note: %s", d)
	}
	if got := cat.ResolveEnum("", "mood").Labels; !slices.Equal(got, []string{"glum", "sad", "fine", "happy"}) {
		t.Errorf("enum labels %q", got)
	}
	d := cat.ResolveDomain("", "positive")
	if len(d.Checks) != 2 || d.Checks[0].Name != "positive_check" || d.Checks[0].SQL != "value > 0" ||
		d.Checks[1].Name != "below_ten" || d.Checks[1].Validated {
		for _, ck := range d.Checks {
			t.Logf("domain check %s %q validated=%v", ck.Name, ck.SQL, ck.Validated)
		}
		t.Error("domain CHECKs not as written")
	}
	tb := mustTable(t, cat, "", "t")
	for col, want := range map[string]string{"id": "nextval('t_id_seq'::regclass)", "status": "'new'", "at": "", "n": "1 + 1", "m": ""} {
		if got := tb.Column(col).Default; got != want {
			t.Errorf("default of %s: %q, want %q", col, got, want)
		}
	}
	if got := tb.Column("at").Type; got != "timestamp(3) with time zone" {
		t.Errorf("type %q, want timestamp(3) with time zone as format_type prints it", got)
	}
	if ck := tb.Check("status_known"); ck == nil || ck.SQL != "status IN ('new', 'done')" {
		t.Errorf("CHECK text: %+v", ck)
	}
}
