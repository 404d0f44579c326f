package sqlrace

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
)

// WrittenRows are rows the winning claims wrote to one table, read back in
// their own transactions before those rolled back: the statement's values
// as the table stored them, defaults included.
type WrittenRows struct {
	Schema string
	Table  string
	Rows   []map[string]any
}

// UniqueKey is a unique index as the diagnosis needs it. The caller builds
// it from the live catalog.
type UniqueKey struct {
	Name string
	// Columns are the key parts in order; "" marks an expression part.
	Columns           []string
	NullsNotDistinct  bool
	Deferrable        bool
	InitiallyDeferred bool
	// Partial is set when the index has a WHERE clause.
	Partial bool
	// Valid is false for an index that is not valid or not ready.
	Valid bool
	// Hole is the message the audit gives for this index alone, and
	// HoleRule the rule that gives it: nullable-key for a hole,
	// optional-unique for an index unique only when its parts are present.
	// Empty when the audit finds neither.
	Hole     string
	HoleRule string
	// Claim is the on-conflict-hole message for the raced statement when
	// this index is its arbiter and the statement can leave a part NULL:
	// usage outranks shape, so the statement is quoted first.
	Claim string
}

// writtenRows reads back what this worker's transaction wrote. The second
// result says why that failed, for a warning.
func (r *sqlRun) writtenRows(ctx context.Context, w *pgx.Conn) ([]WrittenRows, string) {
	rows, err := w.Query(ctx, writtenTablesSQL)
	if err != nil {
		return nil, "reading back the winning rows: " + r.describe(err)
	}
	tables, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (WrittenRows, error) {
		var t WrittenRows
		err := row.Scan(&t.Schema, &t.Table)
		return t, err
	})
	if err != nil {
		return nil, "reading back the winning rows: " + r.describe(err)
	}
	for i := range tables {
		q := fmt.Sprintf(writtenRowsSQL, pgx.Identifier{tables[i].Schema, tables[i].Table}.Sanitize())
		rows, err := w.Query(ctx, q)
		if err != nil {
			return nil, "reading back the winning rows: " + r.describe(err)
		}
		tables[i].Rows, err = pgx.CollectRows(rows, pgx.RowTo[map[string]any])
		if err != nil {
			return nil, "reading back the winning rows: " + r.describe(err)
		}
	}
	return tables, ""
}

// mergeWritten adds one winner's rows to those of the others, table by table.
func mergeWritten(all, more []WrittenRows) []WrittenRows {
	for _, m := range more {
		found := false
		for i := range all {
			if all[i].Schema == m.Schema && all[i].Table == m.Table {
				all[i].Rows = append(all[i].Rows, m.Rows...)
				found = true
			}
		}
		if !found {
			all = append(all, m)
		}
	}
	return all
}

// diagnose names, for a round with more than one win, the unique index that
// should have refused and why it did not.
func (r *sqlRun) diagnose(ctx context.Context, round int, written []WrittenRows) []string {
	if len(written) == 0 {
		return []string{fmt.Sprintf("round %d: the winning statements wrote no rows that could be read back "+
			"(a SELECT or an UPDATE of no row?), so no unique index can be named", round)}
	}
	var out []string
	for _, w := range written {
		name := w.Schema + "." + w.Table
		keys, err := r.p.UniqueKeys(ctx, w.Schema, w.Table)
		if err != nil {
			out = append(out, fmt.Sprintf("reading the unique indexes of %s: %v", name, err))
			continue
		}
		out = append(out, DiagnoseRows(name, keys, w.Rows)...)
	}
	return out
}

// DiagnoseRows explains why the rows of table, written by concurrent
// claims that all won, were all accepted. An index on which the rows
// disagree (a serial id, a random uuid) has nothing to say; one on which
// they agree should have refused, and the reason it did not is a NULL key
// part, a deferred constraint, a WHERE clause or an invalid index. When no
// index is on the claim's key, that is the diagnosis.
func DiagnoseRows(table string, keys []UniqueKey, rows []map[string]any) []string {
	if len(rows) < 2 {
		return []string{fmt.Sprintf("only %d winning row of %s could be read back, so no unique index can be named", len(rows), table)}
	}
	var out []string
	for _, k := range keys {
		if hasExpressionPart(k) || !agreeOn(k.Columns, rows) {
			continue
		}
		out = append(out, keyDiagnosis(table, k, nullColumns(k.Columns, rows[0])))
	}
	if len(out) > 0 {
		return out
	}
	agreed := agreeingColumns(rows)
	return []string{fmt.Sprintf("no unique index on %s covers the inserted columns: the winning rows agree on %s, "+
		"but no unique index has them as its key, so nothing in the database refuses the second claim "+
		"(a check-then-insert such as INSERT ... WHERE NOT EXISTS never sees an uncommitted row); "+
		"add a unique index over the claim's key", table, wordList(agreed))}
}

// keyDiagnosis says why index k, on whose key every winning row agrees,
// let them all in.
func keyDiagnosis(table string, k UniqueKey, nulls []string) string {
	ix := table + "." + k.Name + " (" + strings.Join(k.Columns, ", ") + ")"
	switch {
	case len(nulls) > 0 && !k.NullsNotDistinct:
		s := fmt.Sprintf("%s should have refused: %s was NULL in the statement's values, and a unique index never finds two NULLs equal",
			ix, wordList(nulls))
		if k.Claim != "" {
			s += ". on-conflict-hole: " + k.Claim
		}
		switch {
		case k.Hole == "":
		case k.HoleRule == "optional-unique":
			s += ". The index alone reads as unique when present (optional-unique: " + k.Hole + "), but this claim " +
				"relies on it for the rows where " + wordList(nulls) + " is NULL: usage outranks shape"
		default:
			rule := k.HoleRule
			if rule == "" {
				rule = "nullable-key"
			}
			s += ". " + rule + ": " + k.Hole
		}
		return s
	case k.Deferrable && k.InitiallyDeferred:
		return ix + " is DEFERRABLE INITIALLY DEFERRED (deferrable-unique): duplicates are refused only at commit, " +
			"and ON CONFLICT cannot use it as an arbiter, so \"the insert is the lock\" no longer holds; " +
			"every claim went through before any commit (--commit shows the refusal at commit)"
	case k.Partial:
		return ix + " did not refuse: the winning rows fall outside its WHERE clause"
	case !k.Valid:
		return ix + " did not refuse: the index is not valid or not ready, so it enforces nothing (invalid-unique-index)"
	}
	return ix + " has the same key in every winning row and still did not refuse; run `idemcheck inspect` on the table"
}

func hasExpressionPart(k UniqueKey) bool {
	for _, c := range k.Columns {
		if c == "" {
			return true
		}
	}
	return len(k.Columns) == 0
}

// agreeOn reports whether every row has the same value (NULL counting as
// equal to NULL) in each of the columns.
func agreeOn(cols []string, rows []map[string]any) bool {
	for _, c := range cols {
		first := jsonText(rows[0][c])
		for _, row := range rows[1:] {
			if jsonText(row[c]) != first {
				return false
			}
		}
	}
	return true
}

func nullColumns(cols []string, row map[string]any) []string {
	var out []string
	for _, c := range cols {
		if row[c] == nil {
			out = append(out, c)
		}
	}
	return out
}

// agreeingColumns are the columns on which every row agrees and holds a
// value: the claim's key as the statement wrote it.
func agreeingColumns(rows []map[string]any) []string {
	var out []string
	for c, v := range rows[0] {
		if v != nil && agreeOn([]string{c}, rows) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// wordList is "a", "a and b", "a, b and c"; "no column" when empty.
func wordList(words []string) string {
	switch len(words) {
	case 0:
		return "no column"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
