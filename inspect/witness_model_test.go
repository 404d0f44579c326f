package inspect

import (
	"slices"
	"testing"
)

// TestReadWhatAWitnessNeeds: the live catalog has each column's default,
// each CHECK's text, each domain's CHECKs and each enum's labels in sort
// order, from the one batch of catalog queries.
func TestReadWhatAWitnessNeeds(t *testing.T) {
	dsn := newTestDB(t, `
CREATE TYPE mood AS ENUM ('sad', 'ok');
ALTER TYPE mood ADD VALUE 'glum' BEFORE 'sad';
CREATE DOMAIN positive AS integer CHECK (VALUE > 0);
CREATE TABLE t (id serial PRIMARY KEY, status text NOT NULL DEFAULT 'new', n positive, m mood,
  g integer GENERATED ALWAYS AS (n * 2) STORED,
  CONSTRAINT status_known CHECK (status IN ('new', 'done')));
`)
	s, snap := readTest(t, dsn, Filter{})
	cat := snap.Catalog
	if e := cat.ResolveEnum("", "mood"); e == nil || !slices.Equal(e.Labels, []string{"glum", "sad", "ok"}) {
		t.Errorf("enum: %+v", e)
	}
	d := cat.ResolveDomain("", "positive")
	if d == nil || len(d.Checks) != 1 || d.Checks[0].SQL != "VALUE > 0" || !d.Checks[0].Validated {
		t.Errorf("domain: %+v", d)
	}
	tb := cat.ResolveTable("", "t")
	for col, want := range map[string]string{"id": "nextval('t_id_seq'::regclass)", "status": "'new'::text", "n": "", "g": ""} {
		if got := tb.Column(col).Default; got != want {
			t.Errorf("default of %s: %q, want %q", col, got, want)
		}
	}
	if ck := tb.Check("status_known"); ck == nil || ck.SQL != "status = ANY (ARRAY['new'::text, 'done'::text])" {
		t.Errorf("CHECK text: %+v", ck)
	}
	if got := s.RoundTrips(); got != 2 {
		t.Errorf("%d round trips, want 2 (BEGIN with SETs, then one catalog batch)", got)
	}
}
