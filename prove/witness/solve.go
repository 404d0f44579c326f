package witness

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// searchBudget bounds the rows the solver tries for one witness.
const searchBudget = 20000

// solve chooses the values of the first row: every column a constraint,
// a key part or NOT NULL asks for, such that the index's predicate and the
// key-part tests are TRUE and no CHECK is FALSE.
func (b *builder) solve() (assignment, error) {
	a := assignment{}
	var vars []string
	for _, name := range b.order {
		col := b.cols[name]
		switch col.cl {
		case hole:
			a[name] = nullVal
		case key, needed:
			vars = append(vars, name)
		}
	}
	for _, c := range b.cons {
		for _, name := range c.cols {
			if col := b.cols[name]; col != nil && col.cl == omitted && !slices.Contains(vars, name) {
				vars = append(vars, name)
			}
		}
	}
	cands := map[string][]val{}
	for _, name := range vars {
		col := b.cols[name]
		cands[name] = b.candidates(col, nil)
		if len(cands[name]) == 0 {
			return nil, fmt.Errorf("no value of type %s for %s that %s accepts", col.ct.written, name, b.acceptors(col))
		}
	}
	if !b.search(a, vars, cands) {
		return nil, fmt.Errorf("no row that %s accept%s, as far as idemcheck can tell", b.constraintWords(), plural(len(b.cons)))
	}
	return a, nil
}

// secondRow is the first row again, unless another unique index would
// refuse it for a reason that is not the hole: then a column of that index
// outside the key gets another value. An index over columns the key holds
// equal refuses the second row whatever the witness does; it is returned.
func (b *builder) secondRow(first assignment) (assignment, *catalog.Index, error) {
	second := maps(first)
	for _, ix := range b.t.UniqueIndexes() {
		if ix == b.esc.Index || !ix.Ready {
			continue
		}
		if !b.collides(ix, second) {
			continue
		}
		var tried []string
		ok := false
		for _, p := range ix.Parts {
			for _, name := range b.reads(b.partExpr(p)) {
				col := b.cols[name]
				if col == nil || col.equal || col.cl == auto || col.cl == fixed || slices.Contains(tried, name) {
					continue
				}
				tried = append(tried, name)
				cands := map[string][]val{name: b.candidates(col, &[]val{first[name], b.value(first, name, 0)})}
				trial := maps(second)
				delete(trial, name)
				if b.search(trial, []string{name}, cands) {
					second, ok = trial, true
					break
				}
			}
			if ok {
				break
			}
		}
		if !ok && len(tried) > 0 {
			return nil, nil, fmt.Errorf("unique index %s would refuse the second row, and no other value of %s passes the table's constraints",
				ix.Name, list(tried, "or"))
		}
		if !ok {
			return second, ix, nil
		}
	}
	return second, nil, nil
}

// collides reports whether a second row equal to a would collide with it
// on ix: ix's predicate holds, and every key part is known not to be NULL
// (or ix is NULLS NOT DISTINCT), and no part reads a column PostgreSQL
// fills anew for each row.
func (b *builder) collides(ix *catalog.Index, a assignment) bool {
	e := b.env(a)
	if ix.Predicate != nil {
		if v := eval(ix.Predicate, e); !v.unknown && (v.null || !v.b) {
			return false
		}
	}
	for _, p := range ix.Parts {
		pe := b.partExpr(p)
		for _, name := range b.reads(pe) {
			if col := b.cols[name]; col != nil && col.cl == auto && col.c.Generation == nil {
				return false
			}
		}
		if v := eval(pe, e); v.null && !ix.NullsNotDistinct {
			return false
		}
	}
	return true
}

func maps(a assignment) assignment {
	out := assignment{}
	for k, v := range a {
		out[k] = v
	}
	return out
}

// search assigns vars in order from their candidates, depth first, until
// every constraint whose columns are all known passes.
func (b *builder) search(a assignment, vars []string, cands map[string][]val) bool {
	steps := 0
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(vars) {
			return true
		}
		name := vars[i]
		for _, v := range cands[name] {
			if steps++; steps > searchBudget {
				return false
			}
			a[name] = v
			if b.consistent(a, vars[i+1:]) && try(i+1) {
				return true
			}
		}
		delete(a, name)
		return false
	}
	return try(0)
}

// consistent reports whether no constraint that reads none of pending is
// violated by a.
func (b *builder) consistent(a assignment, pending []string) bool {
	e := b.env(a)
	for _, c := range b.cons {
		if slices.ContainsFunc(c.cols, func(n string) bool { return slices.Contains(pending, n) }) {
			continue
		}
		v := eval(c.expr, e)
		if v.unknown {
			continue
		}
		if c.mustBeTrue && (v.null || !v.b) {
			return false
		}
		if !c.mustBeTrue && !v.null && v.kind == boolean && !v.b {
			return false
		}
	}
	return true
}

// candidates are the values col may take, most natural first: what a row
// that leaves it out gets, NULL, the constants the constraints compare it
// with, then values of its type. Values in avoid are left out; every
// candidate passes the column's domains.
func (b *builder) candidates(col *column, avoid *[]val) []val {
	var out []val
	seen := map[string]bool{}
	add := func(v val) {
		if v.unknown && v.sql == "" {
			return
		}
		if v.null && (col.cl == key || col.cl == needed || col.c.IsNotNull()) {
			return
		}
		if seen[v.sql] {
			return
		}
		if avoid != nil {
			for _, x := range *avoid {
				if x.sql == v.sql {
					return
				}
			}
		}
		if !b.domainsAccept(col, v) {
			return
		}
		seen[v.sql] = true
		out = append(out, v)
	}
	if col.cl == omitted {
		add(col.omitted)
		add(nullVal)
	}
	for _, v := range b.constants(col) {
		add(v)
	}
	for _, v := range baseValues(col.ct, 3) {
		add(v)
	}
	if col.ct.enum != nil {
		for _, l := range col.ct.enum.Labels {
			add(textVal(l))
		}
	}
	return out
}

// domainsAccept reports whether no CHECK of the column's domains is FALSE
// for v (NULL passes, as PostgreSQL passes it).
func (b *builder) domainsAccept(col *column, v val) bool {
	for _, d := range col.ct.domains {
		for _, ck := range d.Checks {
			r := eval(ck.Expr, func(n string) val {
				if strings.EqualFold(n, "value") {
					return v
				}
				return unknownVal
			})
			if !r.unknown && !r.null && r.kind == boolean && !r.b {
				return false
			}
		}
	}
	return true
}

// constants are values the constraints (and the column's domains) suggest
// for col: what it is compared with, the bounds moved by one, the members
// of an IN list, a LIKE pattern's fixed text, strings of a compared
// length.
func (b *builder) constants(col *column) []val {
	var out []val
	exprs := make([]catalog.Expr, 0, len(b.cons))
	for _, c := range b.cons {
		exprs = append(exprs, c.expr)
	}
	refersTo := func(e catalog.Expr) bool {
		ref, ok := e.(*catalog.ColumnRef)
		return ok && (ref.Name == col.c.Name || strings.EqualFold(ref.Name, "value"))
	}
	for _, d := range col.ct.domains {
		for _, ck := range d.Checks {
			exprs = append(exprs, ck.Expr)
		}
	}
	for _, e := range exprs {
		catalog.Walk(e, func(x catalog.Expr) {
			cmp, ok := x.(*catalog.Compare)
			if !ok {
				return
			}
			l, r := cmp.Left, cmp.Right
			if !refersTo(l) && !lengthOf(l, refersTo) && !foldOf(l, refersTo) {
				l, r = r, l
			}
			switch {
			case refersTo(l) || foldOf(l, refersTo):
				if cmp.Op == "IN" || cmp.Op == "= ANY" {
					if list, ok := r.(*catalog.List); ok {
						for _, it := range list.Items {
							if c, ok := it.(*catalog.Const); ok {
								out = append(out, valueFor(col.ct, constVal(c)))
							}
						}
					}
					return
				}
				c, ok := r.(*catalog.Const)
				if !ok {
					return
				}
				v := constVal(c)
				if cmp.Op == "LIKE" || cmp.Op == "ILIKE" {
					if v.kind == text {
						out = append(out, textVal(strings.NewReplacer("%", "", "_", "a").Replace(v.s)))
					}
					return
				}
				if cmp.Op == "~" {
					if m, ok := matching(v.s); ok && v.kind == text {
						out = append(out, textVal(m))
					}
					return
				}
				v = valueFor(col.ct, v)
				out = append(out, v)
				if v.kind == number {
					out = append(out, typedNumber(col.ct, v.n+1), typedNumber(col.ct, v.n-1))
				}
			case lengthOf(l, refersTo):
				if c, ok := r.(*catalog.Const); ok {
					if n, err := strconv.Atoi(c.Value); err == nil {
						for _, k := range []int{n, n + 1, n - 1} {
							if k >= 0 && k < 10000 {
								out = append(out, textVal(strings.Repeat("a", k)))
							}
						}
					}
				}
			}
		})
	}
	return out
}

// typedNumber is n for a column of type ct: an integer type takes only
// whole numbers.
func typedNumber(ct colType, n float64) val {
	v := numVal(n)
	if classOf(ct.base) == text {
		return textVal(v.sql)
	}
	return v
}

// lengthOf reports whether e is length(c) (or char_length, octet_length)
// of the column refersTo matches.
func lengthOf(e catalog.Expr, refersTo func(catalog.Expr) bool) bool {
	f, ok := e.(*catalog.Func)
	if !ok || f.Op || f.Cast || len(f.Args) != 1 {
		return false
	}
	switch f.Name {
	case "length", "char_length", "character_length", "octet_length":
		return refersTo(stripCasts(f.Args[0]))
	}
	return false
}

// foldOf reports whether e is lower(c), upper(c) or btrim(c), or c cast:
// compared with a constant, the constant is a value of c too.
func foldOf(e catalog.Expr, refersTo func(catalog.Expr) bool) bool {
	f, ok := e.(*catalog.Func)
	if !ok || len(f.Args) != 1 {
		return false
	}
	if f.Cast {
		return refersTo(stripCasts(f.Args[0]))
	}
	switch f.Name {
	case "lower", "upper", "btrim", "trim":
		return refersTo(stripCasts(f.Args[0]))
	}
	return false
}

func stripCasts(e catalog.Expr) catalog.Expr {
	for {
		f, ok := e.(*catalog.Func)
		if !ok || !f.Cast || len(f.Args) != 1 {
			return e
		}
		e = f.Args[0]
	}
}

// acceptors names what a column's value must pass, for an error.
func (b *builder) acceptors(col *column) string {
	var what []string
	if col.c.IsNotNull() {
		what = append(what, "NOT NULL")
	}
	for _, d := range col.ct.domains {
		what = append(what, "domain "+d.Name)
	}
	if len(what) == 0 {
		return "the table"
	}
	return list(what, "and")
}

// constraintWords names every constraint the rows must pass, for an error.
func (b *builder) constraintWords() string {
	var what []string
	for _, c := range b.cons {
		what = append(what, c.what)
	}
	if len(what) == 0 {
		return "the table's columns"
	}
	return list(what, "and")
}

func plural(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

// list joins words as prose does: "a, b and c".
func list(words []string, last string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + last + " " + words[len(words)-1]
}

// matching is a short string a regular expression matches, for the simple
// patterns CHECKs use (literals, classes, repeats, alternatives, anchors):
// each class gives its first character, each repeat its least count, each
// alternative its first branch.
func matching(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpLiteral:
			b.WriteString(string(r.Rune))
		case syntax.OpCharClass:
			if len(r.Rune) == 0 {
				return false
			}
			b.WriteRune(r.Rune[0])
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('a')
		case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpEmptyMatch,
			syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		case syntax.OpCapture, syntax.OpConcat:
			for _, sub := range r.Sub {
				if !walk(sub) {
					return false
				}
			}
		case syntax.OpAlternate:
			return walk(r.Sub[0])
		case syntax.OpStar, syntax.OpQuest:
		case syntax.OpPlus:
			return walk(r.Sub[0])
		case syntax.OpRepeat:
			for i := 0; i < r.Min; i++ {
				if !walk(r.Sub[0]) {
					return false
				}
			}
		default:
			return false
		}
		return true
	}
	if !walk(re) || b.Len() > 1000 {
		return "", false
	}
	return b.String(), true
}
