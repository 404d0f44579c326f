package audit

import "github.com/idemcheck/idemcheck/catalog"

// OptionalUnique notes a single-column unique index whose key may be NULL:
// unique when present, which is usually what the author meant.
var OptionalUnique = &Rule{
	ID:    "optional-unique",
	Title: "a single-part unique index is unique only when its key is present",
	Doc: `A unique index over one key part that may be NULL limits the rows that have a
value and lets any number of rows without one through. That is usually intended (an
optional email, an optional external reference); this note is there so the choice is
a conscious one. Say it explicitly with WHERE key IS NOT NULL, or make the column
NOT NULL when every row must have one.`,
	Bad: `CREATE TABLE users (
    id bigint PRIMARY KEY,
    external_ref text
);
CREATE UNIQUE INDEX users_external_ref ON users (external_ref);`,
	Good: `CREATE TABLE users (
    id bigint PRIMARY KEY,
    external_ref text
);
CREATE UNIQUE INDEX users_external_ref ON users (external_ref)
    WHERE external_ref IS NOT NULL;`,
	Severity: Info,
	Needs:    Either,
	Run:      runOptionalUnique,
}

func runOptionalUnique(p *Pass) {
	checkedIndexes(p.Catalog, func(t *catalog.Table, ix *catalog.Index) {
		if len(ix.Parts) != 1 {
			return
		}
		h := findHole(t, ix)
		if h == nil {
			return
		}
		f := h.finding(p)
		f.Message = optionalMessage(h)
		p.Report(f)
	})
}

// optionalMessage says the index is unique only when its key is present.
func optionalMessage(h *hole) string {
	msg := indexHeader(h.Table, h.Index) + ": " + partWords(h.Parts[0]) +
		" may be NULL, so the index is unique when present: any number of " +
		rowNoun(h.Table) + " with " + absentWords(h.Parts[0]) + " are accepted"
	if h.Index.Predicate != nil {
		msg += " among rows where " + h.Index.Predicate.String()
	}
	return msg + notValidWords(h.NotValid)
}
