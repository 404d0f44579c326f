// Package audit holds idemcheck's rules. It has three layers, each in its
// own package, and imports run one way, down:
//
//   - The rules (this package): one file per rule, registered in Rules.
//     Run gives each rule a Pass with the catalog, the options and Report.
//     What several rules read, such as the hole of each unique index, the
//     order of the replayed history, the changes to each table and the
//     names each schema holds, is computed once per Run on first use and
//     reached through the Pass's methods (shared.go), the role go/analysis
//     gives Requires and ResultOf. Finding, Fix, suppression and the use of
//     live data counts are here too.
//   - The null-safety reasoner (audit/internal/nullsafe): when a key part of
//     a unique index is provably never NULL, when other unique indexes
//     cover the rows where it is, which columns an exclusive-arc CHECK
//     forces, and the order of a replayed history. It knows nothing of rules
//     or findings.
//   - The fix builders (audit/internal/fixes): the SQL that closes a hole
//     and the statements other rules' fixes are made of, with names that
//     fit and clash with nothing. They take what a rule found and decide
//     nothing about whether it is wrong. (The top-level fixsql package is
//     another thing: it writes these fixes into a migration tree.)
//
// audit/internal/prose holds the English both messages and fixes use to
// name key parts and lists.
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
	"github.com/idemcheck/idemcheck/internal/parallel"
	"github.com/idemcheck/idemcheck/internal/suggest"
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
	// History is what replay recorded on its way to the catalog
	// (replay.Replayer.History); nil for a live catalog, which has none.
	History *catalog.History
}

// Pass is what a rule's Run gets: the catalog, the history that led to it,
// the options, Report, and through its methods (shared.go) the results the
// rules of one Run share.
type Pass struct {
	Rule    *Rule
	Catalog *catalog.Catalog
	// History is Options.History, empty rather than nil when there is none.
	History *catalog.History
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
	// Escape is the hole the finding is about, for a witness; nil for a
	// finding that is not about rows escaping a unique index.
	Escape *Escape
	// Witness is the two rows that get through the hole (witness.go);
	// Proof is what the scratch server made of them (--prove). Both nil
	// until the pipeline adds them.
	Witness *Witness
	Proof   *Proof

	severitySet bool
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
	hist := opts.History
	if hist == nil {
		hist = &catalog.History{}
	}
	shared := newResults(cat, hist)
	// The rules read the catalog only; the index of its table names is
	// built on first use and forgotten with the Run (names.go).
	tableIndexes.Delete(cat)
	defer tableIndexes.Delete(cat)
	var run []*Rule
	for _, r := range rules {
		if r.Needs == Live && !opts.Live || r.Needs == Migrations && opts.Live {
			continue
		}
		run = append(run, r)
	}
	// Each rule reports into its own list; the lists are joined in rule
	// order, so the findings are the same however many rules ran at once.
	found := make([][]Finding, len(run))
	pass := func(i int) {
		p := &Pass{Rule: run[i], Catalog: cat, History: hist, Options: opts, results: shared,
			report: func(f Finding) { found[i] = append(found[i], f) }}
		run[i].Run(p)
	}
	workers := shared.readHolesAhead()
	if workers > 1 {
		// A large catalog: the rules run on every core as well. What they
		// share is computed first or guarded (shared.go).
		shared.readAllAhead()
	}
	parallel.Each(len(run), workers, pass)
	for _, f := range found {
		out = append(out, f...)
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

// SuggestRule is ` (did you mean "nullable-key"?)` for an id no rule has,
// naming the registered rule nearest to it, or "" when none is near.
func SuggestRule(id string) string {
	ids := make([]string, len(Rules))
	for i, r := range Rules {
		ids[i] = r.ID
	}
	return suggest.DidYouMean(id, ids)
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
