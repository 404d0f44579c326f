package audit

import (
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/inflect"
)

// This file decides, from a table's structure and its names together, which
// columns hold idempotency or dedupe keys. key-without-unique and
// idempotency-table-shape share it; the word lists are in names.go.

// nameWords splits an identifier into lower-case words at underscores,
// hyphens, spaces and camelCase humps: idempotencyKeyTtlMs is idempotency,
// key, ttl, ms.
//
// The rules ask for the words of the same few hundred names (a schema's
// tables and columns) many times over, on every core, so each answer is
// kept. The slices are shared: callers must not change them, and a slice
// is cut to its length so that an append copies it.
func nameWords(name string) []string {
	if w, ok := wordsOf.Load(name); ok {
		return w.([]string)
	}
	var words []string
	if ascii(name) {
		words = asciiNameWords(name)
	} else {
		words = runeNameWords(name)
	}
	words = words[:len(words):len(words)]
	wordsOf.Store(strings.Clone(name), words)
	return words
}

// wordsOf holds nameWords' answers: name -> its words.
var wordsOf sync.Map

// runeNameWords is nameWords for any name.
func runeNameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '.':
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0:
			prev := runes[i-1]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// asciiNameWords is nameWords for a name of ASCII letters alone, as almost
// every identifier is: the same words, cut from the name without a copy
// and lowered only when they hold a capital.
func asciiNameWords(name string) []string {
	var words []string
	start := -1 // the current word's start, -1 when there is none
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, lowerASCII(name[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == ' ' || c == '.':
			flush(i)
			continue
		case isUpperASCII(c) && start >= 0:
			prev := name[i-1]
			nextLower := i+1 < len(name) && isLowerASCII(name[i+1])
			if isLowerASCII(prev) || isDigitASCII(prev) || (isUpperASCII(prev) && nextLower) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(name))
	return words
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isUpperASCII(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigitASCII(c byte) bool { return '0' <= c && c <= '9' }

// lowerASCII lowers an ASCII word, copying it only when it holds a capital.
func lowerASCII(w string) string {
	for i := 0; i < len(w); i++ {
		if isUpperASCII(w[i]) {
			return strings.ToLower(w)
		}
	}
	return w
}

// hasPurposeWord reports whether a word of the name starts with a stem of
// keyPurposeStems (idempotency, dedupe, deduplication).
func hasPurposeWord(words []string) bool {
	for _, w := range words {
		for _, s := range keyPurposeStems {
			if strings.HasPrefix(w, s) {
				return true
			}
		}
	}
	return false
}

// keyNameStrength says how strongly a column's name claims to hold a key.
type keyNameStrength int

const (
	notKeyName keyNameStrength = iota
	// weakKeyName is a bare request id (request_id, create_request_id): as
	// often a correlation id that is only recorded as a retry key.
	weakKeyName
	// strongKeyName says idempotency or dedupe (idempotency_key,
	// dedup_hash) or is the client's own request id (client_request_id).
	strongKeyName
)

// keyName reads a column name: a purpose word and a key noun last, or a
// request id.
func keyName(name string) keyNameStrength {
	words := nameWords(name)
	if len(words) == 0 {
		return notKeyName
	}
	last := words[len(words)-1]
	purpose := hasPurposeWord(words)
	if purpose && (slices.Contains(keyNouns, last) || gluedKeyNoun(last)) {
		return strongKeyName
	}
	requestID := last == "requestid" || (last == "id" && len(words) >= 2 && words[len(words)-2] == "request")
	if !requestID {
		return notKeyName
	}
	if purpose || slices.ContainsFunc(words, func(w string) bool { return slices.Contains(clientWords, w) }) {
		return strongKeyName
	}
	return weakKeyName
}

// gluedKeyNoun reports whether a single word is a purpose stem with a key
// noun glued on (idempotencykey, dedupkey).
func gluedKeyNoun(w string) bool {
	for _, n := range keyNouns {
		if len(w) > len(n) && strings.HasSuffix(w, n) && hasPurposeWord([]string{w}) {
			return true
		}
	}
	return false
}

// baseType is a column's type without schema, length or precision, with a
// domain resolved to its base type; array reports a "[]" type.
func baseType(cat *catalog.Catalog, col *catalog.Column) (name string, array bool) {
	typ := col.Type
	// A domain is looked up by its full name, then replaced by the type it
	// is declared over (a few levels of domains over domains).
	for range 8 {
		schema, domain := "", typ
		if i := strings.LastIndexByte(typ, '.'); i >= 0 && !strings.Contains(typ[:i], "(") {
			schema, domain = strings.Trim(typ[:i], `"`), typ[i+1:]
		}
		d := cat.ResolveDomain(schema, strings.Trim(domain, `"`))
		if d == nil {
			break
		}
		typ = d.Type
	}
	typ = strings.ToLower(strings.TrimSpace(typ))
	if strings.HasSuffix(typ, "[]") || strings.HasPrefix(typ, "_") {
		return strings.TrimSuffix(typ, "[]"), true
	}
	if i := strings.IndexByte(typ, '('); i >= 0 {
		typ = strings.TrimSpace(typ[:i] + typ[strings.IndexByte(typ, ')')+1:])
	}
	if i := strings.LastIndexByte(typ, '.'); i >= 0 {
		typ = typ[i+1:]
	}
	return strings.Trim(typ, `"`), false
}

// keyLikeType reports whether the column's type can hold a key: a scalar
// text, uuid, bytea or integer type (keyTypes), never an array.
func keyLikeType(cat *catalog.Catalog, col *catalog.Column) bool {
	typ, array := baseType(cat, col)
	return !array && slices.Contains(keyTypes, typ)
}

// isTimestamp reports whether the column holds a point in time.
func isTimestamp(cat *catalog.Catalog, col *catalog.Column) bool {
	typ, array := baseType(cat, col)
	return !array && (strings.HasPrefix(typ, "timestamp") || typ == "date" || typ == "timestamptz")
}

// isBoolean reports whether the column is a boolean.
func isBoolean(cat *catalog.Catalog, col *catalog.Column) bool {
	typ, array := baseType(cat, col)
	return !array && (typ == "boolean" || typ == "bool")
}

// referencedTable is the table a column points at: through a declared
// foreign key, or by convention when the column is named {table}_id after a
// table that exists (merge_request_id and merge_requests: large schemas
// often keep such loose foreign keys without a constraint). ok is false
// when the column is no reference; ref is nil when it is one to a table the
// catalog does not hold.
func referencedTable(cat *catalog.Catalog, t *catalog.Table, column string) (ref *catalog.Table, ok bool) {
	for _, fk := range t.ForeignKeys {
		if slices.Contains(fk.Columns, column) {
			schema, name, _ := strings.Cut(fk.RefTable, ".")
			return cat.ResolveTable(schema, name), true
		}
	}
	words := nameWords(column)
	if len(words) < 2 || words[len(words)-1] != "id" {
		return nil, false
	}
	stem := words[:len(words)-1]
	// The table named after the stem, or else one that also begins with the
	// first word of t's own name: in a schema of TaskRun, TaskEvent and
	// TaskAttempt, TaskEvent.runId points at TaskRun.
	var prefixed []string
	if tw := nameWords(t.Name); len(tw) > 1 {
		prefixed = append([]string{tw[0]}, stem...)
	}
	index := tableIndex(cat)
	for _, forms := range [][]string{tableNameForms(stem), tableNameForms(prefixed)} {
		var found *catalog.Table
		pos := -1
		for _, form := range forms {
			for _, e := range index[form] {
				if e.table != t && e.table.PartitionOf == "" && (pos < 0 || e.pos < pos) {
					found, pos = e.table, e.pos
				}
			}
		}
		if found != nil {
			return found, true
		}
	}
	return nil, false
}

// indexedTable is a table of the catalog and its place in Tables().
type indexedTable struct {
	table *catalog.Table
	pos   int
}

// tableIndexes holds, per catalog being audited, its tables by squashed
// name (tableIndex). Run forgets a catalog's when it ends.
var tableIndexes sync.Map

// tableIndex is cat's tables by squashed name, in the order of Tables():
// a reference's stem is looked up in it, once per part, instead of a walk
// over every table.
func tableIndex(cat *catalog.Catalog) map[string][]indexedTable {
	if v, ok := tableIndexes.Load(cat); ok {
		return v.(map[string][]indexedTable)
	}
	index := map[string][]indexedTable{}
	for i, t := range cat.Tables() {
		k := squash(t.Name)
		index[k] = append(index[k], indexedTable{t, i})
	}
	tableIndexes.Store(cat, index)
	return index
}

// isReference reports whether the column references another table.
func isReference(cat *catalog.Catalog, t *catalog.Table, column string) bool {
	_, ok := referencedTable(cat, t, column)
	return ok
}

// squash lower-cases a name and drops its separators, so merge_requests,
// MergeRequests and "mergeRequests" compare equal.
func squash(name string) string { return strings.Join(nameWords(name), "") }

// tableNameForms are the squashed table names a reference's stem can have,
// given as words: the stem itself (a Prisma model, PersonalAccessToken) and
// its plural as Rails names a table (person: people, order status:
// order_statuses).
func tableNameForms(stem []string) []string {
	if len(stem) == 0 {
		return nil
	}
	joined := strings.Join(stem, "_")
	return []string{squash(joined), squash(inflect.Plural(joined))}
}

// isSurrogate reports whether a primary key column holds a row id made per
// insert: an identity column, or one named id, uuid or {table}_id.
func isSurrogate(t *catalog.Table, col *catalog.Column) bool {
	if col.Identity {
		return true
	}
	n := squash(col.Name)
	if slices.Contains(surrogateNames, n) {
		return true
	}
	table := squash(t.Name)
	for _, s := range surrogateNames {
		for _, form := range []string{table, squash(inflect.Singular(t.Name))} {
			if n == form+s {
				return true
			}
		}
	}
	return false
}

// naturalPrimaryKey returns the table's primary key when every column of it
// is a natural value (no identity, no id/uuid/{table}_id column): then a
// repeated request finds its row by the key and cannot insert a second one,
// whatever else the row holds. nil otherwise.
func naturalPrimaryKey(t *catalog.Table) *catalog.Index {
	for _, ix := range t.Indexes {
		if !ix.Primary || ix.Predicate != nil {
			continue
		}
		for _, p := range ix.Parts {
			col := t.Column(p.Column)
			if p.Column == "" || col == nil || isSurrogate(t, col) {
				return nil
			}
		}
		return ix
	}
	return nil
}

// readByIndex reports whether some index reads the column as a key part or
// carries it (INCLUDE): the application looks rows up by it, or its author
// thought an index had it.
func readByIndex(t *catalog.Table, column string) *catalog.Index {
	for _, ix := range t.Indexes {
		if slices.Contains(ix.Include, column) {
			return ix
		}
		for _, p := range ix.Parts {
			if slices.Contains(p.Columns(), column) {
				return ix
			}
		}
	}
	return nil
}

// duplicateFlag returns a boolean column of t that marks rows kept as
// duplicates (is_duplicate_event), or nil.
func duplicateFlag(cat *catalog.Catalog, t *catalog.Table) *catalog.Column {
	for _, col := range t.Columns {
		if !isBoolean(cat, col) {
			continue
		}
		for _, w := range nameWords(col.Name) {
			if slices.Contains(duplicateFlagWords, w) {
				return col
			}
		}
	}
	return nil
}

// inheritedKey returns the table t references (by a foreign key, declared
// or by name) that has a column of the same name: the key was copied from
// the parent row, one parent fanning out to many rows here.
func inheritedKey(cat *catalog.Catalog, t *catalog.Table, column string) *catalog.Table {
	for _, col := range t.Columns {
		if col.Name == column {
			continue
		}
		ref, _ := referencedTable(cat, t, col.Name)
		if ref != nil && ref != t && ref.Column(column) != nil {
			return ref
		}
	}
	return nil
}

// timePartitioned reports whether t is a partitioned table split by time:
// every unique index of a partitioned table must hold its partition key,
// and here each one (the primary key at least) holds a timestamp. A key
// can then only be unique within a period, never across them: the table
// is a log of what happened (events, deliveries), and a key that must be
// unique is claimed in a table of its own.
func timePartitioned(cat *catalog.Catalog, t *catalog.Table) bool {
	if t.Kind != catalog.Partitioned {
		return false
	}
	uniques := t.UniqueIndexes()
	if len(uniques) == 0 {
		return false
	}
	for _, ix := range uniques {
		timed := false
		for _, p := range ix.Parts {
			if col := t.Column(p.Column); col != nil && isTimestamp(cat, col) {
				timed = true
			}
		}
		if !timed {
			return false
		}
	}
	return true
}

// copiedKey returns another key column of t that a unique index without a
// hole keeps unique and whose name is part of col's name
// (inactive_idempotency_key beside idempotency_key): the table's key is
// gated there, and col holds a copy of it (parked after it expired, the
// previous one), which repeats by design. nil when there is none.
func copiedKey(p *Pass, t *catalog.Table, col *catalog.Column) *catalog.Column {
	name := squash(col.Name)
	for _, other := range t.Columns {
		short := squash(other.Name)
		if other == col || len(short) >= len(name) || !strings.Contains(name, short) {
			continue
		}
		if keyColumn(p.Catalog, t, other) != notKeyName && holeFreeUniqueOver(p, t, other.Name) {
			return other
		}
	}
	return nil
}

// keyColumn is a column that holds idempotency or dedupe keys by its name
// and its structure: a key name, a key-like scalar type, and not a
// reference to another table.
func keyColumn(cat *catalog.Catalog, t *catalog.Table, col *catalog.Column) keyNameStrength {
	strength := keyName(col.Name)
	if strength == notKeyName || !keyLikeType(cat, col) || isReference(cat, t, col.Name) {
		return notKeyName
	}
	return strength
}

// tableSaysKeys reports whether a table's name says it stores idempotency or
// dedupe keys.
func tableSaysKeys(t *catalog.Table) bool { return hasPurposeWord(nameWords(t.Name)) }

// keyStoreColumn is the column holding the keys of a table whose name says
// it stores idempotency keys: a key column, or a key-like column named key
// or *_key. nil when there is none.
func keyStoreColumn(cat *catalog.Catalog, t *catalog.Table) *catalog.Column {
	var fallback *catalog.Column
	for _, col := range t.Columns {
		if keyColumn(cat, t, col) == strongKeyName {
			return col
		}
		words := nameWords(col.Name)
		if fallback == nil && tableSaysKeys(t) && len(words) > 0 && words[len(words)-1] == "key" &&
			keyLikeType(cat, col) {
			fallback = col
		}
	}
	if !tableSaysKeys(t) {
		return nil
	}
	return fallback
}

// keyStore returns another table of t's schema that stores idempotency keys
// behind a unique index without a hole: when it exists, the keys are
// claimed there (in the same transaction as the row here), and a key column
// nothing looks up only records which key made the row.
func keyStore(p *Pass, t *catalog.Table) *catalog.Table {
	s := p.Catalog.Schema(t.Schema)
	if s == nil {
		return nil
	}
	var found *catalog.Table
	for _, other := range s.Tables {
		if other == t || other.PartitionOf != "" || !tableSaysKeys(other) {
			continue
		}
		if key := keyStoreColumn(p.Catalog, other); key != nil && holeFreeUniqueOver(p, other, key.Name) {
			if found == nil || other.Name < found.Name {
				found = other
			}
		}
	}
	return found
}

// stateColumn is a column that holds a claim's state (status, state,
// in_progress), not a time and not the stored response's status code. nil
// when the table has none.
func stateColumn(cat *catalog.Catalog, t *catalog.Table) *catalog.Column {
	for _, col := range t.Columns {
		n := strings.ToLower(col.Name)
		if isTimestamp(cat, col) || slices.ContainsFunc(statusColumn.fragments, func(f string) bool {
			return strings.Contains(n, f)
		}) {
			continue
		}
		for _, w := range nameWords(col.Name) {
			if slices.Contains(stateWords, w) {
				return col
			}
		}
	}
	return nil
}

// wordListDoc renders name lists for a rule's doc, one item per list,
// wrapped like the rest of the doc.
func wordListDoc(lists ...wordList) string {
	const width = 80
	var b strings.Builder
	b.WriteString("Words matched (audit/names.go):")
	for _, l := range lists {
		line := "- " + l.what + ":"
		for i, w := range l.words {
			if i < len(l.words)-1 {
				w += ","
			}
			if len(line)+1+len(w) > width {
				b.WriteString("\n" + line)
				line = " "
			}
			line += " " + w
		}
		b.WriteString("\n" + line)
	}
	return b.String()
}

// wordList is one list of words with what it is for.
type wordList struct {
	what  string
	words []string
}
