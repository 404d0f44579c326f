package rails

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/frameworks/internal/ddl"
	"github.com/idemcheck/idemcheck/internal/inflect"
)

// tableDef collects a create_table block: its columns and table constraints
// go into CREATE TABLE, its indexes follow as their own statements, as the
// PostgreSQL adapter sends them.
type tableDef struct {
	name    string
	b       *ddl.Builder
	n       int // column and constraint definitions written
	indexes []call
	pk      []string
}

func (r *reader) createTable(c call) {
	name, ok := r.arg(c, 0, "table name")
	if !ok {
		return
	}
	t := &tableDef{name: name.text, b: r.builder()}
	info := &tableInfo{columns: map[string]bool{}}
	r.tables[t.name] = info
	at := r.pos(c.off)
	t.b.Write(at, "CREATE TABLE ", ddl.Qualified(t.name), " (")

	// The primary key Rails adds unless id: false.
	id, hasID := c.opt("id")
	pk, hasPK := c.opt("primary_key")
	switch {
	case hasPK && pk.kind == vArray:
		t.pk = pk.strings()
		if hasID && id.kind != vBool {
			r.note(c.off, "create_table %s: id: is ignored beside a composite primary_key:", t.name)
		}
	case hasID && id.kind == vBool && id.text == "false":
	default:
		col := "id"
		if hasPK && pk.kind != vNil {
			col = pk.text
		}
		typ := "bigserial"
		if hasID && (id.kind == vSymbol || id.kind == vString) {
			typ = idType(id.text)
		}
		t.column(at, col, typ+" NOT NULL PRIMARY KEY")
		info.columns[col] = true
	}
	if c.block != nil {
		for _, tc := range c.block.calls {
			r.span(tc)
			r.tableCall(t, info, tc)
		}
	}
	if len(t.pk) > 0 {
		t.def(at, "PRIMARY KEY (", ddl.Idents(t.pk), ")")
	}
	t.b.Write(at, ")")
	r.emit(t.b)
	for _, ic := range t.indexes {
		r.index(ic, t.name, ic.args, 0)
	}
}

// idType is the SQL type of the primary key for id: :type.
func idType(t string) string {
	switch t {
	case "primary_key", "bigint", "bigserial":
		return "bigserial"
	case "integer", "serial":
		return "serial"
	case "uuid":
		return "uuid"
	}
	return columnType(t, nil)
}

func (t *tableDef) def(at catalog.Pos, parts ...string) {
	sep := ", "
	if t.n == 0 {
		sep = ""
	}
	t.n++
	t.b.Write(at, sep)
	t.b.Write(at, parts...)
}

func (t *tableDef) column(at catalog.Pos, name, typeAndRest string) {
	t.def(at, ddl.Ident(name), " ", typeAndRest)
}

// tableCall translates one `t.` call of a create_table block.
func (r *reader) tableCall(t *tableDef, info *tableInfo, c call) {
	if c.recv == "" {
		r.note(c.off, "%s inside create_table is not something the schema dumper writes; skipped", c.name)
		return
	}
	at := r.pos(c.off)
	switch c.name {
	case "index":
		t.indexes = append(t.indexes, c)
	case "check_constraint":
		if len(c.args) != 1 || c.args[0].kind != vString {
			r.fail(c.off, "t.check_constraint: expected the expression as a string")
			return
		}
		name := r.checkName(t.name, c)
		t.def(at, "CONSTRAINT ", ddl.Ident(name), " CHECK (")
		t.b.Copy(*c.args[0].str)
		t.b.Write(at, ")")
		if v, ok := c.opt("validate"); ok && !v.truthy() {
			t.b.Write(at, " NOT VALID")
		}
	case "unique_constraint":
		r.uniqueConstraint(t, c)
	case "timestamps":
		notNull := true
		if v, ok := c.opt("null"); ok && v.truthy() {
			notNull = false
		}
		for _, col := range []string{"created_at", "updated_at"} {
			typ := columnType("datetime", &c)
			if notNull {
				typ += " NOT NULL"
			}
			t.column(at, col, typ)
			info.columns[col] = true
		}
	case "references", "belongs_to":
		r.references(t, info, c)
	case "column":
		if len(c.args) < 2 {
			r.fail(c.off, "t.column: expected a name and a type")
			return
		}
		r.addColumn(t, info, c, c.args[0].text, c.args[1].text)
	case "exclusion_constraint":
		r.note(c.off, "exclusion constraints are not modelled by idemcheck; skipped")
	case "remove", "rename", "change", "change_default", "change_null", "remove_index", "remove_references",
		"remove_belongs_to", "remove_timestamps", "remove_check_constraint":
		r.note(c.off, "t.%s is a change_table call, not something the schema dumper writes; skipped", c.name)
	default:
		typ := c.name
		if typ == "primary_key" { // t.primary_key "code", :string
			if len(c.args) == 0 {
				r.fail(c.off, "t.primary_key: expected a column name")
				return
			}
			kind := "primary_key"
			if len(c.args) > 1 {
				kind = c.args[1].text
			}
			name := c.args[0].text
			t.column(at, name, idType(kind)+" NOT NULL PRIMARY KEY")
			info.columns[name] = true
			return
		}
		if len(c.args) == 0 {
			r.fail(c.off, "t.%s: expected a column name", c.name)
			return
		}
		for _, a := range c.args {
			if a.kind != vString && a.kind != vSymbol {
				r.fail(a.off, "t.%s: expected a column name", c.name)
				return
			}
			r.addColumn(t, info, c, a.text, typ)
		}
	}
}

// addColumn writes one column definition of create_table.
func (r *reader) addColumn(t *tableDef, info *tableInfo, c call, name, typ string) {
	at := r.pos(c.off)
	var sql strings.Builder
	if typ == "virtual" {
		vt, _ := c.opt("type")
		sql.WriteString(columnType(vt.text, &c))
	} else if typ == "enum" {
		et, ok := c.opt("enum_type")
		if !ok {
			et.text = name
		}
		sql.WriteString(ddl.Qualified(et.text))
	} else {
		sql.WriteString(columnType(typ, &c))
	}
	if v, ok := c.opt("array"); ok && v.truthy() {
		sql.WriteString("[]")
	}
	if v, ok := c.opt("null"); ok && !v.truthy() {
		sql.WriteString(" NOT NULL")
	}
	t.column(at, name, sql.String())
	if as, ok := c.opt("as"); ok && as.kind == vString {
		t.b.Write(at, " GENERATED ALWAYS AS (")
		t.b.Copy(*as.str)
		t.b.Write(at, ") STORED")
	}
	if v, ok := c.opt("primary_key"); ok && v.truthy() {
		t.b.Write(at, " PRIMARY KEY")
	}
	info.columns[name] = true
	if v, ok := c.opt("index"); ok && v.truthy() {
		ix := call{recv: "t", name: "index", args: []value{{kind: vString, text: name}}, off: c.off, end: c.end}
		if v.kind == vHash {
			ix.opts = v.pairs
		}
		t.indexes = append(t.indexes, ix)
	}
}

// references is t.references / t.belongs_to: a <name>_id column (and
// <name>_type when polymorphic), indexed unless index: false.
func (r *reader) references(t *tableDef, info *tableInfo, c call) {
	if len(c.args) == 0 {
		r.fail(c.off, "t.%s: expected a name", c.name)
		return
	}
	at := r.pos(c.off)
	for _, a := range c.args {
		ref := a.text
		typ := "bigint"
		if v, ok := c.opt("type"); ok {
			typ = columnType(v.text, nil)
		}
		notNull := ""
		if v, ok := c.opt("null"); ok && !v.truthy() {
			notNull = " NOT NULL"
		}
		cols := []string{ref + "_id"}
		poly, _ := c.opt("polymorphic")
		if poly.truthy() && poly.kind != vNil {
			t.column(at, ref+"_type", "character varying"+notNull)
			info.columns[ref+"_type"] = true
			cols = []string{ref + "_type", ref + "_id"}
		}
		t.column(at, ref+"_id", typ+notNull)
		info.columns[ref+"_id"] = true
		idx, hasIdx := c.opt("index")
		if hasIdx && !idx.truthy() {
			continue
		}
		ix := call{recv: "t", name: "index", off: c.off, end: c.end}
		var items []value
		for _, col := range cols {
			items = append(items, value{kind: vString, text: col})
		}
		ix.args = []value{{kind: vArray, items: items}}
		if idx.kind == vHash {
			ix.opts = idx.pairs
		}
		t.indexes = append(t.indexes, ix)
		if fk, ok := c.opt("foreign_key"); ok && fk.truthy() && !poly.truthy() {
			to := inflect.Plural(ref)
			if fk.kind == vHash {
				for _, p := range fk.pairs {
					if p.key == "to_table" {
						to = p.val.text
					}
				}
			}
			t.def(at, "CONSTRAINT ", ddl.Ident("fk_rails_"+hexSHA(t.name+"_"+ref+"_id_fk")), " FOREIGN KEY (",
				ddl.Ident(ref+"_id"), ") REFERENCES ", ddl.Qualified(to), " (\"id\")")
		}
	}
}

// uniqueConstraint is Rails 7.1's t.unique_constraint, part of CREATE TABLE.
func (r *reader) uniqueConstraint(t *tableDef, c call) {
	at := r.pos(c.off)
	if len(c.args) != 1 {
		r.fail(c.off, "t.unique_constraint: expected the columns")
		return
	}
	cols := c.args[0].strings()
	name := ""
	if v, ok := c.opt("name"); ok {
		name = v.text
	} else {
		name = r.uniqueConstraintName(t.name, cols)
	}
	t.def(at, "CONSTRAINT ", ddl.Ident(name), " UNIQUE")
	if v, ok := c.opt("nulls_not_distinct"); ok && v.truthy() {
		t.b.Write(at, " NULLS NOT DISTINCT")
	}
	t.b.Write(at, " (", ddl.Idents(cols), ")")
	t.b.Write(at, deferrable(c))
}

func deferrable(c call) string {
	v, ok := c.opt("deferrable")
	if !ok || !v.truthy() {
		return ""
	}
	switch v.text {
	case "deferred":
		return " DEFERRABLE INITIALLY DEFERRED"
	case "immediate":
		return " DEFERRABLE INITIALLY IMMEDIATE"
	}
	return " DEFERRABLE"
}

// columnType is the PostgreSQL type Rails' PostgreSQL adapter gives a column
// type, with limit:, precision: and scale: applied. Types Rails does not
// know (from extensions: geometry, ...) are sent as written.
func columnType(typ string, c *call) string {
	opt := func(k string) (string, bool) {
		if c == nil {
			return "", false
		}
		v, ok := c.opt(k)
		if !ok || v.kind == vNil {
			return "", false
		}
		return v.text, true
	}
	switch typ {
	case "string":
		if l, ok := opt("limit"); ok {
			return "character varying(" + l + ")"
		}
		return "character varying"
	case "integer":
		switch l, _ := opt("limit"); l {
		case "1", "2":
			return "smallint"
		case "5", "6", "7", "8":
			return "bigint"
		}
		return "integer"
	case "float":
		return "double precision"
	case "decimal", "numeric":
		p, hasP := opt("precision")
		s, hasS := opt("scale")
		switch {
		case hasP && hasS:
			return fmt.Sprintf("%s(%s,%s)", typ, p, s)
		case hasP:
			return fmt.Sprintf("%s(%s)", typ, p)
		}
		return typ
	case "datetime", "timestamp", "timestamptz", "time":
		base := map[string]string{"datetime": "timestamp", "timestamp": "timestamp",
			"timestamptz": "timestamp with time zone", "time": "time"}[typ]
		if p, ok := opt("precision"); ok {
			if typ == "timestamptz" {
				return "timestamp(" + p + ") with time zone"
			}
			return base + "(" + p + ")"
		}
		return base
	case "binary":
		return "bytea"
	case "bit_varying":
		return "bit varying"
	case "primary_key":
		return "bigserial"
	}
	return typ
}
