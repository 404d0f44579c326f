package rails

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/idemcheck/idemcheck/frameworks/internal/ddl"
	"github.com/idemcheck/idemcheck/internal/inflect"
)

// addIndex is add_index :table, columns, options.
func (r *reader) addIndex(c call) {
	table, ok := r.arg(c, 0, "table name")
	if !ok {
		return
	}
	r.index(c, table.text, c.args, 1)
}

// index writes CREATE INDEX for t.index (columns at args[first]) or
// add_index, the way the PostgreSQL adapter words it.
func (r *reader) index(c call, table string, args []value, first int) {
	at := r.pos(c.off)
	if first >= len(args) {
		r.fail(c.off, "%s: expected the indexed columns", c.name)
		return
	}
	colsArg := args[first]
	b := r.builder()
	b.Write(at, "CREATE ")
	if v, ok := c.opt("unique"); ok && v.truthy() {
		b.Write(at, "UNIQUE ")
	}
	b.Write(at, "INDEX ")
	if v, ok := c.opt("algorithm"); ok && v.text == "concurrently" {
		b.Write(at, "CONCURRENTLY ")
	}
	if v, ok := c.opt("if_not_exists"); ok && v.truthy() {
		b.Write(at, "IF NOT EXISTS ")
	}
	var cols []string
	if colsArg.kind == vArray || colsArg.kind == vSymbol {
		cols = colsArg.strings()
	} else if colsArg.kind == vString && isColumnName(colsArg.text) {
		cols = []string{colsArg.text}
	}
	name := ""
	if v, ok := c.opt("name"); ok {
		name = v.text
	} else {
		words := cols
		if words == nil {
			words = []string{colsArg.text}
		}
		var long bool
		name, long = r.indexName(table, words)
		if long {
			r.fail(c.off, "the index name Rails would generate for %s is longer than 63 bytes, which Rails before 7.1 refuses; give it a name:", table)
			return
		}
	}
	b.Write(at, ddl.Ident(name), " ON ", ddl.Qualified(table))
	if v, ok := c.opt("using"); ok {
		b.Write(at, " USING ", v.text)
	}
	b.Write(at, " (")
	if cols == nil {
		// An expression index: the string is the SQL between the parentheses.
		if colsArg.kind != vString {
			r.fail(colsArg.off, "%s: expected the columns as an array or an expression string", c.name)
			return
		}
		b.Copy(*colsArg.str)
	} else {
		opclass, _ := c.opt("opclass")
		order, _ := c.opt("order")
		for i, col := range cols {
			if i > 0 {
				b.Write(at, ", ")
			}
			b.Write(at, ddl.Ident(col))
			if oc := perColumn(opclass, col); oc != "" {
				b.Write(at, " ", oc)
			}
			if o := perColumn(order, col); o != "" {
				b.Write(at, " ", strings.ToUpper(o))
			}
		}
	}
	b.Write(at, ")")
	if v, ok := c.opt("include"); ok {
		b.Write(at, " INCLUDE (", ddl.Idents(v.strings()), ")")
	}
	if v, ok := c.opt("nulls_not_distinct"); ok && v.truthy() {
		b.Write(at, " NULLS NOT DISTINCT")
	}
	if v, ok := c.opt("where"); ok {
		if v.kind != vString {
			r.fail(v.off, "%s: expected where: as a string", c.name)
			return
		}
		b.Write(at, " WHERE ")
		b.Copy(*v.str)
	}
	r.emit(b)
}

// isColumnName tells `t.index "email"` (one column, Rails 5+) from an
// expression string such as "lower((email)::text)".
func isColumnName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

// perColumn reads opclass: and order:, given either for every column
// (`order: :desc`) or per column (`order: { created_at: :desc }`).
func perColumn(v value, col string) string {
	switch v.kind {
	case vSymbol, vString:
		return v.text
	case vHash:
		for _, p := range v.pairs {
			if p.key == col {
				return p.val.text
			}
		}
	}
	return ""
}

// indexName is the name Rails gives an index it is not told to name:
// index_<table>_on_<a>_and_<b>. Past 62 bytes Rails 7.1 and later use
// idx_on_<a>_<b>_<first 10 hex digits of SHA-256 of the long name>; older
// Rails refuses (long is then true).
func (r *reader) indexName(table string, cols []string) (name string, long bool) {
	name = "index_" + table + "_on_" + strings.Join(cols, "_and_")
	if len(name) <= 62 {
		return name, false
	}
	if !r.s.AtLeast(7, 1) {
		return name, len(name) > 63
	}
	hash := "_" + hexSHA(name)
	short := "idx_on_" + strings.Join(cols, "_")
	if limit := 62 - len(hash); len(short) > limit {
		short = truncateBytes(short, limit)
	}
	return short + hash, false
}

// hexSHA is the first 10 hex digits of SHA-256, Rails' hashed identifier.
func hexSHA(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:10]
}

// truncateBytes cuts s to at most n bytes without splitting a character.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// checkName is the name of a check constraint: given, or Rails' generated
// chk_rails_<hash of "<table>_<expression>_chk">, which the dumper leaves out.
func (r *reader) checkName(table string, c call) string {
	if v, ok := c.opt("name"); ok {
		return v.text
	}
	expr := ""
	for _, a := range c.args {
		if a.kind == vString {
			expr = a.text
		}
	}
	return "chk_rails_" + hexSHA(table+"_"+expr+"_chk")
}

// uniqueConstraintName is Rails 7.1's uniq_rails_<hash of
// "<table>_<a>_and_<b>_unique">.
func (r *reader) uniqueConstraintName(table string, cols []string) string {
	return "uniq_rails_" + hexSHA(table+"_"+strings.Join(cols, "_and_")+"_unique")
}

func (r *reader) removeIndex(c call) {
	table, ok := r.arg(c, 0, "table name")
	if !ok {
		return
	}
	name := ""
	if v, ok := c.opt("name"); ok {
		name = v.text
	} else {
		var cols []string
		if v, ok := c.opt("column"); ok {
			cols = v.strings()
		} else if len(c.args) > 1 {
			cols = c.args[1].strings()
		}
		if len(cols) == 0 {
			r.fail(c.off, "remove_index: expected name: or the columns")
			return
		}
		name, _ = r.indexName(table.text, cols)
	}
	b := r.builder()
	at := r.pos(c.off)
	b.Write(at, "DROP INDEX ")
	if v, ok := c.opt("algorithm"); ok && v.text == "concurrently" {
		b.Write(at, "CONCURRENTLY ")
	}
	if v, ok := c.opt("if_exists"); ok && v.truthy() {
		b.Write(at, "IF EXISTS ")
	}
	b.Write(at, r.indexRef(table.text, name))
	r.emit(b)
}

// indexRef qualifies an index name with its table's schema, as Rails does.
func (r *reader) indexRef(table, name string) string {
	if schema, _, ok := strings.Cut(table, "."); ok {
		return ddl.Ident(schema) + "." + ddl.Ident(name)
	}
	return ddl.Ident(name)
}

func (r *reader) renameIndex(c call) {
	if len(c.args) != 3 {
		r.fail(c.off, "rename_index: expected the table, the old name and the new name")
		return
	}
	b := r.builder()
	b.Write(r.pos(c.off), "ALTER INDEX ", r.indexRef(c.args[0].text, c.args[1].text), " RENAME TO ", ddl.Ident(c.args[2].text))
	r.emit(b)
}

func (r *reader) changeColumnNull(c call) {
	if len(c.args) < 3 {
		r.fail(c.off, "change_column_null: expected the table, the column and true or false")
		return
	}
	action := "SET NOT NULL"
	if c.args[2].truthy() {
		action = "DROP NOT NULL"
	}
	b := r.builder()
	b.Write(r.pos(c.off), "ALTER TABLE ", ddl.Qualified(c.args[0].text), " ALTER COLUMN ", ddl.Ident(c.args[1].text), " ", action)
	r.emit(b)
}

func (r *reader) addCheck(c call) {
	if len(c.args) < 2 || c.args[1].kind != vString {
		r.fail(c.off, "add_check_constraint: expected the table and the expression as a string")
		return
	}
	table := c.args[0].text
	at := r.pos(c.off)
	b := r.builder()
	b.Write(at, "ALTER TABLE ", ddl.Qualified(table), " ADD CONSTRAINT ", ddl.Ident(r.checkName(table, c)), " CHECK (")
	b.Copy(*c.args[1].str)
	b.Write(at, ")")
	if v, ok := c.opt("validate"); ok && !v.truthy() {
		b.Write(at, " NOT VALID")
	}
	r.emit(b)
}

func (r *reader) removeCheck(c call) {
	if len(c.args) < 1 {
		r.fail(c.off, "remove_check_constraint: expected the table")
		return
	}
	table := c.args[0].text
	b := r.builder()
	b.Write(r.pos(c.off), "ALTER TABLE ", ddl.Qualified(table), " DROP CONSTRAINT ", ddl.Ident(r.checkName(table, c)))
	r.emit(b)
}

func (r *reader) addUniqueConstraint(c call) {
	if len(c.args) < 2 {
		r.fail(c.off, "add_unique_constraint: expected the table and the columns")
		return
	}
	table, cols := c.args[0].text, c.args[1].strings()
	name := r.uniqueConstraintName(table, cols)
	if v, ok := c.opt("name"); ok {
		name = v.text
	}
	at := r.pos(c.off)
	b := r.builder()
	b.Write(at, "ALTER TABLE ", ddl.Qualified(table), " ADD CONSTRAINT ", ddl.Ident(name), " UNIQUE")
	if v, ok := c.opt("nulls_not_distinct"); ok && v.truthy() {
		b.Write(at, " NULLS NOT DISTINCT")
	}
	b.Write(at, " (", ddl.Idents(cols), ")", deferrable(c))
	r.emit(b)
}

// addForeignKey is add_foreign_key :from, :to. The dumper leaves out column:
// when it is Rails' default (the singular of the referenced table, _id) and
// name: when it is the generated fk_rails_<hash>.
func (r *reader) addForeignKey(c call) {
	if len(c.args) < 2 {
		r.fail(c.off, "add_foreign_key: expected two tables")
		return
	}
	from, to := c.args[0].text, c.args[1].text
	var cols []string
	if v, ok := c.opt("column"); ok {
		cols = v.strings()
	} else {
		cols = []string{inflect.Singular(to[strings.LastIndex(to, ".")+1:]) + "_id"}
		if info := r.tables[from]; info != nil && !info.columns[cols[0]] {
			r.note(c.off, "add_foreign_key %s, %s: Rails would use the column %s, which %s does not have (Rails' default inflections; the app's own may singularize %s otherwise); skipped",
				from, to, cols[0], from, to)
			return
		}
	}
	refs := []string{"id"}
	if v, ok := c.opt("primary_key"); ok {
		refs = v.strings()
	}
	name := "fk_rails_" + hexSHA(from+"_"+strings.Join(cols, "_")+"_fk")
	if v, ok := c.opt("name"); ok {
		name = v.text
	}
	at := r.pos(c.off)
	b := r.builder()
	b.Write(at, "ALTER TABLE ", ddl.Qualified(from), " ADD CONSTRAINT ", ddl.Ident(name), " FOREIGN KEY (", ddl.Idents(cols),
		") REFERENCES ", ddl.Qualified(to), " (", ddl.Idents(refs), ")")
	for _, k := range []string{"on_delete", "on_update"} {
		if v, ok := c.opt(k); ok {
			action := map[string]string{"cascade": "CASCADE", "nullify": "SET NULL", "restrict": "RESTRICT"}[v.text]
			if action != "" {
				b.Write(at, " ON ", strings.ToUpper(strings.TrimPrefix(k, "on_")), " ", action)
			}
		}
	}
	b.Write(at, deferrable(c))
	if v, ok := c.opt("validate"); ok && !v.truthy() {
		b.Write(at, " NOT VALID")
	}
	r.emit(b)
}

// validateConstraint is validate_check_constraint :table, name: (Rails 6.1)
// and validate_constraint :table, "name" (Rails 7.1).
func (r *reader) validateConstraint(c call) {
	if len(c.args) < 1 {
		r.fail(c.off, "%s: expected the table", c.name)
		return
	}
	table := c.args[0].text
	name := ""
	if v, ok := c.opt("name"); ok {
		name = v.text
	} else if len(c.args) > 1 {
		name = c.args[1].text
		if c.name == "validate_check_constraint" {
			name = r.checkName(table, c)
		}
	}
	if name == "" {
		r.fail(c.off, "%s: expected the constraint's name", c.name)
		return
	}
	b := r.builder()
	b.Write(r.pos(c.off), "ALTER TABLE ", ddl.Qualified(table), " VALIDATE CONSTRAINT ", ddl.Ident(name))
	r.emit(b)
}
