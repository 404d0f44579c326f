package rails

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/frameworks/internal/ddl"
)

// Fixes writes each SQL fix of a finding on table t as a Rails migration,
// read from what the SQL does (see ddl.Effects) so that names and order are
// the SQL fixes' own. NULLS NOT DISTINCT needs Rails 7.1 to be dumped into
// schema.rb (older Rails would load the index without it), so below 7.1 it
// is left out and the split comes first.
func (s *Schema) Fixes(t *catalog.Table, cols []string, sqlFixes []audit.Fix) []audit.Fix {
	type ranked struct {
		kind ddl.Kind
		fix  audit.Fix
	}
	var out []ranked
	nndLeftOut := false
	for _, f := range sqlFixes {
		if f.Lang != "" {
			continue
		}
		effects := ddl.Effects(t, f.SQL)
		kind := ddl.Classify(effects)
		if kind == ddl.NullsNotDistinct && !s.AtLeast(7, 1) {
			nndLeftOut = true
			continue
		}
		out = append(out, ranked{kind, s.migration(t, className(kind, t.Name, cols), f, effects)})
	}
	// The SQL fixes come in the order docs/rules.md gives for the hole's
	// shape (NOT NULL first for a link row, the live-rows index first for
	// a soft delete), and so do these.
	fixes := make([]audit.Fix, len(out))
	for i, r := range out {
		fixes[i] = r.fix
		if nndLeftOut && r.kind == ddl.AddsIndex {
			fixes[i].Caveat += " NULLS NOT DISTINCT is not offered: Rails before 7.1 cannot write it into schema.rb, so " +
				"a database loaded from the schema would get the index without it (upgrade, or switch to structure.sql)."
		}
	}
	return fixes
}

// migration renders one fix as a migration class.
func (s *Schema) migration(t *catalog.Table, class string, f audit.Fix, effects []ddl.Effect) audit.Fix {
	var body []string
	concurrent, reversible := false, true
	for _, e := range effects {
		if e.Concurrently {
			concurrent = true
		}
		call := s.call(t, e)
		if strings.HasPrefix(call, "execute") {
			reversible = false
		}
		body = append(body, call)
	}
	version := s.Version
	if version == "" {
		version = "6.1"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# bin/rails generate migration %s, then:\n", class)
	fmt.Fprintf(&b, "class %s < ActiveRecord::Migration[%s]\n", class, version)
	if concurrent {
		b.WriteString("  disable_ddl_transaction!\n\n")
	}
	// execute cannot be reversed by Rails, so such a migration says up and
	// refuses down.
	if reversible {
		b.WriteString("  def change\n")
	} else {
		b.WriteString("  def up\n")
	}
	for _, line := range body {
		for _, l := range strings.Split(line, "\n") {
			b.WriteString("    " + l + "\n")
		}
	}
	if !reversible {
		b.WriteString("  end\n\n  def down\n    raise ActiveRecord::IrreversibleMigration\n")
	}
	b.WriteString("  end\nend")
	caveat := f.Caveat
	if concurrent {
		caveat = strings.Replace(caveat, "Run each statement on its own, outside a transaction (CONCURRENTLY).",
			"disable_ddl_transaction! lets algorithm: :concurrently build and drop the indexes without blocking writes.", 1)
	}
	if s.Version == "" {
		caveat += " Use your application's Rails version in Migration[...]."
	}
	caveat += " bin/rails db:migrate then rewrites db/schema.rb to match."
	return audit.Fix{
		Title:    "Rails migration: " + f.Title,
		SQL:      b.String(),
		Caveat:   strings.TrimSpace(caveat),
		Precheck: f.Precheck,
		Lang:     "ruby",
	}
}

// call writes one statement's effect as the Rails call that has it, or as
// execute with the SQL when Rails has no words for it.
func (s *Schema) call(t *catalog.Table, e ddl.Effect) string {
	table := symbol(t.Name)
	if t.Schema != "public" && t.Schema != "" {
		table = rubyString(t.Schema + "." + t.Name)
	}
	concurrently := ""
	if e.Concurrently {
		concurrently = ", algorithm: :concurrently"
	}
	switch {
	case e.Only() && len(e.Added) == 1 && e.Added[0].Constraint == "" && (len(e.Added[0].Include) == 0 || s.AtLeast(7, 1)):
		return "add_index " + table + ", " + indexArgs(e.Added[0]) + concurrently
	case e.Only() && len(e.Dropped) == 1 && e.Dropped[0].Constraint == "":
		return "remove_index " + table + ", " + indexArgs(e.Dropped[0]) + concurrently
	case e.Only() && e.Renamed[0] != "":
		return "rename_index " + table + ", " + rubyString(e.Renamed[0]) + ", " + rubyString(e.Renamed[1])
	case e.Only() && len(e.SetNotNull) == 1:
		return "change_column_null " + table + ", " + symbol(e.SetNotNull[0]) + ", false"
	case e.Only() && len(e.ChecksAdded) == 1:
		ck := e.ChecksAdded[0]
		call := "add_check_constraint " + table + ", " + rubyString(ck.Expr.String()) + ", name: " + rubyString(ck.Name)
		if !ck.Validated {
			call += ", validate: false"
		}
		return call
	case e.Only() && len(e.ChecksValidated) == 1:
		return "validate_check_constraint " + table + ", name: " + rubyString(e.ChecksValidated[0].Name)
	case e.Only() && len(e.ChecksDropped) == 1:
		ck := e.ChecksDropped[0]
		return "remove_check_constraint " + table + ", " + rubyString(ck.Expr.String()) + ", name: " + rubyString(ck.Name)
	}
	return "execute <<~SQL\n  " + strings.ReplaceAll(e.SQL, "\n", "\n  ") + "\nSQL"
}

// indexArgs writes an index's columns and options as add_index takes them.
func indexArgs(ix *catalog.Index) string {
	var cols string
	plain := true
	for _, p := range ix.Parts {
		if p.Column == "" {
			plain = false
		}
	}
	if plain {
		syms := make([]string, len(ix.Parts))
		for i, p := range ix.Parts {
			syms[i] = symbol(p.Column)
		}
		cols = "[" + strings.Join(syms, ", ") + "]"
	} else {
		parts := make([]string, len(ix.Parts))
		for i, p := range ix.Parts {
			parts[i] = p.String()
		}
		cols = rubyString(strings.Join(parts, ", "))
	}
	opts := []string{cols}
	if ix.Unique {
		opts = append(opts, "unique: true")
	}
	if ix.NullsNotDistinct {
		opts = append(opts, "nulls_not_distinct: true")
	}
	if ix.Method != "" && ix.Method != "btree" {
		opts = append(opts, "using: :"+ix.Method)
	}
	if len(ix.Include) > 0 {
		syms := make([]string, len(ix.Include))
		for i, c := range ix.Include {
			syms[i] = symbol(c)
		}
		opts = append(opts, "include: ["+strings.Join(syms, ", ")+"]")
	}
	if ix.Predicate != nil {
		opts = append(opts, "where: "+rubyString(ix.Predicate.String()))
	}
	opts = append(opts, "name: "+rubyString(ix.Name))
	return strings.Join(opts, ", ")
}

// symbol writes :name, quoting it when Ruby needs quotes.
func symbol(name string) string {
	if isColumnName(name) && !(name[0] >= '0' && name[0] <= '9') {
		return ":" + name
	}
	return ":" + rubyString(name)
}

// rubyString writes a double-quoted Ruby string.
func rubyString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "#{", `\#{`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// className names a fix's migration after what it does to which columns:
// MakeChargesNamespaceNullsNotDistinct, AddChargesNamespaceNullIndex, ...
func className(kind ddl.Kind, table string, cols []string) string {
	words := append([]string{table}, cols...)
	switch kind {
	case ddl.NullsNotDistinct:
		return "Make" + camel(words...) + "NullsNotDistinct"
	case ddl.AddsIndex:
		return "Add" + camel(words...) + "NullIndex"
	case ddl.NotNull:
		return "Make" + camel(words...) + "NotNull"
	}
	return "Fix" + camel(words...)
}

// camel joins snake_case words as CamelCase, keeping letters and digits.
func camel(words ...string) string {
	var b strings.Builder
	for _, w := range words {
		upper := true
		for _, c := range w {
			switch {
			case c >= 'a' && c <= 'z':
				if upper {
					c -= 'a' - 'A'
				}
			case c >= 'A' && c <= 'Z', c >= '0' && c <= '9' && b.Len() > 0:
			default:
				upper = true
				continue
			}
			b.WriteRune(c)
			upper = false
		}
	}
	return b.String()
}

// SQLCaveat is what a SQL fix must add when this schema.rb is the source:
// before Rails 7.1 the dumper cannot write NULLS NOT DISTINCT, so an index
// built with it by hand loses it in schema.rb, and every database loaded
// from the schema gets the index without it.
func (s *Schema) SQLCaveat(sql string) string {
	if s.AtLeast(7, 1) || !strings.Contains(sql, "NULLS NOT DISTINCT") {
		return ""
	}
	return "Rails before 7.1 cannot write NULLS NOT DISTINCT into schema.rb: the next db:schema:dump drops it, and a " +
		"database loaded from schema.rb gets the index without it. Switch to structure.sql (config.active_record.schema_format = :sql) " +
		"or upgrade to Rails 7.1 first."
}
