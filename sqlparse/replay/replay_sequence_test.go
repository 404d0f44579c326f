package replay

import (
	"strings"
	"testing"
)

// Sequences share the relation namespace with tables and indexes: the
// server refuses an index named like a serial's or identity's sequence, or
// like a standalone sequence, and replay must say the same.
func TestReplaySequencesTakeRelationNames(t *testing.T) {
	cat, diags := replayScript(t,
		"CREATE TABLE payments (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, ref text)",
		"CREATE UNIQUE INDEX payments_id_seq ON payments (ref)",
		"CREATE TABLE orders (id serial PRIMARY KEY, n int)",
		"CREATE SEQUENCE invoice_numbers",
		"CREATE INDEX invoice_numbers ON orders (n)",
		"DROP TABLE orders",
		"CREATE TABLE orders (id serial PRIMARY KEY, n int)",
		"DROP SEQUENCE invoice_numbers",
		"CREATE INDEX invoice_numbers ON orders (n)",
	)
	var got []string
	for _, d := range diags {
		got = append(got, d.Pos.String()+" "+d.SQLState+" "+d.Message)
	}
	want := []string{
		`m.sql:4:1 42P07 relation "payments_id_seq" already exists`,
		`m.sql:7:1 42P07 relation "invoice_numbers" already exists`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if mustTable(t, cat, "", "payments").Index("payments_id_seq") != nil {
		t.Error("the index named like the identity's sequence was created")
	}
	// orders was dropped and re-created: its sequence name is free again,
	// not orders_id_seq1.
	if _, ok := cat.Schema("public").Sequences["orders_id_seq"]; !ok {
		t.Errorf("sequences %v, want orders_id_seq owned by the re-created table", cat.Schema("public").Sequences)
	}
	mustIndex(t, mustTable(t, cat, "", "orders"), "invoice_numbers")
}
