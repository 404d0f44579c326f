package audit

import (
	"github.com/idemcheck/idemcheck/catalog"
)

// isNullOf is the conjunct "part IS NULL".
func isNullOf(part catalog.IndexPart) catalog.Expr {
	return &catalog.NullTest{Arg: partExpr(part), IsNull: true}
}

// CoveredBy returns another unique index of t that stops the duplicates
// escaping u through key part c (the rows where c is NULL), or nil. RULES.md
// "Covered holes": V's predicate is implied by u's predicate plus c IS NULL,
// every key part of V is a key part of u other than c or a column the
// table's CHECKs force NOT NULL when c is NULL, and V itself has no hole
// among those rows.
func CoveredBy(t *catalog.Table, u *catalog.Index, c catalog.IndexPart) *catalog.Index {
	rows := append(catalog.Conjuncts(u.Predicate), isNullOf(c))
	for _, v := range t.UniqueIndexes() {
		if v == u || !v.Ready || len(v.Parts) == 0 {
			continue
		}
		if !predicateImplied(v.Predicate, rows) {
			continue
		}
		if !partsWithin(t, v, u, c) {
			continue
		}
		if v.NullsNotDistinct || holeFree(t, v, rows) {
			return v
		}
	}
	return nil
}

// predicateImplied reports whether every conjunct of pred appears among the
// known conjuncts (after normalising NOT (x IS NULL) and friends).
func predicateImplied(pred catalog.Expr, known []catalog.Expr) bool {
	for _, need := range catalog.Conjuncts(pred) {
		found := false
		for _, have := range known {
			if catalog.Equal(normalise(need), normalise(have)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// partsWithin reports whether every key part of v is a key part of u other
// than c, or a column an exclusive-arc CHECK forces NOT NULL when c is NULL.
func partsWithin(t *catalog.Table, v, u *catalog.Index, c catalog.IndexPart) bool {
	for _, vp := range v.Parts {
		if samePart(vp, c) {
			return false
		}
		if hasPart(u, vp) {
			continue
		}
		if vp.Column != "" && arcForces(t, c, vp.Column) {
			continue
		}
		return false
	}
	return true
}

func samePart(a, b catalog.IndexPart) bool { return a.String() == b.String() }

func hasPart(ix *catalog.Index, p catalog.IndexPart) bool {
	for _, q := range ix.Parts {
		if samePart(p, q) {
			return true
		}
	}
	return false
}

// holeFree reports whether every key part of v is null-safe among rows that
// satisfy the given conjuncts as well as v's own predicate.
func holeFree(t *catalog.Table, v *catalog.Index, rows []catalog.Expr) bool {
	for _, p := range v.Parts {
		if !NullSafe(t, v, p, rows).Safe {
			return false
		}
	}
	return true
}

// arcForces reports whether a validated CHECK of t forces column d NOT NULL
// whenever key part c is NULL: the exclusive arc
// ((c IS NOT NULL) <> (d IS NOT NULL)), num_nonnulls(c, d) = 1, or
// (c IS NOT NULL OR d IS NOT NULL).
func arcForces(t *catalog.Table, c catalog.IndexPart, d string) bool {
	assume := env{partExpr(c).String(): isNull}
	target := &catalog.ColumnRef{Name: d}
	if samePart(c, catalog.IndexPart{Column: d}) {
		return false
	}
	for _, ck := range t.Checks {
		if ck.Validated && checkForces(ck.Expr, target, assume) {
			return true
		}
	}
	return false
}

// ArcPartners lists the columns of t that a validated CHECK forces NOT NULL
// whenever c is NULL. When there are any, NULL in c means "this row is of the
// other kind", and NULLS NOT DISTINCT or NOT NULL on c would be wrong.
func ArcPartners(t *catalog.Table, c catalog.IndexPart) []string {
	var out []string
	for _, col := range t.Columns {
		always := NullSafe(t, nil, catalog.IndexPart{Column: col.Name}, nil).Safe
		if !always && arcForces(t, c, col.Name) {
			out = append(out, col.Name)
		}
	}
	return out
}
