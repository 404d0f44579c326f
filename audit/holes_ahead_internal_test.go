package audit

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// Every hole read ahead on several goroutines is the one findHoleIn gives
// for the same index and reading when asked alone.
func TestReadHolesAheadIsFindHoleIn(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "CREATE TABLE parent_%d (id bigint PRIMARY KEY);\n", i)
		fmt.Fprintf(&b, "CREATE TABLE claim_%d (id bigint PRIMARY KEY, parent_id bigint REFERENCES parent_%d, kind text NOT NULL, "+
			"ref text, at timestamptz);\n", i, i)
		fmt.Fprintf(&b, "CREATE UNIQUE INDEX claim_%d_a ON claim_%d (kind, ref);\n", i, i)
		fmt.Fprintf(&b, "CREATE UNIQUE INDEX claim_%d_b ON claim_%d (parent_id, kind);\n", i, i)
	}
	cat := catalog.New()
	r := sqlparse.NewReplayer(cat)
	for _, st := range sqlparse.Split(sqlparse.Input{Path: "big.sql", Text: b.String()}).Statements {
		for _, d := range r.Apply(st) {
			t.Fatalf("%s", d)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), 2)))
	res := newResults(cat, r.History())
	res.readHolesAhead()
	if len(res.holes) < 2*holesPerWorker {
		t.Fatalf("%d holes read ahead: too few for a second goroutine", len(res.holes))
	}
	for key, h := range res.holes {
		c := cat
		if key.local {
			c = nil
		}
		var table *catalog.Table
		for _, tb := range cat.Tables() {
			if tb.Index(key.ix.Name) == key.ix {
				table = tb
			}
		}
		if want := findHoleIn(c, table, key.ix); !reflect.DeepEqual(h, want) {
			t.Errorf("%s (local %v): read ahead %+v, alone %+v", key.ix.Name, key.local, h, want)
		}
	}
}
