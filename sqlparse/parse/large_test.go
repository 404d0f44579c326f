package parse

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// A statement with more list items than MaxParseItems is refused before the
// parser sees it, naming its place and size: an error for DDL, a note for
// an INSERT. Long literals are one item each, so a big function body or
// string still parses.
func TestTooLargeToParse(t *testing.T) {
	over := checkInList(0, MaxParseItems+1)
	st := scan.NewStatement("big.sql", over, 0)
	p := Parse(st)
	if p.Err == nil || p.Err.Level != scan.Error || p.Err.Pos.File != "big.sql" || p.Err.Pos.Line != 1 ||
		!strings.Contains(p.Err.Message, "statement of 672 KiB with 100003 list items is too large to check") {
		t.Fatalf("over the limit: %+v", p.Err)
	}
	insert := "INSERT INTO t (a) VALUES " + strings.Repeat("(1), ", MaxParseItems/2) + "(1) ON CONFLICT DO NOTHING"
	if p := Parse(scan.NewStatement("seed.sql", insert, 0)); p.Err == nil || p.Err.Level != scan.Note || !strings.Contains(p.Err.Message, "only the on-conflict rules miss it") {
		t.Errorf("a large INSERT: %+v", p.Err)
	}
	if p := Parse(scan.NewStatement("ok.sql", checkInList(0, MaxParseItems-10), 0)); p.Err != nil || len(p.Stmts) != 1 {
		t.Errorf("under the limit: %+v", p.Err)
	}
	body := "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT " + strings.Repeat("1, ", 3*MaxParseItems) + "1 $$"
	if p := Parse(scan.NewStatement("fn.sql", body, 0)); p.Err != nil {
		t.Errorf("a long function body is one literal: %+v", p.Err)
	}
}
