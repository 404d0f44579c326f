package witness

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/idemcheck/idemcheck/catalog"
)

// kind is what the evaluator knows of a value's type.
type kind byte

const (
	opaque kind = iota // dates, uuids, json...: only NULL tests and equality with the same text
	number
	text
	boolean
)

// val is a value as the evaluator sees it: NULL, unknown (an expression
// it does not evaluate), or a number, a string or a boolean. sql is the
// literal that writes it.
type val struct {
	null, unknown bool
	// notTrue and notFalse narrow an unknown boolean: "x AND y" with x
	// NULL is NULL or FALSE whatever y is, so a WHERE drops the row even
	// when y is not evaluated; "x OR y" with x NULL is never FALSE.
	notTrue, notFalse bool
	kind              kind
	n                 float64
	s                 string
	b                 bool
	sql               string
}

var (
	nullVal    = val{null: true, sql: "NULL"}
	unknownVal = val{unknown: true}
	trueVal    = val{kind: boolean, b: true, sql: "true"}
	falseVal   = val{kind: boolean, b: false, sql: "false"}
)

func numVal(n float64) val {
	return val{kind: number, n: n, sql: strconv.FormatFloat(n, 'f', -1, 64)}
}

func textVal(s string) val { return val{kind: text, s: s, sql: quote(s)} }

func boolVal(b bool) val {
	if b {
		return trueVal
	}
	return falseVal
}

// quote is s as a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// env gives the value of each column of a row; a column it does not know
// is unknown.
type env func(column string) val

// eval evaluates e in three-valued logic as far as the model goes.
func eval(e catalog.Expr, row env) val {
	switch x := e.(type) {
	case nil:
		return unknownVal
	case *catalog.ColumnRef:
		return row(x.Name)
	case *catalog.Const:
		return constVal(x)
	case *catalog.And:
		return junction(x.Args, false, row)
	case *catalog.Or:
		return junction(x.Args, true, row)
	case *catalog.Not:
		v := truth(eval(x.Arg, row))
		if v.unknown {
			return val{unknown: true, notTrue: v.notFalse, notFalse: v.notTrue}
		}
		if v.null {
			return v
		}
		return boolVal(!v.b)
	case *catalog.NullTest:
		v := eval(x.Arg, row)
		if v.unknown {
			return unknownVal
		}
		return boolVal(v.null == x.IsNull)
	case *catalog.BoolTest:
		return boolTest(truth(eval(x.Arg, row)), x.Test)
	case *catalog.Compare:
		return compare(x, row)
	case *catalog.Func:
		return call(x, row)
	}
	return unknownVal
}

// junction is AND (decisive false) or OR (decisive true) in
// three-valued logic: one decisive argument settles it, otherwise an
// argument the evaluator does not know makes it unknown, and a NULL one
// NULL. Unknown beside NULL (or beside an unknown that is known not to be
// the other value) is still known never to be the non-decisive value: an
// AND is then not TRUE, an OR not FALSE.
func junction(args []catalog.Expr, decisive bool, row env) val {
	out := boolVal(!decisive)
	unknown, undecided := false, false
	for _, a := range args {
		v := truth(eval(a, row))
		switch {
		case v.kind == boolean && v.b == decisive && !v.null && !v.unknown:
			return boolVal(decisive)
		case v.unknown:
			unknown = true
			if (!decisive && v.notTrue) || (decisive && v.notFalse) {
				undecided = true
			}
		case v.null:
			out, undecided = nullVal, true
		}
	}
	if !unknown {
		return out
	}
	// undecided: some argument is never the non-decisive value, so neither
	// is the whole.
	return val{unknown: true, notTrue: undecided && !decisive, notFalse: undecided && decisive}
}

// truth is v read as a boolean: anything that is not one is unknown.
func truth(v val) val {
	if v.null || v.unknown || v.kind == boolean {
		return v
	}
	return unknownVal
}

func boolTest(v val, test string) val {
	if v.unknown {
		switch {
		case v.notTrue && test == "TRUE", v.notFalse && test == "FALSE":
			return falseVal
		case v.notTrue && test == "NOT TRUE", v.notFalse && test == "NOT FALSE":
			return trueVal
		}
		return unknownVal
	}
	switch test {
	case "TRUE":
		return boolVal(!v.null && v.b)
	case "NOT TRUE":
		return boolVal(v.null || !v.b)
	case "FALSE":
		return boolVal(!v.null && !v.b)
	case "NOT FALSE":
		return boolVal(v.null || v.b)
	case "UNKNOWN":
		return boolVal(v.null)
	case "NOT UNKNOWN":
		return boolVal(!v.null)
	}
	return unknownVal
}

// constVal reads a literal as the model keeps it: 'x', 42, 1.5, true.
func constVal(c *catalog.Const) val {
	if c.Null {
		return nullVal
	}
	s := c.Value
	switch {
	case s == "true" || s == "false":
		return boolVal(s == "true")
	case strings.HasPrefix(s, "'") && strings.HasSuffix(s, "'") && len(s) >= 2:
		v := textVal(strings.ReplaceAll(s[1:len(s)-1], "''", "'"))
		v.sql = s
		return v
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		v := numVal(n)
		v.sql = s
		return v
	}
	return unknownVal
}

// comparable brings two values to one kind for comparison: a string
// literal compared with a number is read as a number, as PostgreSQL
// coerces an unknown literal to the other side's type.
func comparable(a, b val) (val, val, bool) {
	if a.kind == b.kind && a.kind != opaque {
		return a, b, true
	}
	if a.kind == number && b.kind == text {
		if n, err := strconv.ParseFloat(strings.TrimSpace(b.s), 64); err == nil {
			return a, numVal(n), true
		}
	}
	if a.kind == text && b.kind == number {
		if n, err := strconv.ParseFloat(strings.TrimSpace(a.s), 64); err == nil {
			return numVal(n), b, true
		}
	}
	if a.kind == boolean && b.kind == text {
		if v, ok := boolWord(b.s); ok {
			return a, boolVal(v), true
		}
	}
	if a.kind == text && b.kind == boolean {
		if v, ok := boolWord(a.s); ok {
			return boolVal(v), b, true
		}
	}
	return a, b, false
}

func boolWord(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "t", "true", "yes", "y", "on", "1":
		return true, true
	case "f", "false", "no", "n", "off", "0":
		return false, true
	}
	return false, false
}

// order compares two values of one kind: -1, 0 or 1. Strings compare by
// bytes, which is the C collation; for the plain words a witness uses it
// agrees with every collation.
func order(a, b val) int {
	switch a.kind {
	case number:
		switch {
		case a.n < b.n:
			return -1
		case a.n > b.n:
			return 1
		}
		return 0
	case boolean:
		switch {
		case a.b == b.b:
			return 0
		case !a.b:
			return -1
		}
		return 1
	}
	return strings.Compare(a.s, b.s)
}

func compare(x *catalog.Compare, row env) val {
	l := eval(x.Left, row)
	if x.Op == "IN" {
		list, ok := x.Right.(*catalog.List)
		if !ok {
			return unknownVal
		}
		return in(l, list, row)
	}
	if x.Op == "= ANY" {
		if list, ok := x.Right.(*catalog.List); ok {
			return in(l, list, row)
		}
		return unknownVal
	}
	r := eval(x.Right, row)
	if l.unknown || r.unknown {
		return unknownVal
	}
	switch x.Op {
	case "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
		same := l.null && r.null
		if !l.null && !r.null {
			a, b, ok := comparable(l, r)
			if !ok {
				return unknownVal
			}
			same = order(a, b) == 0
		}
		return boolVal(same == (x.Op == "IS NOT DISTINCT FROM"))
	}
	if l.null || r.null {
		return nullVal
	}
	switch x.Op {
	case "LIKE", "ILIKE":
		if l.kind != text || r.kind != text {
			return unknownVal
		}
		return boolVal(like(l.s, r.s, x.Op == "ILIKE"))
	case "~":
		if l.kind != text || r.kind != text {
			return unknownVal
		}
		re := compiled(r.s)
		if re == nil {
			return unknownVal
		}
		return boolVal(re.MatchString(l.s))
	}
	a, b, ok := comparable(l, r)
	if !ok {
		return unknownVal
	}
	c := order(a, b)
	switch x.Op {
	case "=":
		return boolVal(c == 0)
	case "<>":
		return boolVal(c != 0)
	case "<":
		return boolVal(c < 0)
	case "<=":
		return boolVal(c <= 0)
	case ">":
		return boolVal(c > 0)
	case ">=":
		return boolVal(c >= 0)
	}
	return unknownVal
}

func in(l val, list *catalog.List, row env) val {
	if l.unknown {
		return unknownVal
	}
	if l.null {
		return nullVal
	}
	out := falseVal
	for _, item := range list.Items {
		r := eval(item, row)
		switch {
		case r.unknown:
			out = unknownVal
		case r.null:
			if !out.unknown {
				out = nullVal
			}
		default:
			a, b, ok := comparable(l, r)
			if !ok {
				out = unknownVal
				continue
			}
			if order(a, b) == 0 {
				return trueVal
			}
		}
	}
	return out
}

// like matches s against a LIKE pattern (% any run, _ one character,
// backslash escapes).
func like(s, pattern string, fold bool) bool {
	var b strings.Builder
	b.WriteString("^")
	if fold {
		b.WriteString("(?i)")
	}
	escaped := false
	for _, r := range pattern {
		switch {
		case escaped:
			b.WriteString(regexp.QuoteMeta(string(r)))
			escaped = false
		case r == '\\':
			escaped = true
		case r == '%':
			b.WriteString("(?s:.*)")
		case r == '_':
			b.WriteString("(?s:.)")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re := compiled(b.String())
	return re != nil && re.MatchString(s)
}

// patterns keeps each pattern the search compiles: it evaluates the same
// predicate over many candidate rows. A pattern that does not compile is
// kept as nil.
var patterns sync.Map // pattern -> *regexp.Regexp

func compiled(pattern string) *regexp.Regexp {
	if re, ok := patterns.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		re = nil
	}
	patterns.Store(strings.Clone(pattern), re)
	return re
}

// nonStrict are the functions that may return non-NULL for a NULL
// argument; every other function and operator returns NULL when an
// argument is NULL, as PostgreSQL's strict built-ins do.
var nonStrict = map[string]bool{
	"coalesce": true, "nullif": true, "num_nulls": true, "num_nonnulls": true, "greatest": true,
	"least": true, "concat": true, "concat_ws": true, "row": true, "format": true,
}

func call(f *catalog.Func, row env) val {
	args := make([]val, len(f.Args))
	for i, a := range f.Args {
		args[i] = eval(a, row)
	}
	name := strings.ToLower(f.Name)
	if f.Cast {
		if len(args) != 1 {
			return unknownVal
		}
		return cast(args[0], name)
	}
	switch name {
	case "coalesce":
		for _, a := range args {
			if a.unknown {
				return unknownVal
			}
			if !a.null {
				return a
			}
		}
		return nullVal
	case "num_nulls", "num_nonnulls":
		n := 0
		for _, a := range args {
			if a.unknown {
				return unknownVal
			}
			if a.null == (name == "num_nulls") {
				n++
			}
		}
		return numVal(float64(n))
	case "nullif":
		if len(args) != 2 || args[0].unknown || args[1].unknown {
			return unknownVal
		}
		if args[0].null || args[1].null {
			return args[0]
		}
		a, b, ok := comparable(args[0], args[1])
		if !ok {
			return unknownVal
		}
		if order(a, b) == 0 {
			return nullVal
		}
		return args[0]
	}
	if nonStrict[name] {
		return unknownVal
	}
	for _, a := range args {
		if a.unknown {
			return unknownVal
		}
		if a.null {
			return nullVal
		}
	}
	switch {
	case len(args) == 1 && args[0].kind == text:
		s := args[0].s
		switch name {
		case "length", "char_length", "character_length":
			return numVal(float64(len([]rune(s))))
		case "octet_length":
			return numVal(float64(len(s)))
		case "lower":
			return textVal(strings.ToLower(s))
		case "upper":
			return textVal(strings.ToUpper(s))
		case "btrim", "trim":
			return textVal(strings.Trim(s, " "))
		case "ltrim":
			return textVal(strings.TrimLeft(s, " "))
		case "rtrim":
			return textVal(strings.TrimRight(s, " "))
		}
	case len(args) == 2 && f.Op:
		return operator(name, args[0], args[1])
	case len(args) == 1 && f.Op && name == "-" && args[0].kind == number:
		return numVal(-args[0].n)
	case len(args) == 1 && name == "abs" && args[0].kind == number:
		return numVal(math.Abs(args[0].n))
	}
	return unknownVal
}

func operator(op string, a, b val) val {
	if a.kind == text && b.kind == text {
		switch op {
		case "||":
			return textVal(a.s + b.s)
		case "~*", "!~", "!~*":
			// The model keeps ~ as a comparison and these as operators.
			pattern := b.s
			if strings.HasSuffix(op, "*") {
				pattern = "(?i)" + pattern
			}
			re, err := regexp.Compile(pattern)
			if err != nil {
				return unknownVal
			}
			return boolVal(re.MatchString(a.s) != strings.HasPrefix(op, "!"))
		}
	}
	if a.kind != number || b.kind != number {
		return unknownVal
	}
	switch op {
	case "+":
		return numVal(a.n + b.n)
	case "-":
		return numVal(a.n - b.n)
	case "*":
		return numVal(a.n * b.n)
	case "/":
		if b.n == 0 {
			return unknownVal
		}
		return numVal(a.n / b.n)
	case "%":
		if b.n == 0 || a.n != math.Trunc(a.n) || b.n != math.Trunc(b.n) {
			return unknownVal
		}
		return numVal(math.Mod(a.n, b.n))
	}
	return unknownVal
}

// cast converts a value for the casts the evaluator follows.
func cast(v val, typ string) val {
	if v.null || v.unknown {
		return v
	}
	switch classOf(typ) {
	case text:
		switch v.kind {
		case text:
			return v
		case number:
			return textVal(strconv.FormatFloat(v.n, 'f', -1, 64))
		}
	case number:
		switch v.kind {
		case number:
			return v
		case text:
			if n, err := strconv.ParseFloat(strings.TrimSpace(v.s), 64); err == nil {
				return numVal(n)
			}
		}
	case boolean:
		if v.kind == boolean {
			return v
		}
		if v.kind == text {
			if b, ok := boolWord(v.s); ok {
				return boolVal(b)
			}
		}
	}
	return unknownVal
}
