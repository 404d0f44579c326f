package witness

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

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
	// The search runs twice: over the values the constraints suggest and
	// a few of the type, then, when no row passes, over a wider set of
	// values of each type too. The first round finds what it always found
	// in the order it always did; the second costs more, and only the
	// rows that need it pay.
	for _, wide := range []bool{false, true} {
		cands := map[string][]val{}
		empty := ""
		for _, name := range vars {
			col := b.cols[name]
			cands[name] = b.candidates(col, nil, wide)
			if len(cands[name]) == 0 && empty == "" {
				empty = name
			}
		}
		switch {
		case empty != "" && wide:
			col := b.cols[empty]
			return nil, fmt.Errorf("no value of type %s for %s that %s accepts", col.ct.written, empty, b.acceptors(col))
		case empty != "":
			continue
		}
		if trial := maps(a); b.search(trial, vars, cands) {
			return trial, nil
		}
	}
	return nil, fmt.Errorf("no row that %s accept%s, as far as idemcheck can tell", b.constraintWords(), plural(len(b.cons)))
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
				cands := map[string][]val{name: b.candidates(col, &[]val{first[name], b.value(first, name, 0)}, true)}
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
		if v := eval(ix.Predicate, e); (!v.unknown && (v.null || !v.b)) || (v.unknown && v.notTrue) {
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
			if c.mustBeTrue && v.notTrue {
				return false
			}
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
// with, then values of its type, and with wide a few more of them (see
// widerValues). Values in avoid are left out; every candidate passes the
// column's domains.
func (b *builder) candidates(col *column, avoid *[]val, wide bool) []val {
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
	if wide {
		for _, v := range widerValues(col.ct) {
			add(v)
		}
	}
	return out
}

// widerValues are values of a type beyond the first few, for constraints
// the constants do not answer: a bound written on an expression of the
// column (amount * 100 > 5000), a text that must be long, upper case,
// digits, or look like an address.
func widerValues(ct colType) []val {
	if ct.enum != nil || ct.array {
		return nil
	}
	switch kindOf(ct) {
	case number:
		var out []val
		for _, n := range []float64{0, 10, 100, 1000, 1000000, -1} {
			// smallint and numeric(p, s) hold no larger number.
			switch base := canonical(ct.base); {
			case base == "smallint" && n > 32767:
				continue
			case base == "numeric" && len(ct.mods) >= 1 && n >= pow10(ct.mods[0]-modAt(ct.mods, 1)):
				continue
			}
			out = append(out, numVal(n))
		}
		return out
	case text:
		out := []val{textVal("A"), textVal("1"), textVal("a1"), textVal("a@example.com"), textVal("https://example.com/a")}
		for _, k := range []int{8, 16, 32, 64} {
			for _, first := range []string{"a", "b"} {
				out = append(out, textVal(first+strings.Repeat("a", k-1)))
			}
		}
		if len(ct.mods) == 1 {
			// varchar(n) and char(n) hold no longer text.
			fits := out[:0]
			for _, v := range out {
				if len(v.s) <= ct.mods[0] {
					fits = append(fits, v)
				}
			}
			out = fits
		}
		return out
	}
	return nil
}

// modAt is a type's i-th modifier, or 0.
func modAt(mods []int, i int) int {
	if i < len(mods) {
		return mods[i]
	}
	return 0
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
// of an IN list, a LIKE pattern's fixed text, strings a regular
// expression matches, strings of a compared length (through trim, lower
// and casts: length(trim(value)) > 10), and matches of the expression
// that long.
func (b *builder) constants(col *column) []val {
	var out []val
	var lengths []int
	var patterns []string
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
			// ~* and its negations are operators the model keeps as
			// functions; a case-insensitive pattern's match is one.
			if f, ok := x.(*catalog.Func); ok && f.Op && f.Name == "~*" && len(f.Args) == 2 && (refersTo(f.Args[0]) || foldOf(f.Args[0], refersTo)) {
				if c, ok := f.Args[1].(*catalog.Const); ok {
					if v := constVal(c); v.kind == text {
						patterns = append(patterns, v.s)
					}
				}
				return
			}
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
					if v.kind == text {
						patterns = append(patterns, v.s)
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
							if k >= 0 && k < 10000 && !slices.Contains(lengths, k) {
								lengths = append(lengths, k)
							}
						}
					}
				}
			}
		})
	}
	// A pattern's shortest matches first, each with another character in
	// its first class (a second row may need another value), then matches
	// of each compared length; strings of those lengths last.
	for _, p := range patterns {
		for variant := 0; variant < 3; variant++ {
			if m, ok := matching(p, 0, variant); ok {
				out = append(out, textVal(m))
			}
		}
		for _, k := range lengths {
			for variant := 0; variant < 2; variant++ {
				if m, ok := matching(p, k, variant); ok {
					out = append(out, textVal(m))
				}
			}
		}
	}
	for _, k := range lengths {
		if k == 0 {
			out = append(out, textVal(""))
			continue
		}
		for _, first := range []string{"a", "b", "c"} {
			out = append(out, textVal(first+strings.Repeat("a", k-1)))
		}
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
// of the column refersTo matches, or of c trimmed, folded or cast: a
// string of the compared length without spaces has that length through
// them.
func lengthOf(e catalog.Expr, refersTo func(catalog.Expr) bool) bool {
	f, ok := e.(*catalog.Func)
	if !ok || f.Op || f.Cast || len(f.Args) != 1 {
		return false
	}
	switch f.Name {
	case "length", "char_length", "character_length", "octet_length":
		arg := stripCasts(f.Args[0])
		return refersTo(arg) || foldOf(arg, refersTo)
	}
	return false
}

// foldOf reports whether e is lower(c), upper(c) or a trim of c, or c
// cast, or such a fold of a fold: compared with a constant, the constant
// is a value of c too.
func foldOf(e catalog.Expr, refersTo func(catalog.Expr) bool) bool {
	for depth := 0; depth < 4; depth++ {
		f, ok := e.(*catalog.Func)
		if !ok || len(f.Args) != 1 {
			return false
		}
		switch {
		case f.Cast:
		case f.Op:
			return false
		default:
			switch f.Name {
			case "lower", "upper", "btrim", "trim", "ltrim", "rtrim":
			default:
				return false
			}
		}
		if refersTo(stripCasts(f.Args[0])) {
			return true
		}
		e = stripCasts(f.Args[0])
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
// each class gives a letter or digit it holds (the variant-th of those for
// the first class, so that variants differ), each repeat its least count,
// each alternative its first branch. When minLen is more than that
// string's length, the last unbounded repeat takes more copies until the
// string is that long.
func matching(pattern string, minLen, variant int) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	w := &regexWriter{variant: variant}
	if !w.walk(re) || w.b.Len() > 1000 {
		return "", false
	}
	short := w.b.String()
	n := utf8.RuneCountInString(short)
	if minLen <= n || w.last == nil {
		return short, true
	}
	body := &regexWriter{classes: 1}
	if !body.walk(w.last.Sub[0]) || body.b.Len() == 0 {
		return short, true
	}
	per := utf8.RuneCountInString(body.b.String())
	long := &regexWriter{variant: variant, grow: w.last, extra: (minLen - n + per - 1) / per}
	if !long.walk(re) || long.b.Len() > 10000 {
		return short, true
	}
	return long.b.String(), true
}

// regexWriter writes one string a parsed regular expression matches.
type regexWriter struct {
	b strings.Builder
	// variant picks the character of the first class; classes counts the
	// classes written so far.
	variant, classes int
	// last is the last unbounded repeat met; grow, when set, is the repeat
	// that takes extra copies beyond its least count.
	last, grow *syntax.Regexp
	extra      int
}

func (w *regexWriter) walk(r *syntax.Regexp) bool {
	switch r.Op {
	case syntax.OpLiteral:
		w.b.WriteString(string(r.Rune))
	case syntax.OpCharClass:
		v := 0
		if w.classes == 0 {
			v = w.variant
		}
		w.classes++
		c, ok := classRune(r.Rune, v)
		if !ok {
			return false
		}
		w.b.WriteRune(c)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		w.b.WriteByte('a')
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpEmptyMatch,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpQuest:
	case syntax.OpCapture, syntax.OpConcat:
		for _, sub := range r.Sub {
			if !w.walk(sub) {
				return false
			}
		}
	case syntax.OpAlternate:
		return w.walk(r.Sub[0])
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		n := 0
		switch r.Op {
		case syntax.OpPlus:
			n = 1
		case syntax.OpRepeat:
			n = r.Min
		}
		if r.Op != syntax.OpRepeat || r.Max == -1 {
			w.last = r
		}
		if r == w.grow {
			n += w.extra
		}
		for i := 0; i < n; i++ {
			if !w.walk(r.Sub[0]) {
				return false
			}
		}
	default:
		return false
	}
	return true
}

// classPreference is the order a class's character is chosen in: plain
// letters and digits first, then the punctuation identifiers use.
const classPreference = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."

// classRune is the variant-th character of classPreference that the class
// (pairs of lo, hi) holds, or else its first printable ASCII character.
func classRune(ranges []rune, variant int) (rune, bool) {
	in := func(c rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= c && c <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	var held []rune
	for _, c := range classPreference {
		if in(c) {
			held = append(held, c)
		}
	}
	if len(held) > 0 {
		return held[variant%len(held)], true
	}
	for c := rune(0x21); c < 0x7f; c++ {
		if in(c) {
			return c, true
		}
	}
	return 0, false
}
