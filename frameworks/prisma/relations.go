package prisma

import (
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/frameworks/internal/ddl"
)

// foreignKeys writes ALTER TABLE ... FOREIGN KEY for each @relation with
// fields:, as migrate does after every table and index. Relation fields are
// not columns; the scalar fields they name are.
func (r *reader) foreignKeys() {
	for _, fb := range r.blocks {
		if fb.b.kind != "model" {
			continue
		}
		m := r.models[fb.b.name]
		for i := range fb.b.fields {
			f := &fb.b.fields[i]
			target, isModel := r.models[f.typ]
			rel := f.attr("relation")
			if !isModel || rel == nil {
				continue
			}
			fields, ok := rel.arg("fields", -1)
			if !ok {
				continue
			}
			refs, _ := rel.arg("references", -1)
			var from, to []string
			optional := false
			for _, it := range fields.refs() {
				from = append(from, it.text)
				if sf := m.fields[it.text]; sf != nil && sf.optional {
					optional = true
				}
			}
			for _, it := range refs.refs() {
				to = append(to, it.text)
			}
			at := fb.lines.Pos(f.off)
			cols := r.columnsOf(m, from, fb.lines, at)
			refCols := r.columnsOf(target, to, fb.lines, at)
			name := fkName(m.table, cols)
			if v, ok := rel.arg("map", -1); ok {
				name = v.text
			}
			onDelete := "RESTRICT"
			if optional {
				onDelete = "SET NULL"
			}
			if v, ok := rel.arg("onDelete", -1); ok {
				onDelete = referentialAction(v.text)
			}
			onUpdate := "CASCADE"
			if v, ok := rel.arg("onUpdate", -1); ok {
				onUpdate = referentialAction(v.text)
			}
			b := ddl.NewBuilder(fb.lines.File())
			b.Write(at, "ALTER TABLE ", qualified(m.schema, m.table), " ADD CONSTRAINT ", ddl.Ident(name),
				" FOREIGN KEY (", ddl.Idents(cols), ") REFERENCES ", qualified(target.schema, target.table),
				"(", ddl.Idents(refCols), ") ON DELETE ", onDelete, " ON UPDATE ", onUpdate)
			r.s.Statements = append(r.s.Statements, b.Statement())
		}
	}
}

func referentialAction(a string) string {
	switch a {
	case "Cascade":
		return "CASCADE"
	case "SetNull":
		return "SET NULL"
	case "SetDefault":
		return "SET DEFAULT"
	case "NoAction":
		return "NO ACTION"
	}
	return "RESTRICT"
}

func fkName(table string, cols []string) string {
	name := table + "_" + strings.Join(cols, "_")
	if len(name) >= maxIdent-5 {
		name = truncateBytes(name, maxIdent-5)
	}
	return name + "_fkey"
}

// implicitManyToMany writes the join table Prisma creates for two list
// relation fields that name no fields: "_<A>To<B>" (or "_<relation name>")
// with columns "A" and "B" referencing the two models' ids, A the model
// whose name sorts first.
func (r *reader) implicitManyToMany() {
	type side struct {
		model string
		f     *field
		fb    fileBlock
	}
	// A relation's name is unique per pair of models only: two self
	// relations named "SubFolders" on two models are two relations.
	byName := map[string][]side{}
	tableOf := map[string]string{}
	var names []string
	for _, fb := range r.blocks {
		if fb.b.kind != "model" {
			continue
		}
		for i := range fb.b.fields {
			f := &fb.b.fields[i]
			if _, isModel := r.models[f.typ]; !isModel || !f.list {
				continue
			}
			if rel := f.attr("relation"); rel != nil {
				if _, ok := rel.arg("fields", -1); ok {
					continue
				}
			}
			pair := []string{fb.b.name, f.typ}
			sort.Strings(pair)
			name := pair[0] + "To" + pair[1]
			if rel := f.attr("relation"); rel != nil {
				if v, ok := rel.arg("name", 0); ok && v.kind == vString {
					name = v.text
				}
			}
			key := pair[0] + "\x00" + pair[1] + "\x00" + name
			if _, seen := byName[key]; !seen {
				names = append(names, key)
				tableOf[key] = "_" + name
			}
			byName[key] = append(byName[key], side{model: fb.b.name, f: f, fb: fb})
		}
	}
	for _, key := range names {
		sides := byName[key]
		if len(sides) != 2 {
			continue // a one-sided list is the back side of a one-to-many relation
		}
		// The other side of each must be a list too, which byName ensured.
		models := []string{sides[0].model, sides[1].model}
		sort.Strings(models)
		a, b := r.models[models[0]], r.models[models[1]]
		if len(a.pk) != 1 || len(b.pk) != 1 {
			continue
		}
		fb := sides[0].fb
		at := fb.lines.Pos(sides[0].f.off)
		table := tableOf[key]
		schema := a.schema
		sb := ddl.NewBuilder(fb.lines.File())
		sb.Write(at, "CREATE TABLE ", qualified(schema, table), " (\n    \"A\" ", r.pkType(a), " NOT NULL,\n    \"B\" ",
			r.pkType(b), " NOT NULL,\n\n    CONSTRAINT ", ddl.Ident(pkName(table+"_AB")), " PRIMARY KEY (\"A\",\"B\")\n)")
		r.s.Statements = append(r.s.Statements, sb.Statement())
		ib := ddl.NewBuilder(fb.lines.File())
		ib.Write(at, "CREATE INDEX ", ddl.Ident(table+"_B_index"), " ON ", qualified(schema, table), "(\"B\")")
		r.s.Statements = append(r.s.Statements, ib.Statement())
	}
}

// pkType is the type of a model's single-column primary key, as a
// referencing column (a serial key is referenced by a plain integer).
func (r *reader) pkType(m *modelInfo) string {
	f := m.fields[m.pk[0]]
	t := r.columnType(f, m.fb.lines)
	switch t {
	case "SERIAL":
		return "INTEGER"
	case "BIGSERIAL":
		return "BIGINT"
	case "SMALLSERIAL":
		return "SMALLINT"
	}
	return t
}
