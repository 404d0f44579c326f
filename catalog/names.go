package catalog

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The names PostgreSQL generates for objects nobody named: indexes,
// constraints and sequences. Replay must generate the same ones (a later
// statement may DROP or RENAME an object by its generated name), and the fix
// SQL the rules suggest must pick names that fit and clash with nothing.

// MaxIdentLen is PostgreSQL's NAMEDATALEN - 1: the most bytes an identifier
// keeps. The lexer cuts a longer one, and so does every generated name.
const MaxIdentLen = 63

// ClipIdent cuts s to at most n bytes without splitting a UTF-8 character,
// as the server's pg_mbcliplen does.
func ClipIdent(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// TruncateIdent cuts an identifier to MaxIdentLen bytes, as the lexer does.
func TruncateIdent(s string) string { return ClipIdent(s, MaxIdentLen) }

// MakeObjectName builds name1_name2_label the way PostgreSQL's
// makeObjectName does: the longer of name1 and name2 loses one byte at a
// time until the whole fits in MaxIdentLen bytes, the label is kept whole,
// and a cut never splits a multi-byte character. name2 and label may be
// empty.
func MakeObjectName(name1, name2, label string) string {
	overhead := 0
	if label != "" {
		overhead += len(label) + 1
	}
	n1, n2 := len(name1), 0
	if name2 != "" {
		n2 = len(name2)
		overhead++
	}
	avail := MaxIdentLen - overhead
	for n1+n2 > avail {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	out := ClipIdent(name1, n1)
	if name2 != "" {
		out += "_" + ClipIdent(name2, n2)
	}
	if label != "" {
		out += "_" + label
	}
	return out
}

// ChooseName picks name1_name2_label, then name1_name2_label1, label2, ...
// (each cut by MakeObjectName) until taken says no: how PostgreSQL settles
// a clash of a generated name.
func ChooseName(name1, name2, label string, taken func(string) bool) string {
	mod := label
	for pass := 1; ; pass++ {
		name := MakeObjectName(name1, name2, mod)
		if !taken(name) {
			return name
		}
		mod = label + strconv.Itoa(pass)
	}
}

// ChooseRelationName is ChooseName against the schema's relations (tables,
// indexes, sequences) and, for a constraint, its constraints too.
func (s *Schema) ChooseRelationName(name1, name2, label string, isConstraint bool) string {
	return ChooseName(name1, name2, label, func(name string) bool {
		return s.RelationExists(name) || (isConstraint && s.ConstraintExists(name))
	})
}

// ChooseConstraintName is PostgreSQL's ChooseConstraintName: only
// constraint names clash (a CHECK or foreign key is not a relation).
func (s *Schema) ChooseConstraintName(name1, name2, label string) string {
	return ChooseName(name1, name2, label, s.ConstraintExists)
}

// ChooseIndexName is PostgreSQL's ChooseIndexName for an index nobody
// named: {table}_pkey, {table}_{cols}_key for a UNIQUE constraint, and
// {table}_{cols}_idx for CREATE INDEX. colNames are IndexColumnNames.
func (s *Schema) ChooseIndexName(table string, colNames []string, primary, isConstraint bool) string {
	switch {
	case primary:
		return s.ChooseRelationName(table, "", "pkey", true)
	case isConstraint:
		return s.ChooseRelationName(table, IndexNameAddition(colNames), "key", true)
	}
	return s.ChooseRelationName(table, IndexNameAddition(colNames), "idx", false)
}

// IndexNameAddition joins column names with "_" for a generated index or
// foreign key name, stopping once the text is long enough that
// MakeObjectName will cut it anyway.
func IndexNameAddition(colNames []string) string {
	var b strings.Builder
	for _, n := range colNames {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(TruncateIdent(n))
		if b.Len() > MaxIdentLen {
			break
		}
	}
	return b.String()
}

// IndexColumnNames gives each key and INCLUDE column of an index the name
// PostgreSQL gives the index's own attributes: the column name, the
// function name of an expression ("lower"), or "expr"; a repeated name gets
// a number ("lower", "lower1"). Generated index names are made of these.
func IndexColumnNames(parts []IndexPart, include []string) []string {
	var out []string
	add := func(orig string) {
		cur := orig
		for i := 1; slices.Contains(out, cur); i++ {
			suffix := strconv.Itoa(i)
			cur = ClipIdent(orig, MaxIdentLen-len(suffix)) + suffix
		}
		out = append(out, cur)
	}
	for _, p := range parts {
		if p.Column != "" {
			add(p.Column)
		} else {
			add(exprColumnName(p.Expr))
		}
	}
	for _, c := range include {
		add(c)
	}
	return out
}

// exprColumnName is PostgreSQL's FigureIndexColname over the model: a
// column keeps its name, a function call gives its name, a cast gives its
// argument's name or else the type name, and anything else is "expr".
func exprColumnName(e Expr) string {
	switch x := e.(type) {
	case *ColumnRef:
		return x.Name
	case *Func:
		if x.Cast && len(x.Args) == 1 {
			if n := exprColumnName(x.Args[0]); n != "expr" {
				return n
			}
			return x.Name
		}
		if !x.Op {
			return x.Name
		}
	case *Unknown:
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(x.Text)), "CASE") {
			return "case"
		}
	}
	return "expr"
}
