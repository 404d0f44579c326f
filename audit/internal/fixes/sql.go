package fixes

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// CanBuildConcurrently is false for a partitioned table: PostgreSQL cannot
// build or drop its indexes CONCURRENTLY.
func CanBuildConcurrently(t *catalog.Table) bool { return t.Kind != catalog.Partitioned }

// Concurrently is "CONCURRENTLY " where t can build its indexes so.
func Concurrently(t *catalog.Table) string {
	if CanBuildConcurrently(t) {
		return "CONCURRENTLY "
	}
	return ""
}

// BuildNote says how the index statements must be run.
func BuildNote(t *catalog.Table) string {
	if CanBuildConcurrently(t) {
		return "Run each statement on its own, outside a transaction (CONCURRENTLY)."
	}
	return "A partitioned table cannot build indexes CONCURRENTLY, so this blocks writes while it runs; on a large " +
		"table build the index on each partition CONCURRENTLY and attach it to an index created ON ONLY the parent."
}

// CreateIndex renders CREATE UNIQUE INDEX [CONCURRENTLY].
func CreateIndex(t *catalog.Table, name string, parts []catalog.IndexPart, include []string, nnd bool, pred []catalog.Expr) string {
	cols := make([]string, len(parts))
	for i, p := range parts {
		cols[i] = p.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE UNIQUE INDEX %s%s ON %s (%s)", Concurrently(t), catalog.QuoteIdent(name), t.DisplayName(), strings.Join(cols, ", "))
	if len(include) > 0 {
		inc := make([]string, len(include))
		for i, c := range include {
			inc[i] = catalog.QuoteIdent(c)
		}
		b.WriteString(" INCLUDE (" + strings.Join(inc, ", ") + ")")
	}
	if nnd {
		b.WriteString(" NULLS NOT DISTINCT")
	}
	if len(pred) > 0 {
		b.WriteString(" WHERE " + Where(pred))
	}
	b.WriteString(";")
	return b.String()
}

// Where renders conjuncts joined by AND, parenthesising only those that
// bind looser than AND, so a generated WHERE reads as a person writes it.
func Where(conj []catalog.Expr) string {
	parts := make([]string, len(conj))
	for i, c := range conj {
		switch c.(type) {
		case *catalog.Or, *catalog.And, *catalog.Unknown:
			parts[i] = "(" + c.String() + ")"
		default:
			parts[i] = c.String()
		}
	}
	return strings.Join(parts, " AND ")
}

// QualifiedIndex names an index for DROP INDEX and ALTER INDEX, which look
// it up through the search path unless qualified.
func QualifiedIndex(t *catalog.Table, name string) string {
	if t.Schema == "public" || t.Schema == "" {
		return catalog.QuoteIdent(name)
	}
	return catalog.QuoteIdent(t.Schema) + "." + catalog.QuoteIdent(name)
}

// PartSQL renders key parts as a select or GROUP BY list.
func PartSQL(parts []catalog.IndexPart) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.String()
	}
	return out
}

// nameWord is a key part as a fragment of a generated name, as PostgreSQL
// does it: the column, or "expr" for an expression.
func nameWord(p catalog.IndexPart) string {
	if p.Column != "" {
		return p.Column
	}
	return "expr"
}

// JoinWords joins the parts as fragments of a generated name, "a_b_expr".
func JoinWords(parts []catalog.IndexPart) string {
	w := make([]string, len(parts))
	for i, p := range parts {
		w[i] = nameWord(p)
	}
	return strings.Join(w, "_")
}

// subsets lists the non-empty subsets of parts, smallest first.
func subsets(parts []catalog.IndexPart) [][]catalog.IndexPart {
	var out [][]catalog.IndexPart
	n := len(parts)
	if n > 10 {
		n = 10 // 1023 indexes is already absurd; the caveat says so
	}
	for size := 1; size <= n; size++ {
		for mask := 1; mask < 1<<n; mask++ {
			if bitsSet(mask) != size {
				continue
			}
			var s []catalog.IndexPart
			for i := 0; i < n; i++ {
				if mask&(1<<i) != 0 {
					s = append(s, parts[i])
				}
			}
			out = append(out, s)
		}
	}
	return out
}

func bitsSet(m int) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}
