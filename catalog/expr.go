package catalog

import (
	"strings"
)

// Expr is a parser-independent SQL expression: what index predicates, CHECK
// constraints and expression key parts become, whether they were parsed from
// a migration or read back from a live server with pg_get_expr.
//
// Only the shapes the null-safety reasoner needs are distinguished; anything
// else is Unknown, which the reasoner treats as proving nothing.
type Expr interface {
	// String renders the expression as SQL that PostgreSQL accepts.
	String() string
	expr()
}

// And is a conjunction. A top-level And of a predicate is a list of conjuncts.
type And struct{ Args []Expr }

// Or is a disjunction.
type Or struct{ Args []Expr }

// Not is boolean negation.
type Not struct{ Arg Expr }

// NullTest is "Arg IS NULL" (IsNull) or "Arg IS NOT NULL".
type NullTest struct {
	Arg    Expr
	IsNull bool
}

// BoolTest is "Arg IS [NOT] TRUE|FALSE|UNKNOWN"; Test holds the words after
// IS, upper case: "TRUE", "NOT TRUE", "FALSE", "NOT FALSE", "UNKNOWN",
// "NOT UNKNOWN".
type BoolTest struct {
	Arg  Expr
	Test string
}

// Compare is a binary comparison or pattern match. Op is the operator as
// written in SQL, upper case for words: "=", "<>", "<", "<=", ">", ">=",
// "LIKE", "ILIKE", "~", "IN", "= ANY", "IS DISTINCT FROM",
// "IS NOT DISTINCT FROM". For IN, Right is a *List.
type Compare struct {
	Op          string
	Left, Right Expr
}

// ColumnRef is a reference to a column of the table the expression belongs to.
type ColumnRef struct{ Name string }

// Const is a literal. Null marks the NULL literal; Value holds the literal's
// SQL text otherwise ('x', 42, true).
type Const struct {
	Value string
	Null  bool
}

// Func is a function call, an operator or a cast. Operators have Op set and
// one (prefix) or two arguments; casts have Cast set, Name holding the type.
// coalesce, nullif, greatest and least are Funcs named so.
type Func struct {
	Name string
	Args []Expr
	Op   bool
	Cast bool
}

// List is the right-hand side of IN, or an ARRAY[...] constructor.
type List struct{ Items []Expr }

// Unknown is an expression the model does not look into. Text is its SQL.
type Unknown struct{ Text string }

func (*And) expr()       {}
func (*Or) expr()        {}
func (*Not) expr()       {}
func (*NullTest) expr()  {}
func (*BoolTest) expr()  {}
func (*Compare) expr()   {}
func (*ColumnRef) expr() {}
func (*Const) expr()     {}
func (*Func) expr()      {}
func (*List) expr()      {}
func (*Unknown) expr()   {}

func (e *And) String() string { return joinArgs(e.Args, " AND ") }
func (e *Or) String() string  { return joinArgs(e.Args, " OR ") }
func (e *Not) String() string { return "NOT " + paren(e.Arg) }
func (e *NullTest) String() string {
	if e.IsNull {
		return paren(e.Arg) + " IS NULL"
	}
	return paren(e.Arg) + " IS NOT NULL"
}
func (e *BoolTest) String() string { return paren(e.Arg) + " IS " + e.Test }
func (e *Compare) String() string {
	if e.Op == "= ANY" {
		return paren(e.Left) + " = ANY (" + e.Right.String() + ")"
	}
	return paren(e.Left) + " " + e.Op + " " + paren(e.Right)
}
func (e *ColumnRef) String() string { return QuoteIdent(e.Name) }
func (e *Const) String() string {
	if e.Null {
		return "NULL"
	}
	return e.Value
}
func (e *Func) String() string {
	switch {
	case e.Cast && len(e.Args) == 1:
		return paren(e.Args[0]) + "::" + e.Name
	case e.Op && len(e.Args) == 1:
		return e.Name + " " + paren(e.Args[0])
	case e.Op && len(e.Args) == 2:
		return paren(e.Args[0]) + " " + e.Name + " " + paren(e.Args[1])
	}
	return e.Name + "(" + joinArgs(e.Args, ", ") + ")"
}
func (e *List) String() string { return "(" + joinArgs(e.Items, ", ") + ")" }
func (e *Unknown) String() string {
	return e.Text
}

func joinArgs(args []Expr, sep string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if sep == ", " {
			parts[i] = a.String()
		} else {
			parts[i] = paren(a)
		}
	}
	return strings.Join(parts, sep)
}

// paren wraps compound expressions in parentheses so that String output
// always parses back to the same tree.
func paren(e Expr) string {
	switch f := e.(type) {
	case *ColumnRef, *Const, *List:
		return e.String()
	case *Func:
		if !f.Op && !f.Cast {
			return e.String()
		}
	case *Unknown:
		// Unknown text may be anything; parenthesise to stay safe.
	}
	return "(" + e.String() + ")"
}

// Conjuncts splits e into its top-level AND terms. A nil expression has none.
func Conjuncts(e Expr) []Expr {
	if e == nil {
		return nil
	}
	if a, ok := e.(*And); ok {
		var out []Expr
		for _, arg := range a.Args {
			out = append(out, Conjuncts(arg)...)
		}
		return out
	}
	return []Expr{e}
}

// ColumnsOf lists the distinct columns e reads, in order of first appearance.
func ColumnsOf(e Expr) []string {
	var out []string
	seen := map[string]bool{}
	Walk(e, func(x Expr) {
		if c, ok := x.(*ColumnRef); ok && !seen[c.Name] {
			seen[c.Name] = true
			out = append(out, c.Name)
		}
	})
	return out
}

// Walk calls fn for e and every expression below it, parents first.
func Walk(e Expr, fn func(Expr)) {
	if e == nil {
		return
	}
	fn(e)
	for _, c := range Children(e) {
		Walk(c, fn)
	}
}

// Children lists the expressions directly below e, in order; nil for a
// column, a constant or an Unknown.
func Children(e Expr) []Expr {
	switch x := e.(type) {
	case *And:
		return x.Args
	case *Or:
		return x.Args
	case *Not:
		return []Expr{x.Arg}
	case *NullTest:
		return []Expr{x.Arg}
	case *BoolTest:
		return []Expr{x.Arg}
	case *Compare:
		return []Expr{x.Left, x.Right}
	case *Func:
		return x.Args
	case *List:
		return x.Items
	}
	return nil
}

// Rewrite returns e with every expression in it passed through fn,
// children before their parent: fn gets each node with its children
// already rewritten and returns it, or what replaces it. A node is copied
// only when one of its children changed, and e itself is never modified,
// since recorded history and copies of a table share expressions.
func Rewrite(e Expr, fn func(Expr) Expr) Expr {
	if e == nil {
		return nil
	}
	switch x := e.(type) {
	case *And:
		if args, changed := rewriteAll(x.Args, fn); changed {
			e = &And{Args: args}
		}
	case *Or:
		if args, changed := rewriteAll(x.Args, fn); changed {
			e = &Or{Args: args}
		}
	case *Not:
		if arg := Rewrite(x.Arg, fn); arg != x.Arg {
			e = &Not{Arg: arg}
		}
	case *NullTest:
		if arg := Rewrite(x.Arg, fn); arg != x.Arg {
			e = &NullTest{Arg: arg, IsNull: x.IsNull}
		}
	case *BoolTest:
		if arg := Rewrite(x.Arg, fn); arg != x.Arg {
			e = &BoolTest{Arg: arg, Test: x.Test}
		}
	case *Compare:
		l, r := Rewrite(x.Left, fn), Rewrite(x.Right, fn)
		if l != x.Left || r != x.Right {
			e = &Compare{Op: x.Op, Left: l, Right: r}
		}
	case *Func:
		if args, changed := rewriteAll(x.Args, fn); changed {
			e = &Func{Name: x.Name, Args: args, Op: x.Op, Cast: x.Cast}
		}
	case *List:
		if items, changed := rewriteAll(x.Items, fn); changed {
			e = &List{Items: items}
		}
	}
	return fn(e)
}

// rewriteAll rewrites each expression of list, returning a new slice when
// any of them changed.
func rewriteAll(list []Expr, fn func(Expr) Expr) ([]Expr, bool) {
	var out []Expr
	for i, a := range list {
		b := Rewrite(a, fn)
		if b != a && out == nil {
			out = make([]Expr, len(list))
			copy(out, list[:i])
		}
		if out != nil {
			out[i] = b
		}
	}
	if out == nil {
		return list, false
	}
	return out, true
}

// RenameColumns returns e with each column reference renamed by rename,
// which returns the name it is given for a column that keeps its name.
func RenameColumns(e Expr, rename func(string) string) Expr {
	return Rewrite(e, func(x Expr) Expr {
		if c, ok := x.(*ColumnRef); ok {
			if name := rename(c.Name); name != c.Name {
				return &ColumnRef{Name: name}
			}
		}
		return x
	})
}

// Equal reports whether two expressions are the same tree. It compares the
// rendered SQL, which String keeps canonical (fully parenthesised, lower case
// identifiers as stored).
func Equal(a, b Expr) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.String() == b.String()
}
