package inspect

import (
	"context"
	"testing"
	"time"
)

func openTest(t *testing.T, dsn string) *Session {
	t.Helper()
	s, err := Open(context.Background(), Config{DSN: dsn, Timeout: 10 * time.Second, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func TestSmoke(t *testing.T) {
	dsn := newTestDB(t, `CREATE TABLE events (id bigint PRIMARY KEY, org bigint NOT NULL, sub text, tx text,
		UNIQUE (org, sub, tx));
		CREATE UNIQUE INDEX ev_lower ON events (org, lower(tx)) INCLUDE (sub) WHERE sub IS NOT NULL;`)
	s := openTest(t, dsn)
	snap, err := s.ReadCatalog(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range snap.Catalog.Tables() {
		t.Logf("%+v", *tb)
		for _, c := range tb.Columns {
			t.Logf("  col %+v", *c)
		}
		for _, ix := range tb.Indexes {
			t.Logf("  ix %+v %v", *ix, snap.IndexText[ix])
		}
	}
	t.Logf("trips %d", s.RoundTrips())
}
