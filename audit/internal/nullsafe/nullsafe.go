// Package nullsafe is the null-safety reasoner the audit rules share: it
// proves when a key part of a unique index is never NULL (NullSafe), when
// other unique indexes close the rows where it is (Covered, CoveredBy), and
// which columns an exclusive-arc CHECK forces when another is NULL. It
// evaluates expressions in SQL's three-valued logic and never claims
// "safe" without a proof: whatever it cannot follow (an unknown function, an
// expression nested too deep) leaves the part unproven.
//
// It also orders the positions of a replayed history (History), which the
// rules about how a hole was opened read.
package nullsafe

import (
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// truth is a set of SQL three-valued outcomes an expression may take. A
// non-boolean value that is not NULL is modelled as "true or false": all the
// reasoner ever asks of a value is whether it can be NULL.
type truth uint8

const (
	tTrue truth = 1 << iota
	tFalse
	tNull

	tNonNull = tTrue | tFalse
	tAny     = tTrue | tFalse | tNull
)

func (s truth) has(x truth) bool { return s&x != 0 }

// nullState is what the reasoner assumes about an expression while it
// evaluates another one.
type nullState int

const (
	isNull nullState = iota + 1
	notNull
)

// env maps an expression's SQL text (catalog.Expr.String) to an assumption.
// Keying by text lets an expression key part be assumed NULL exactly like a
// column.
type env map[string]nullState

// eval returns every outcome e may have under the assumptions in en.
func eval(e catalog.Expr, en env) truth {
	if e == nil {
		return tAny
	}
	switch en[e.String()] {
	case isNull:
		return tNull
	case notNull:
		return tNonNull
	}
	switch x := e.(type) {
	case *catalog.ColumnRef:
		return tAny
	case *catalog.Const:
		return evalConst(x)
	case *catalog.NullTest:
		return mapTruth(eval(x.Arg, en), func(v truth) truth {
			if (v == tNull) == x.IsNull {
				return tTrue
			}
			return tFalse
		})
	case *catalog.BoolTest:
		return evalBoolTest(x, en)
	case *catalog.Not:
		return mapTruth(eval(x.Arg, en), func(v truth) truth {
			switch v {
			case tTrue:
				return tFalse
			case tFalse:
				return tTrue
			}
			return tNull
		})
	case *catalog.And:
		return foldTruth(x.Args, en, tTrue, and3)
	case *catalog.Or:
		return foldTruth(x.Args, en, tFalse, or3)
	case *catalog.Compare:
		return evalCompare(x, en)
	case *catalog.Func:
		return evalFunc(x, en)
	}
	return tAny
}

func evalConst(c *catalog.Const) truth {
	if c.Null {
		return tNull
	}
	switch strings.ToLower(strings.Trim(c.Value, "'")) {
	case "true", "t":
		return tTrue
	case "false", "f":
		return tFalse
	}
	return tNonNull
}

// mapTruth applies fn to each single outcome of s and unions the results.
func mapTruth(s truth, fn func(truth) truth) truth {
	var out truth
	for _, v := range []truth{tTrue, tFalse, tNull} {
		if s.has(v) {
			out |= fn(v)
		}
	}
	return out
}

func combine(a, b truth, op func(x, y truth) truth) truth {
	var out truth
	for _, x := range []truth{tTrue, tFalse, tNull} {
		for _, y := range []truth{tTrue, tFalse, tNull} {
			if a.has(x) && b.has(y) {
				out |= op(x, y)
			}
		}
	}
	return out
}

func foldTruth(args []catalog.Expr, en env, start truth, op func(x, y truth) truth) truth {
	acc := start
	for _, a := range args {
		acc = combine(acc, eval(a, en), op)
	}
	return acc
}

func and3(x, y truth) truth {
	switch {
	case x == tFalse || y == tFalse:
		return tFalse
	case x == tNull || y == tNull:
		return tNull
	}
	return tTrue
}

func or3(x, y truth) truth {
	switch {
	case x == tTrue || y == tTrue:
		return tTrue
	case x == tNull || y == tNull:
		return tNull
	}
	return tFalse
}

func evalBoolTest(b *catalog.BoolTest, en env) truth {
	return mapTruth(eval(b.Arg, en), func(v truth) truth {
		var hit bool
		switch strings.TrimPrefix(b.Test, "NOT ") {
		case "TRUE":
			hit = v == tTrue
		case "FALSE":
			hit = v == tFalse
		case "UNKNOWN":
			hit = v == tNull
		default:
			return tNonNull
		}
		if strings.HasPrefix(b.Test, "NOT ") {
			hit = !hit
		}
		if hit {
			return tTrue
		}
		return tFalse
	})
}

// evalCompare treats every comparison as strict (NULL in, NULL out) except
// IS [NOT] DISTINCT FROM, which never yields NULL.
func evalCompare(c *catalog.Compare, en env) truth {
	if out, ok := evalCount(c, en); ok {
		return out
	}
	left := eval(c.Left, en)
	switch c.Op {
	case "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
		return tNonNull
	case "IN", "NOT IN", "= ANY", "<> ANY", "= ALL", "<> ALL":
		// The right side may hold NULLs, which makes a miss NULL: only a
		// NULL left side is certain.
		out := truth(0)
		if left.has(tNull) {
			out |= tNull
		}
		if left&tNonNull != 0 {
			out |= tAny
		}
		return out
	}
	right := eval(c.Right, en)
	if c.Op == "=" || c.Op == "<>" || c.Op == "!=" {
		if out, ok := compareBools(left, right, c.Op == "="); ok {
			return out
		}
	}
	return strictOf(left, right)
}

// compareBools decides = and <> between two expressions whose outcomes are
// each certain booleans, as in the exclusive-arc CHECK
// ((a IS NOT NULL) <> (b IS NOT NULL)).
func compareBools(left, right truth, equal bool) (truth, bool) {
	single := func(v truth) bool { return v == tTrue || v == tFalse }
	if !single(left) || !single(right) {
		return 0, false
	}
	if (left == right) == equal {
		return tTrue, true
	}
	return tFalse, true
}

// strictOf is the outcome of a strict operation that never returns NULL on
// non-NULL input, given its arguments' outcomes.
func strictOf(args ...truth) truth {
	var out truth
	allNonNull := true
	for _, a := range args {
		if a.has(tNull) {
			out |= tNull
		}
		if a&tNonNull == 0 {
			allNonNull = false
		}
	}
	if allNonNull {
		out |= tNonNull
	}
	return out
}

// evalCount decides comparisons of num_nulls(...) / num_nonnulls(...) with an
// integer constant from how many of the arguments can or must be NULL.
func evalCount(c *catalog.Compare, en env) (truth, bool) {
	f, ok := c.Left.(*catalog.Func)
	k, okc := c.Right.(*catalog.Const)
	op := c.Op
	if !ok || !okc {
		f, ok = c.Right.(*catalog.Func)
		k, okc = c.Left.(*catalog.Const)
		op = flipOp(op)
	}
	if !ok || !okc || f.Op || f.Cast || k.Null || (f.Name != "num_nulls" && f.Name != "num_nonnulls") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.Trim(k.Value, "'"))
	if err != nil {
		return 0, false
	}
	lo, hi := 0, 0 // bounds of num_nulls
	for _, a := range f.Args {
		v := eval(a, en)
		if v == tNull {
			lo++
		}
		if v.has(tNull) {
			hi++
		}
	}
	if f.Name == "num_nonnulls" {
		lo, hi = len(f.Args)-hi, len(f.Args)-lo
	}
	var out truth
	for v := lo; v <= hi; v++ {
		if compareInts(v, op, n) {
			out |= tTrue
		} else {
			out |= tFalse
		}
	}
	return out, true
}

func flipOp(op string) string {
	switch op {
	case "<":
		return ">"
	case ">":
		return "<"
	case "<=":
		return ">="
	case ">=":
		return "<="
	}
	return op
}

func compareInts(a int, op string, b int) bool {
	switch op {
	case "=":
		return a == b
	case "<>", "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	}
	return true
}

// strictFuncs are built-ins that return NULL exactly when an argument is
// NULL: on non-NULL input they always return a value.
var strictFuncs = map[string]bool{
	"lower": true, "upper": true, "md5": true, "btrim": true, "ltrim": true, "rtrim": true,
	"trim": true, "length": true, "char_length": true, "octet_length": true, "abs": true,
	"date_trunc": true, "initcap": true, "replace": true, "substr": true, "substring": true,
	"left": true, "right": true, "sha256": true, "sha512": true, "digest": true, "encode": true,
	"decode": true, "unaccent": true, "round": true, "trunc": true, "floor": true, "ceil": true,
	"to_char": true, "date": true, "timezone": true, "extract": true, "date_part": true,
	"split_part": true, "reverse": true, "casefold": true, "normalize": true,
}

// neverNullFuncs return a value whatever their input.
var neverNullFuncs = map[string]bool{
	"num_nulls": true, "num_nonnulls": true, "concat": true,
	"now": true, "gen_random_uuid": true, "current_timestamp": true,
}

// nullableOps are operators that may return NULL on non-NULL input (a JSON
// key that is absent).
var nullableOps = map[string]bool{"->": true, "->>": true, "#>": true, "#>>": true}

func evalFunc(f *catalog.Func, en env) truth {
	args := make([]truth, len(f.Args))
	for i, a := range f.Args {
		args[i] = eval(a, en)
	}
	switch {
	case f.Op && nullableOps[f.Name]:
		return strictOf(args...) | tNull
	case f.Op || f.Cast || strictFuncs[f.Name]:
		return strictOf(args...)
	case neverNullFuncs[f.Name]:
		return tNonNull
	case f.Name == "coalesce" || f.Name == "greatest" || f.Name == "least":
		// NULL only when every argument is NULL; a value when any is one.
		var out truth
		allNull := true
		for _, a := range args {
			if a&tNonNull != 0 {
				out |= tNonNull
			}
			if !a.has(tNull) {
				allNull = false
			}
		}
		if allNull {
			out |= tNull
		}
		return out
	case f.Name == "nullif" && len(args) > 0:
		return (args[0] & tNonNull) | tNull
	}
	return tAny
}

// Proof says whether a key part is null-safe and why.
type Proof struct {
	Safe bool
	// Why names what proves it ("declared NOT NULL", "CHECK x", "the index
	// predicate"), empty when not safe.
	Why string
	// NotValid names CHECK constraints that would prove it but were added NOT
	// VALID and never validated: they say nothing about existing rows.
	NotValid []string
}

// NullSafe proves that part is never NULL for rows of t that satisfy ix's
// predicate and the extra conjuncts (coverage assumes "c IS NULL" this way).
// ix may be nil when there is no predicate to use.
func NullSafe(t *catalog.Table, ix *catalog.Index, part catalog.IndexPart, extra []catalog.Expr) Proof {
	return nullSafe(t, ix, part, extra, 0)
}

func nullSafe(t *catalog.Table, ix *catalog.Index, part catalog.IndexPart, extra []catalog.Expr, depth int) Proof {
	target := PartExpr(part)
	if target == nil {
		return Proof{}
	}
	if part.Column != "" {
		col := t.Column(part.Column)
		if col != nil && col.IsNotNull() {
			return Proof{Safe: true, Why: "declared NOT NULL"}
		}
		// A generated column holds its expression's value: the same
		// reasoning as for an expression key part applies to it.
		if col != nil && col.Generation != nil && depth < 4 && exprNeverNull(t, ix, col.Generation, extra, depth) {
			return Proof{Safe: true, Why: "generated as " + col.Generation.String() + ", which is never NULL"}
		}
	}
	var where []catalog.Expr
	if ix != nil {
		where = append(where, catalog.Conjuncts(ix.Predicate)...)
	}
	where = append(where, extra...)
	if predicateForces(where, target) {
		return Proof{Safe: true, Why: "the index predicate requires it"}
	}
	var p Proof
	assume := assumedNull(where)
	for _, ck := range t.Checks {
		if !checkForces(ck.Expr, target, assume) {
			continue
		}
		if ck.Validated {
			return Proof{Safe: true, Why: "CHECK " + ck.Name}
		}
		p.NotValid = append(p.NotValid, ck.Name)
	}
	if part.Expr != nil && depth < 4 && exprNeverNull(t, ix, part.Expr, extra, depth) {
		return Proof{Safe: true, Why: "the expression is never NULL on its columns"}
	}
	return p
}

// PartExpr is the expression a key part stands for.
func PartExpr(p catalog.IndexPart) catalog.Expr {
	if p.Column != "" {
		return &catalog.ColumnRef{Name: p.Column}
	}
	return p.Expr
}

// predicateForces reports whether rows kept by the WHERE conjuncts can never
// have target NULL: a WHERE keeps only rows where it is TRUE.
func predicateForces(where []catalog.Expr, target catalog.Expr) bool {
	if len(where) == 0 || tooDeep(target) || tooDeep(where...) {
		return false
	}
	return !eval(&catalog.And{Args: where}, env{target.String(): isNull}).has(tTrue)
}

// checkForces reports whether a CHECK rejects every row with target NULL
// under the assumptions. A CHECK passes on TRUE and on NULL, so it forces
// only when it is certainly FALSE.
func checkForces(check, target catalog.Expr, assume env) bool {
	if check == nil || tooDeep(check, target) {
		return false
	}
	en := env{}
	for k, v := range assume {
		en[k] = v
	}
	en[target.String()] = isNull
	return eval(check, en) == tFalse
}

// assumedNull collects "x IS NULL" conjuncts: rows of the index have x NULL,
// which lets an exclusive-arc CHECK force the other arm.
func assumedNull(where []catalog.Expr) env {
	en := env{}
	for _, c := range where {
		if nt, ok := Normalise(c).(*catalog.NullTest); ok && nt.IsNull {
			en[nt.Arg.String()] = isNull
		}
	}
	return en
}

// exprNeverNull evaluates an expression key part with each column it reads
// assumed NOT NULL when that column is itself null-safe.
func exprNeverNull(t *catalog.Table, ix *catalog.Index, e catalog.Expr, extra []catalog.Expr, depth int) bool {
	if tooDeep(e) {
		return false
	}
	en := env{}
	for _, name := range catalog.ColumnsOf(e) {
		if nullSafe(t, ix, catalog.IndexPart{Column: name}, extra, depth+1).Safe {
			en[(&catalog.ColumnRef{Name: name}).String()] = notNull
		}
	}
	return !eval(e, en).has(tNull)
}

// Normalise rewrites NOT (x IS [NOT] NULL) as x IS [NOT] NULL so that
// conjuncts compare equal however they were written.
func Normalise(e catalog.Expr) catalog.Expr {
	if n, ok := e.(*catalog.Not); ok {
		if nt, ok := n.Arg.(*catalog.NullTest); ok {
			return &catalog.NullTest{Arg: nt.Arg, IsNull: !nt.IsNull}
		}
	}
	return e
}
