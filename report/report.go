// Package report formats the result of a run (findings, input diagnostics and
// a summary) for people and for machines, one file per format: text.go for
// terminals and logs, json.go for one machine-readable document, sarif.go
// for code scanning, github.go for workflow annotations and gitlab.go for
// Code Quality. Each format file registers its Format (format.go); the
// commands take the names, help text and completion from that registry and
// write through Write, so a format is one file and its golden output.
//
// It only formats: it writes to the io.Writer it is given, never to the
// terminal directly, never exits, and does not decide exit statuses. It does
// not import sqlparse; the commands convert parser diagnostics into
// Diagnostic values, so report stays below both sources of a catalog.
package report

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"

	"github.com/idemcheck/idemcheck/internal/humanize"
)

// ToolName is the name reports give for the tool that wrote them.
const ToolName = "idemcheck"

// FormatVersion is the version of the JSON documents' shape (lint, inspect
// and race): it changes when a field is removed, renamed or changes meaning,
// not when one is added. docs/output-contract.md says what it promises, and
// docs/schema/ holds the JSON Schemas of the current version.
const FormatVersion = 1

// DocsURL is where the documentation of version (a release tag such as
// v1.2.0) is read: the tag's tree for a release, main's otherwise. page
// is a path below docs/ ("rules-reference.md#nullable-key").
func DocsURL(version, page string) string {
	ref := "main"
	if isReleaseTag(version) {
		ref = version
	}
	return "https://github.com/idemcheck/idemcheck/blob/" + ref + "/docs/" + page
}

// isReleaseTag reports whether v looks like a release's tag (v1.2.0,
// v1.2.0-rc.1); "devel" and the pseudo-versions Go gives a build from a
// commit (v0.0.0-20260101000000-0123456789ab, v1.2.1-0.2026...) are not.
func isReleaseTag(v string) bool {
	return releaseTag.MatchString(v) && !pseudoVersion.MatchString(v)
}

var (
	releaseTag    = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)
	pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}$`)
)

// Document is everything one run has to say: what was read, what was found,
// what could not be read, and the counts.
type Document struct {
	Tool    string
	Version string
	Inputs  []Input
	// Findings are in the order they are printed (audit.SortFindings).
	Findings []audit.Finding
	// Diagnostics are the input's notes and errors, in input order.
	Diagnostics []Diagnostic
	Summary     Summary
	// MinSeverity is --min-severity: findings below it are counted in the
	// summary but printed in no format. The zero value, Info, prints all.
	MinSeverity audit.Severity
	// Proving is what --prove did; nil without it. The verdicts are on
	// the findings (Finding.Proof).
	Proving *Proving
	// Database is the server a live catalog was read from (inspect); nil
	// for lint.
	Database *Database
	// Account is what became of every schema-like file under lint's
	// paths (account.go); nil for inspect.
	Account *Account
}

// Database says which database a live catalog came from, so that a report
// can never pass on a database nobody meant: host, port, database and user
// as the connection resolved them, and never a password.
type Database struct {
	Host     string
	Port     uint16
	Database string
	User     string
	// Version is the server's version, "15.4".
	Version string
}

// String is "host=127.0.0.1 port=5432 database=app user=audit", the words a
// failed connection uses too.
func (d *Database) String() string {
	return fmt.Sprintf("host=%s port=%d database=%s user=%s", d.Host, d.Port, d.Database, d.User)
}

// Proving is what --prove did in one run, beside the verdicts each finding
// carries.
type Proving struct {
	// Server says which scratch server the witnesses ran on, Version its
	// version ("15.8"); both empty when there was nothing to prove and no
	// server was started.
	Server  string
	Version string
	// Target is the major version the fixes were written for, and
	// TargetFrom where it came from ("--pg-version", "the live server").
	Target     int
	TargetFrom string
	// Scope says what a proof covers and what it leaves out.
	Scope string
	// Started is how long the scratch server took to be ready, Elapsed
	// how long the witnesses took.
	Started, Elapsed time.Duration
}

// ProofCounts tallies the verdicts of doc's findings that are shown and
// not suppressed.
func ProofCounts(doc *Document) (proven, refuted, notProven, fixDefects int) {
	for _, f := range doc.Findings {
		if f.Proof == nil || f.Suppressed != nil {
			continue
		}
		switch f.Proof.Verdict {
		case audit.Proven:
			proven++
			if f.Proof.Fix == audit.FixAccepted {
				fixDefects++
			}
		case audit.Refuted:
			refuted++
		default:
			notProven++
		}
	}
	return
}

// Shown reports whether f is printed under doc's --min-severity.
func (doc *Document) Shown(f audit.Finding) bool { return f.Severity >= doc.MinSeverity }

// Input is one tree (directory, file or stdin) that was read.
type Input struct {
	Path   string
	Layout string
	Files  []string
	// Skipped counts the files the layout left out (down, undo and revert
	// scripts, other databases' files ...).
	Skipped    int
	Statements int
}

// Level is how bad a diagnostic is.
type Level string

const (
	LevelNote  Level = "note"
	LevelError Level = "error"
)

// Diagnostic is a note or error about the input itself (a statement the
// parser rejects, a reference to a missing object, a skipped meta-command).
type Diagnostic struct {
	Level    Level
	Pos      catalog.Pos
	SQLState string
	Message  string
}

// Summary holds the counts printed at the end.
type Summary struct {
	Files      int
	Statements int
	// SkippedFiles counts the files the layouts left out; SkippedStatements
	// the statements not replayed because a template could not be run.
	SkippedFiles      int
	SkippedStatements int
	// Live is set for a catalog read from a running server: the summary
	// then counts Tables and RoundTrips instead of files and statements.
	Live       bool
	Tables     int
	RoundTrips int
	Elapsed    time.Duration
	// Unchanged counts the findings left out because none of their
	// locations is in a file the change touched (lint --new-from-rev).
	Unchanged int
}

// Counts are the tallies a report derives from a document: findings per
// severity (suppressed ones apart), and diagnostics per level.
type Counts struct {
	Errors, Warnings, Infos int
	// InfoByRule counts the info findings of each rule: a schema with forty
	// optional names has forty, and the summary says whose they are.
	InfoByRule map[string]int
	Suppressed int
	// Baselined are the suppressed findings a baseline lists (lint and
	// inspect --baseline), counted apart in the summary.
	Baselined int
	// NotShown counts the findings --min-severity leaves out of the output
	// (suppressed ones apart); they are in the tallies above.
	NotShown           int
	InputErrors, Notes int
}

// SuppressBaseline is the Suppression.Kind of a finding a baseline lists.
const SuppressBaseline = "baseline"

// Count tallies doc's findings and diagnostics.
func Count(doc *Document) Counts {
	c := Counts{InfoByRule: map[string]int{}}
	for _, f := range doc.Findings {
		switch {
		case f.Suppressed != nil:
			c.Suppressed++
			if f.Suppressed.Kind == SuppressBaseline {
				c.Baselined++
			}
			continue
		case f.Severity == audit.Error:
			c.Errors++
		case f.Severity == audit.Warning:
			c.Warnings++
		default:
			c.Infos++
			c.InfoByRule[f.Rule]++
		}
		if !doc.Shown(f) {
			c.NotShown++
		}
	}
	for _, d := range doc.Diagnostics {
		if d.Level == LevelError {
			c.InputErrors++
		} else {
			c.Notes++
		}
	}
	return c
}

// infoRules is "optional-unique 38, unused-ignore 2": the info findings by
// rule, most first.
func (c Counts) infoRules() string {
	rules := make([]string, 0, len(c.InfoByRule))
	for r := range c.InfoByRule {
		rules = append(rules, r)
	}
	sort.Slice(rules, func(i, j int) bool {
		a, b := c.InfoByRule[rules[i]], c.InfoByRule[rules[j]]
		return a > b || a == b && rules[i] < rules[j]
	})
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("%s %s", r, humanize.Thousands(c.InfoByRule[r]))
	}
	return strings.Join(parts, ", ")
}

// ProvingLine says what --prove did: the verdicts, the scratch server, the
// time, what a proof covers, and when the target's version is not the
// scratch server's, that each finding names the fix proven there.
func ProvingLine(doc *Document) string {
	pv := doc.Proving
	proven, refuted, notProven, defects := ProofCounts(doc)
	var b strings.Builder
	if pv.Server == "" {
		b.WriteString("prove: no finding has a witness to run, so no scratch server was started.")
		return b.String()
	}
	fmt.Fprintf(&b, "prove: %d proven, %d refuted, %d not proven on PostgreSQL %s, %s; ready in %.2f s, the witnesses took %.2f s",
		proven, refuted, notProven, pv.Version, pv.Server, pv.Started.Seconds(), pv.Elapsed.Seconds())
	if defects > 0 {
		fmt.Fprintf(&b, "; %s let the rows in with the fix applied, a defect in idemcheck's fix", humanize.Count(defects, "finding", "findings"))
	}
	b.WriteString(". " + strings.ToUpper(pv.Scope[:1]) + pv.Scope[1:] + ".")
	if major := majorOf(pv.Version); pv.Target != 0 && major != 0 && major != pv.Target {
		fmt.Fprintf(&b, " The fixes were written for PostgreSQL %d (%s) and proven on %s; a finding whose first fix needs a later "+
			"version says which fix was proven instead.", pv.Target, pv.TargetFrom, pv.Version)
	}
	if refuted > 0 {
		b.WriteString(" A refuted finding is a false alarm: it does not count toward --fail-on.")
	}
	return b.String()
}

// majorOf is the major version of a version string ("15.8" is 15).
func majorOf(v string) int {
	major, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(major)
	return n
}
