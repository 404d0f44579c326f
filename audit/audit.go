// Package audit holds idemcheck's rules and the reasoning they share: when a
// key part of a unique index is provably never NULL (the null-safety
// reasoner), when another index covers a hole (coverage), and the fix SQL for
// each finding.
//
// Rules only read a catalog.Catalog, so they run unchanged on a replayed
// migration tree and on a live database. The package does no I/O and never
// prints; findings are values that the report package formats.
package audit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// Severity ranks a finding. The zero value is Info.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "info"
}

// ParseSeverity reads "error", "warning" or "info".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(s) {
	case "error":
		return Error, nil
	case "warning", "warn":
		return Warning, nil
	case "info":
		return Info, nil
	}
	return Info, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

// Needs says which kind of catalog a rule can check.
type Needs int

const (
	Either     Needs = iota // replayed migrations or a live database
	Migrations              // only replay has the history the rule reads
	Live                    // only a live database knows what the rule reads
)

func (n Needs) String() string {
	switch n {
	case Migrations:
		return "migrations"
	case Live:
		return "live"
	}
	return "either"
}

// Rule is one check. Rules are plain values registered in Rules; adding a
// rule is adding one file and one line there.
type Rule struct {
	// ID is the kebab-case id users write in --rule and ignore directives.
	// It never changes.
	ID string
	// Title is a short lower-case phrase without a period.
	Title string
	// Doc explains the rule in full; Bad and Good are SQL examples.
	Doc  string
	Bad  string
	Good string
	// Severity is the default severity; a rule may raise or lower it per
	// finding (nullable-key does, from the names involved).
	Severity Severity
	Needs    Needs
	Run      func(*Pass)
}

// Options are the settings a run of the rules shares.
type Options struct {
	// PGVersion is the major version fixes are written for (13..18).
	PGVersion int
	// Live is set when the catalog was read from a running server.
	Live bool
}

// Pass is what a rule's Run gets: the catalog, the options, and Report.
type Pass struct {
	Rule    *Rule
	Catalog *catalog.Catalog
	Options Options
	report  func(Finding)
	// results are what the rules of one Run share, reached through the
	// Pass methods in shared.go.
	results *results
}

// Report records a finding. Rule and Severity are filled in from the rule
// when the finding leaves them empty.
func (p *Pass) Report(f Finding) {
	if f.Rule == "" {
		f.Rule = p.Rule.ID
	}
	if !f.severitySet {
		f.Severity = p.Rule.Severity
	}
	p.report(f)
}

// Finding is one thing a rule found.
type Finding struct {
	Rule     string
	Severity Severity
	// Object is the schema-qualified object the finding is about
	// ("public.events.index_unique_transaction_id").
	Object string
	// Columns are the key parts the finding is about (the nullable ones for
	// nullable-key).
	Columns []string
	Message string
	// Pos is where the object was created (zero for a live catalog).
	Pos catalog.Pos
	// Related are other places that matter, such as the migration that
	// dropped NOT NULL from a key column.
	Related []Related
	Fixes   []Fix
	// Notes are secondary remarks (a CHECK that is NOT VALID, a DO block
	// replay could not follow).
	Notes []string
	// Suppressed is set when an ignore directive or config entry silenced
	// the finding. Suppressed findings stay in JSON and SARIF, marked.
	Suppressed *Suppression
	// Data holds what the live data checks (inspect --data) counted for the
	// finding; nil when they did not run.
	Data *DataCounts

	severitySet bool
	// arbiterHole is the hole of an ON CONFLICT arbiter, kept so that the
	// statements that opened it become related locations.
	arbiterHole *hole
}

// DataCounts are the live data checks of one finding, one entry per nullable
// key part.
type DataCounts struct {
	Parts []PartCounts
}

// PartCounts are the counts for one key part that may be NULL. A count whose
// Skipped text is set did not finish (timed out, no privilege) and says why.
type PartCounts struct {
	Part string
	// NullRows counts rows the index covers with NULL in Part: zero means
	// the part can be made NOT NULL today.
	NullRows        int64
	NullRowsSkipped string
	// CollidingGroups counts groups of those rows that agree on every other
	// key part: how often the hole was used, and what makes a NULLS NOT
	// DISTINCT or split index fail to build.
	CollidingGroups        int64
	CollidingGroupsSkipped string
	// Rows counts the rows the index covers (its predicate holds): the size
	// the NULL count is measured against. The same for every part.
	Rows        int64
	RowsSkipped string
}

// WithSeverity returns f with an explicit severity that Report keeps.
func (f Finding) WithSeverity(s Severity) Finding {
	f.Severity = s
	f.severitySet = true
	return f
}

// Related is a secondary position with what happened there.
type Related struct {
	Pos     catalog.Pos
	Message string
}

// Fix is one way to close what a finding found, as complete SQL.
type Fix struct {
	Title string
	SQL   string
	// Caveat says when the fix is wrong or what it costs.
	Caveat string
	// Precheck is a query that lists the rows that would make the fix fail
	// (rows that already collide); empty when none is needed.
	Precheck string
	// NoTransaction is set when SQL cannot run inside a transaction block
	// (CREATE INDEX CONCURRENTLY).
	NoTransaction bool
	// Lang is the language of SQL when a framework's fix is written in its
	// own words ("ruby" for a Rails migration, "prisma" for a Prisma schema
	// edit); "" is SQL. --fix-sql writes only SQL.
	Lang string

	// kind tells UseData which fix the data may move first.
	kind fixKind
}

// fixKind names the fixes UseData reorders.
type fixKind int

const (
	fixOther fixKind = iota
	fixNotNull
)

// Suppression records why a finding was silenced.
type Suppression struct {
	Kind   string // "inline", "file" or "config"
	Reason string
	Pos    catalog.Pos
}

// Run runs rules over cat and returns the findings sorted by position, then
// object, then rule.
func Run(cat *catalog.Catalog, rules []*Rule, opts Options) []Finding {
	var out []Finding
	shared := newResults(cat)
	for _, r := range rules {
		if r.Needs == Live && !opts.Live {
			continue
		}
		if r.Needs == Migrations && opts.Live {
			continue
		}
		p := &Pass{Rule: r, Catalog: cat, Options: opts, report: func(f Finding) { out = append(out, f) }, results: shared}
		r.Run(p)
	}
	SortFindings(out)
	return out
}

// SortFindings orders findings by file, line, column, object and rule.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Object != b.Object {
			return a.Object < b.Object
		}
		return a.Rule < b.Rule
	})
}

// Lookup returns the registered rule with id, or nil.
func Lookup(id string) *Rule {
	for _, r := range Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}
