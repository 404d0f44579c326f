package catalog

import (
	"slices"
	"testing"
)

// taken reports the names of list the schema has taken, as relations and
// as constraints, in one string per namespace.
func taken(s *Schema, list ...string) (relations, constraints []string) {
	for _, n := range list {
		if s.RelationExists(n) {
			relations = append(relations, n)
		}
		if s.ConstraintExists(n) {
			constraints = append(constraints, n)
		}
	}
	return relations, constraints
}

func TestChangesKeepTheNameMap(t *testing.T) {
	c := New()
	c.AddSchema("billing")
	pub, billing := c.Schema("public"), c.Schema("billing")
	acc := &Table{Schema: "public", Name: "accounts", Columns: []*Column{{Name: "id"}, {Name: "email"}},
		Indexes: []*Index{{Name: "accounts_pkey", Constraint: "accounts_pkey", Primary: true, Parts: []IndexPart{{Column: "id"}}}}}
	c.AddTable(acc)
	pub.AddSequence("accounts_id_seq", "accounts")
	// Ask once, so that what follows must keep the map rather than build it.
	if !pub.RelationExists("accounts_pkey") || !pub.ConstraintExists("accounts_pkey") {
		t.Fatal("a table added with its primary key: the key's name is not taken")
	}
	pay := &Table{Schema: "public", Name: "payments", Columns: []*Column{{Name: "account_id"}, {Name: "ref"}}}
	c.AddTable(pay)
	ix := &Index{Name: "payments_ref_idx", Parts: []IndexPart{{Column: "ref"}}, Include: []string{"account_id"},
		Predicate: &NullTest{Arg: &ColumnRef{Name: "account_id"}}}
	c.AddIndex(pay, ix)
	ck := &Check{Name: "payments_ref_check", Expr: &NullTest{Arg: &ColumnRef{Name: "ref"}}}
	c.AddCheck(pay, ck)
	fk := &ForeignKey{Name: "payments_account_id_fkey", Columns: []string{"account_id"}, RefTable: "public.accounts", RefColumns: []string{"id"}}
	c.AddForeignKey(pay, fk)

	names := []string{"accounts", "accounts_pkey", "accounts_id_seq", "payments", "payments_ref_idx", "payments_ref_check",
		"payments_account_id_fkey", "payments_ref_key", "refs", "payments_check"}
	rel, cons := taken(pub, names...)
	if want := []string{"accounts", "accounts_pkey", "accounts_id_seq", "payments", "payments_ref_idx"}; !slices.Equal(rel, want) {
		t.Errorf("relations taken %v, want %v", rel, want)
	}
	if want := []string{"accounts_pkey", "payments_ref_check", "payments_account_id_fkey"}; !slices.Equal(cons, want) {
		t.Errorf("constraints taken %v, want %v", cons, want)
	}
	if got, _ := pub.FindIndex("payments_ref_idx"); got != pay {
		t.Errorf("FindIndex(payments_ref_idx) = %v, want payments", got)
	}

	c.RenameIndex(pay, ix, "payments_ref_key")
	c.SetIndexConstraint(pay, ix, "payments_ref_key")
	c.RenameConstraint(pay, "payments_ref_check", "payments_check")
	c.RenameColumn(acc, "id", "account_no")
	c.RenameColumn(pay, "account_id", "acc")
	rel, cons = taken(pub, names...)
	if slices.Contains(rel, "payments_ref_idx") || !slices.Contains(rel, "payments_ref_key") || !slices.Contains(cons, "payments_ref_key") {
		t.Errorf("after renaming the index: relations %v, constraints %v", rel, cons)
	}
	if slices.Contains(cons, "payments_ref_check") || !slices.Contains(cons, "payments_check") {
		t.Errorf("after renaming the CHECK: constraints %v", cons)
	}
	if fk.RefColumns[0] != "account_no" || fk.Columns[0] != "acc" || ix.Include[0] != "acc" ||
		ix.Predicate.String() != "acc IS NOT NULL" || acc.Indexes[0].Parts[0].Column != "account_no" {
		t.Errorf("a renamed column is still used by its old name: key %v -> %v, include %v, predicate %s",
			fk.Columns, fk.RefColumns, ix.Include, ix.Predicate)
	}

	c.RenameRelation(acc, "customers")
	if fk.RefTable != "public.customers" || pub.RelationExists("accounts") || !pub.RelationExists("customers") {
		t.Errorf("after the rename: foreign key refers to %s, accounts taken %v", fk.RefTable, pub.RelationExists("accounts"))
	}
	c.MoveTable(pay, billing)
	if pub.RelationExists("payments") || pub.RelationExists("payments_ref_key") || pub.ConstraintExists("payments_check") {
		t.Error("a table moved to another schema left its names behind")
	}
	if !billing.RelationExists("payments_ref_key") || !billing.ConstraintExists("payments_account_id_fkey") {
		t.Error("a table moved to another schema did not take its names there")
	}
	if !c.DropIndex(pay, ix) || billing.RelationExists("payments_ref_key") || billing.ConstraintExists("payments_ref_key") {
		t.Error("a dropped index still takes its name")
	}
	if !c.DropForeignKey(pay, fk) || billing.ConstraintExists("payments_account_id_fkey") {
		t.Error("a dropped foreign key still takes its name")
	}
	seq := &Table{Schema: "public", Name: "events"}
	c.AddTable(seq)
	pub.AddSequence("events_id_seq", "events")
	c.DropTable(seq)
	c.DropTable(acc)
	rel, cons = taken(pub, "customers", "accounts_pkey", "events", "events_id_seq")
	if len(rel)+len(cons) > 0 {
		t.Errorf("a dropped table still takes %v and %v", rel, cons)
	}
}

func TestConstraintNamesSharedByTables(t *testing.T) {
	c := New()
	a := &Table{Schema: "public", Name: "a", Checks: []*Check{{Name: "positive"}}}
	b := &Table{Schema: "public", Name: "b", Checks: []*Check{{Name: "positive"}}}
	c.AddTable(a)
	c.AddTable(b)
	s := c.Schema("public")
	if !s.ConstraintExists("positive") {
		t.Fatal("CHECK positive not found")
	}
	c.DropCheck(a, a.Checks[0])
	if !s.ConstraintExists("positive") {
		t.Error("b's CHECK positive was forgotten when a's went")
	}
	c.DropTable(b)
	if s.ConstraintExists("positive") {
		t.Error("CHECK positive is still taken after both went")
	}
}
