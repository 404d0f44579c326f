package replay

import (
	"regexp"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/parse"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// Code that runs later, or under conditions replay cannot evaluate,
// changes the catalog without replay following it: a function body that
// runs DDL when called, the dynamic SQL and the conditional branches of a
// DO block. Such code is recorded in the history as unmodelled, and the
// rules say so on the findings of a table it names.

// tableInBody finds the first table name a DDL statement in the body
// mentions.
var tableInBody = regexp.MustCompile(`(?is)\b(?:alter\s+table|drop\s+table|create\s+table|\bon)\s+(?:only\s+)?(?:if\s+(?:not\s+)?exists\s+)?((?:"[^"]+"|[a-z_][\w$]*)(?:\s*\.\s*(?:"[^"]+"|[a-z_][\w$]*))?)`)

func (r *Replayer) createFunction(cf *pg.CreateFunctionStmt) {
	for _, o := range cf.Options {
		de := o.GetDefElem()
		if de == nil || de.Defname != "as" {
			continue
		}
		for _, item := range de.Arg.GetList().GetItems() {
			r.unmodelled(r.pos, item.GetString_().GetSval())
		}
	}
	if cf.SqlBody != nil {
		r.unmodelled(r.pos, r.st.Text)
	}
}

// unmodelled records code at pos that contains DDL replay does not execute.
func (r *Replayer) unmodelled(pos catalog.Pos, body string) {
	loc := parse.DDLInBody.FindStringIndex(body)
	if loc == nil {
		return
	}
	c := catalog.Change{Kind: catalog.ChangeUnmodelled, Pos: pos, File: r.st.File, Object: scan.Excerpt(body[loc[0]:], 60)}
	if m := tableInBody.FindStringSubmatch(body[loc[0]:]); m != nil {
		parts := strings.Split(m[1], ".")
		for i := range parts {
			parts[i] = identText(parts[i])
		}
		c.Schema, c.Table = splitQualified(parts)
		if t := r.cat.ResolveTable(c.Schema, c.Table); t != nil {
			c.Schema = t.Schema
		}
	}
	r.hist.Changes = append(r.hist.Changes, c)
}

// identText normalises an identifier written in free text (search_path
// values, DO block excerpts) the way the server would: quoted keeps case,
// unquoted folds to lower case.
func identText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return strings.ToLower(s)
}
