package audit_test

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// A schema large enough for the holes to be read on every core gives the
// findings one core gives, in the same order.
func TestHolesReadAheadMatchOneCore(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE DOMAIN flag AS boolean;\nCREATE TABLE org (id bigint PRIMARY KEY);\n")
	for i := range 60 {
		fmt.Fprintf(&b, "CREATE TABLE account_%d (id bigint PRIMARY KEY, name text);\n", i)
		fmt.Fprintf(&b, "CREATE TABLE charge_claim_%d (account_id bigint NOT NULL REFERENCES account_%d, kind text NOT NULL, "+
			"address text, namespace text, request_key text, deleted_at timestamptz);\n", i, i)
		fmt.Fprintf(&b, "CREATE UNIQUE INDEX charge_claim_%d_key ON charge_claim_%d (account_id, kind, address, namespace);\n", i, i)
		fmt.Fprintf(&b, "CREATE UNIQUE INDEX charge_claim_%d_request ON charge_claim_%d (request_key);\n", i, i)
		fmt.Fprintf(&b, "CREATE UNIQUE INDEX account_%d_name ON account_%d (name);\n", i, i)
	}
	// A domain and nullable references read differently with the whole
	// catalog at hand than with the table alone, so that the two readings
	// of each index cannot stand in for each other.
	for i := range 60 {
		fmt.Fprintf(&b, "CREATE TABLE setting_%d (id bigint PRIMARY KEY, org_id bigint REFERENCES org, enabled flag, "+
			"key text NOT NULL, project_id bigint REFERENCES account_%d);\n", i, i)
		fmt.Fprintf(&b, "CREATE UNIQUE INDEX setting_%d_key ON setting_%d (key, enabled);\n", i, i)
		fmt.Fprintf(&b, "CREATE UNIQUE INDEX setting_%d_scope ON setting_%d (key, org_id, project_id);\n", i, i)
	}
	src := b.String()
	old := runtime.GOMAXPROCS(1)
	one, _ := lintSource(t, "big.sql", src)
	runtime.GOMAXPROCS(max(old, 4))
	many, _ := lintSource(t, "big.sql", src)
	runtime.GOMAXPROCS(old)
	if len(one) < 60 {
		t.Fatalf("%d findings on one core: the schema no longer has a hole per table", len(one))
	}
	if !reflect.DeepEqual(one, many) {
		t.Errorf("%d findings on one core, %d on several, or the same number in another form", len(one), len(many))
	}
}
