package nullsafe

import (
	"slices"

	"github.com/idemcheck/idemcheck/catalog"
)

// IsNullOf is the conjunct "part IS NULL".
func IsNullOf(part catalog.IndexPart) catalog.Expr {
	return &catalog.NullTest{Arg: PartExpr(part), IsNull: true}
}

// CoveredBy returns another unique index of t that stops the duplicates
// escaping u through key part c (the rows where c is NULL), or nil. docs/rules.md
// "Holes another index already closes": V's predicate is implied by u's predicate plus c IS NULL,
// every key part of V is a key part of u other than c or a column the
// table's CHECKs force NOT NULL when c is NULL, and V itself has no hole
// among those rows.
func CoveredBy(t *catalog.Table, u *catalog.Index, c catalog.IndexPart) *catalog.Index {
	rows := append(catalog.Conjuncts(u.Predicate), IsNullOf(c))
	return coveringIndex(t, u, rows, []catalog.IndexPart{c}, nil)
}

// Covered reports whether the hole in u through c is closed by other unique
// indexes. Beyond CoveredBy, it splits the rows on each other nullable key
// part d: the rows where d is also NULL and those where it is not may be
// covered by different indexes, which is how the split of an index with
// several nullable parts works.
func Covered(t *catalog.Table, u *catalog.Index, c catalog.IndexPart) bool {
	return CoveredExcept(t, u, c, nil, nil)
}

// CoveredExcept is Covered where the rows in which one of the deliberate
// parts is NULL as well need no cover: they escape u by design. A covering
// index may also have the columns in scope, which keep apart the rows
// where c is NULL from outside u's key (the parent of what c references):
// it then stops every duplicate among them that matters.
func CoveredExcept(t *catalog.Table, u *catalog.Index, c catalog.IndexPart, deliberate []catalog.IndexPart, scope []string) bool {
	var undecided []catalog.IndexPart
	for _, p := range u.Parts {
		if !SamePart(p, c) && !NullSafe(t, u, p, nil).Safe {
			undecided = append(undecided, p)
		}
	}
	rows := append(catalog.Conjuncts(u.Predicate), IsNullOf(c))
	return coveredRows(t, u, rows, []catalog.IndexPart{c}, undecided, deliberate, scope)
}

// maxCaseSplit bounds the case analysis of Covered: 2^6 cases is far beyond
// any real index.
const maxCaseSplit = 6

func coveredRows(t *catalog.Table, u *catalog.Index, rows []catalog.Expr, nulls, undecided, deliberate []catalog.IndexPart, scope []string) bool {
	if coveringIndex(t, u, rows, nulls, scope) != nil {
		return true
	}
	if len(undecided) == 0 || len(nulls) > maxCaseSplit {
		return false
	}
	d, rest := undecided[0], undecided[1:]
	withNull := append(append([]catalog.Expr(nil), rows...), IsNullOf(d))
	withValue := append(append([]catalog.Expr(nil), rows...), &catalog.NullTest{Arg: PartExpr(d)})
	return (PartIn(d, deliberate) || coveredRows(t, u, withNull, append(append([]catalog.IndexPart(nil), nulls...), d), rest, deliberate, scope)) &&
		coveredRows(t, u, withValue, nulls, rest, deliberate, scope)
}

// coveringIndex finds a unique index other than u that is unique over the
// given rows, in which the parts in nulls are NULL; its key may also have
// the columns in scope.
func coveringIndex(t *catalog.Table, u *catalog.Index, rows []catalog.Expr, nulls []catalog.IndexPart, scope []string) *catalog.Index {
	for _, v := range t.UniqueIndexes() {
		if v == u || !v.Ready || len(v.Parts) == 0 {
			continue
		}
		if !PredicateImplied(v.Predicate, rows) {
			continue
		}
		if !partsWithin(t, v, u, nulls, scope) {
			continue
		}
		if v.NullsNotDistinct || holeFree(t, v, rows) {
			return v
		}
	}
	return nil
}

// PredicateImplied reports whether every conjunct of pred appears among the
// known conjuncts (after normalising NOT (x IS NULL) and friends).
func PredicateImplied(pred catalog.Expr, known []catalog.Expr) bool {
	for _, need := range catalog.Conjuncts(pred) {
		found := false
		for _, have := range known {
			if catalog.Equal(Normalise(need), Normalise(have)) {
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

// partsWithin reports whether every key part of v is a key part of u that
// is not NULL in these rows, a column an exclusive-arc CHECK forces NOT
// NULL when one of the NULL parts is NULL, or a column of scope. A NULLS
// NOT DISTINCT v may have u's NULL parts too: there NULL equals NULL.
func partsWithin(t *catalog.Table, v, u *catalog.Index, nulls []catalog.IndexPart, scope []string) bool {
	for _, vp := range v.Parts {
		if PartIn(vp, nulls) {
			if v.NullsNotDistinct && HasPart(u, vp) {
				continue
			}
			return false
		}
		if HasPart(u, vp) || ConstantPart(vp) {
			continue
		}
		if vp.Column != "" && (forcedByArc(t, nulls, vp.Column) || slices.Contains(scope, vp.Column)) {
			continue
		}
		return false
	}
	return true
}

// ConstantPart is a key part that reads no column, like the (true) of an
// index that allows one row: it tells no rows apart, so it weakens nothing.
func ConstantPart(p catalog.IndexPart) bool {
	return p.Column == "" && p.Expr != nil && len(catalog.ColumnsOf(p.Expr)) == 0
}

func forcedByArc(t *catalog.Table, nulls []catalog.IndexPart, d string) bool {
	for _, c := range nulls {
		if arcForces(t, c, d) {
			return true
		}
	}
	return false
}

// SamePart reports whether a and b are the same key part.
func SamePart(a, b catalog.IndexPart) bool { return a.String() == b.String() }

// PartIn reports whether p is one of parts.
func PartIn(p catalog.IndexPart, parts []catalog.IndexPart) bool {
	for _, q := range parts {
		if SamePart(p, q) {
			return true
		}
	}
	return false
}

// HasPart reports whether p is a key part of ix.
func HasPart(ix *catalog.Index, p catalog.IndexPart) bool {
	for _, q := range ix.Parts {
		if SamePart(p, q) {
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
	assume := env{PartExpr(c).String(): isNull}
	target := &catalog.ColumnRef{Name: d}
	if SamePart(c, catalog.IndexPart{Column: d}) {
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

// ArcIntent lists the columns a CHECK of t (validated or not: it states
// the design either way) forces non-NULL whenever c is NULL.
func ArcIntent(t *catalog.Table, c catalog.IndexPart) []string {
	var out []string
	for _, col := range t.Columns {
		if len(arcChecksFor(t, c, col)) > 0 {
			out = append(out, col.Name)
		}
	}
	return out
}

// ArcChecks are the CHECKs of t that make another nullable column non-NULL
// whenever c is NULL.
func ArcChecks(t *catalog.Table, c catalog.IndexPart) []*catalog.Check {
	var out []*catalog.Check
	for _, col := range t.Columns {
		for _, ck := range arcChecksFor(t, c, col) {
			if !containsCheck(out, ck) {
				out = append(out, ck)
			}
		}
	}
	return out
}

func arcChecksFor(t *catalog.Table, c catalog.IndexPart, col *catalog.Column) []*catalog.Check {
	if SamePart(c, catalog.IndexPart{Column: col.Name}) || col.IsNotNull() {
		return nil
	}
	target := &catalog.ColumnRef{Name: col.Name}
	var out []*catalog.Check
	for _, ck := range t.Checks {
		if checkForces(ck.Expr, target, env{PartExpr(c).String(): isNull}) {
			out = append(out, ck)
		}
	}
	return out
}

func containsCheck(list []*catalog.Check, ck *catalog.Check) bool {
	for _, x := range list {
		if x == ck {
			return true
		}
	}
	return false
}
