package audit

// UnusedIgnore reports suppression directives that suppress nothing. Its
// findings come from Suppress, which is the only place that knows which
// directives matched; its Run does nothing, so the rule is still a value
// with a doc that --rule, --disable, --severity and the rule list know.
var UnusedIgnore = &Rule{
	ID:    "unused-ignore",
	Title: "an ignore directive that suppresses nothing",
	Doc: `An idemcheck:ignore comment (or an ignore entry in .idemcheck.yaml) that no
finding matched. Either the problem it silenced was fixed, the directive names
the wrong rule or object, or it sits above the wrong statement. A stale
directive is dangerous: it would silently hide the next real problem at that
place. Remove it, or move it to the statement it means. A directive without a
reason, or naming a rule that does not exist, is reported here too, and
suppresses nothing until it is corrected.`,
	Bad: `-- idemcheck:ignore nullable-key legacy rows have no tenant
CREATE UNIQUE INDEX users_email ON users (email);  -- email is NOT NULL: nothing to ignore`,
	Good:     `CREATE UNIQUE INDEX users_email ON users (email);`,
	Severity: Info,
	Needs:    Either,
	Run:      func(*Pass) {},
}
