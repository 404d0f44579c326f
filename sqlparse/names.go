package sqlparse

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/idemcheck/idemcheck/catalog"
)

// nameDataLen is PostgreSQL's NAMEDATALEN: identifiers hold at most
// nameDataLen-1 bytes.
const nameDataLen = 64

// makeObjectName builds name1_name2_label the way PostgreSQL's makeObjectName
// does: the longer of name1 and name2 loses one byte at a time until the
// whole fits in 63 bytes, the label is kept whole, and a cut never splits a
// multi-byte character. name2 and label may be empty.
func makeObjectName(name1, name2, label string) string {
	overhead := 0
	if label != "" {
		overhead += len(label) + 1
	}
	n1, n2 := len(name1), 0
	if name2 != "" {
		n2 = len(name2)
		overhead++
	}
	avail := nameDataLen - 1 - overhead
	for n1+n2 > avail {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	out := clipBytes(name1, n1)
	if name2 != "" {
		out += "_" + clipBytes(name2, n2)
	}
	if label != "" {
		out += "_" + label
	}
	return out
}

// clipBytes cuts s to at most n bytes without splitting a UTF-8 character
// (pg_mbcliplen).
func clipBytes(s string, n int) string {
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

// truncateIdent cuts an identifier to 63 bytes as the lexer does.
func truncateIdent(s string) string { return clipBytes(s, nameDataLen-1) }

// chooseRelationName picks name1_name2_label, then name1_name2_label1,
// label2, ... until no relation (table or index) of the schema has it and,
// for a constraint, no constraint of the schema has it either.
func chooseRelationName(s *catalog.Schema, name1, name2, label string, isConstraint bool) string {
	mod := label
	for pass := 1; ; pass++ {
		name := makeObjectName(name1, name2, mod)
		if !s.RelationExists(name) && (!isConstraint || !s.ConstraintExists(name)) {
			return name
		}
		mod = label + strconv.Itoa(pass)
	}
}

// chooseConstraintName is ChooseConstraintName: like chooseRelationName but
// only constraint names clash (CHECK constraints are not relations).
func chooseConstraintName(s *catalog.Schema, name1, name2, label string) string {
	mod := label
	for pass := 1; ; pass++ {
		name := makeObjectName(name1, name2, mod)
		if !s.ConstraintExists(name) {
			return name
		}
		mod = label + strconv.Itoa(pass)
	}
}

// chooseIndexName is PostgreSQL's ChooseIndexName for an index without a
// name: {table}_pkey, {table}_{cols}_key for a UNIQUE constraint, and
// {table}_{cols}_idx for CREATE INDEX.
func chooseIndexName(s *catalog.Schema, table string, colNames []string, primary, isConstraint bool) string {
	switch {
	case primary:
		return chooseRelationName(s, table, "", "pkey", true)
	case isConstraint:
		return chooseRelationName(s, table, indexNameAddition(colNames), "key", true)
	}
	return chooseRelationName(s, table, indexNameAddition(colNames), "idx", false)
}

// indexNameAddition joins the index column names with "_", stopping once
// the text is long enough that makeObjectName will cut it anyway.
func indexNameAddition(colNames []string) string {
	var b strings.Builder
	for _, n := range colNames {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(truncateIdent(n))
		if b.Len() >= nameDataLen {
			break
		}
	}
	return b.String()
}

// indexColumnNames gives each key and INCLUDE column of an index the name
// PostgreSQL gives the index's own attributes: the column name, the
// function name of an expression ("lower"), or "expr"; a repeated name gets
// a number ("lower", "lower1"). Generated index names are made of these.
func indexColumnNames(parts []catalog.IndexPart, include []string) []string {
	var out []string
	add := func(orig string) {
		cur := orig
		for i := 1; contains(out, cur); i++ {
			suffix := strconv.Itoa(i)
			cur = clipBytes(orig, nameDataLen-1-len(suffix)) + suffix
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

// exprColumnName is FigureIndexColname over the model: a column keeps its
// name, a function call gives its name, a cast gives its argument's name or
// else the type name, and anything else is "expr".
func exprColumnName(e catalog.Expr) string {
	switch x := e.(type) {
	case *catalog.ColumnRef:
		return x.Name
	case *catalog.Func:
		if x.Cast && len(x.Args) == 1 {
			if n := exprColumnName(x.Args[0]); n != "expr" {
				return n
			}
			return x.Name
		}
		if !x.Op {
			return x.Name
		}
	case *catalog.Unknown:
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(x.Text)), "CASE") {
			return "case"
		}
	}
	return "expr"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
