package report

import (
	"encoding/json"
	"io"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

// The json* types are the JSON document's schema. They are kept apart from
// the audit and catalog types so that renaming a Go field never changes the
// document other programs read.

type jsonDocument struct {
	// FormatVersion is the version of this document's shape
	// (docs/output-contract.md); Version is the tool's.
	FormatVersion int    `json:"format_version"`
	Tool          string `json:"tool"`
	Version       string `json:"version"`
	// Database is where inspect read the catalog; absent for lint.
	Database *jsonDatabase    `json:"database,omitempty"`
	Inputs   []jsonInput      `json:"inputs"`
	Findings []jsonFinding    `json:"findings"`
	Notes    []jsonDiagnostic `json:"notes"`
	Errors   []jsonDiagnostic `json:"errors"`
	Summary  jsonSummary      `json:"summary"`
	// Prove is present when --prove ran.
	Prove *jsonProving `json:"prove,omitempty"`
	// InputAccount is what became of every schema-like file under lint's
	// paths (account.go); absent for inspect.
	InputAccount *jsonAccount `json:"input_account,omitempty"`
}

// jsonDatabase is the database inspect read, without a password; SARIF
// carries the same object as its invocation's properties.database.
type jsonDatabase struct {
	Host          string `json:"host"`
	Port          int    `json:"port"`
	Database      string `json:"database"`
	User          string `json:"user"`
	ServerVersion string `json:"server_version"`
}

func databaseJSON(d *Database) *jsonDatabase {
	if d == nil {
		return nil
	}
	return &jsonDatabase{Host: d.Host, Port: int(d.Port), Database: d.Database, User: d.User, ServerVersion: d.Version}
}

type jsonInput struct {
	Path       string   `json:"path"`
	Layout     string   `json:"layout"`
	FileCount  int      `json:"file_count"`
	Files      []string `json:"files"`
	Skipped    int      `json:"skipped"`
	Statements int      `json:"statements"`
}

type jsonPosition struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"column"`
}

type jsonRelated struct {
	Position *jsonPosition `json:"position"`
	Message  string        `json:"message"`
}

type jsonFix struct {
	Title         string `json:"title"`
	SQL           string `json:"sql"`
	Caveat        string `json:"caveat,omitempty"`
	Precheck      string `json:"precheck,omitempty"`
	NoTransaction bool   `json:"no_transaction,omitempty"`
	// Lang is set for a fix in a framework's own language ("ruby",
	// "prisma"); sql then holds that text.
	Lang string `json:"lang,omitempty"`
}

type jsonSuppression struct {
	Kind     string        `json:"kind"`
	Reason   string        `json:"reason"`
	Position *jsonPosition `json:"position,omitempty"`
}

type jsonFinding struct {
	// Fingerprint is the finding's identity across runs, the one the
	// baseline, SARIF and GitLab use: rule, object and key parts, not lines.
	Fingerprint string           `json:"fingerprint"`
	Rule        string           `json:"rule"`
	Severity    string           `json:"severity"`
	Object      string           `json:"object"`
	Columns     []string         `json:"columns"`
	Message     string           `json:"message"`
	Position    *jsonPosition    `json:"position"`
	Related     []jsonRelated    `json:"related"`
	Fixes       []jsonFix        `json:"fixes"`
	Notes       []string         `json:"notes"`
	Suppressed  *jsonSuppression `json:"suppressed"`
	// Data holds inspect --data counts; absent otherwise.
	Data *jsonData `json:"data,omitempty"`
	// Witness is the two rows that get through a hole, for the findings
	// about one; Proof what --prove made of them, absent without it.
	Witness *jsonWitness `json:"witness,omitempty"`
	Proof   *jsonProof   `json:"proof,omitempty"`
}

type jsonWitness struct {
	// Label says what the rows run on: a copy of the table without its
	// foreign keys.
	Label string `json:"label"`
	// SQL is the whole witness, BEGIN to ROLLBACK; Statements the two
	// statements alone. Both empty when none could be built, and NotBuilt
	// says why.
	SQL        string   `json:"sql"`
	Statements []string `json:"statements"`
	NotBuilt   string   `json:"not_built,omitempty"`
	Notes      []string `json:"notes"`
}

type jsonProof struct {
	// Verdict is "proven", "refuted" or "not proven"; Message says it all
	// in words.
	Verdict       string `json:"verdict"`
	Message       string `json:"message"`
	ServerVersion string `json:"server_version"`
	// Fix is what the first fix did to the witness on a second copy:
	// "refused", "accepted" (a defect in the fix) or "not run".
	Fix         string `json:"fix"`
	FixTitle    string `json:"fix_title,omitempty"`
	FixSQLState string `json:"fix_sqlstate,omitempty"`
}

// jsonProving is what --prove did in the run.
type jsonProving struct {
	Server         string  `json:"server"`
	ServerVersion  string  `json:"server_version"`
	Target         int     `json:"target_version,omitempty"`
	TargetFrom     string  `json:"target_from,omitempty"`
	Scope          string  `json:"scope"`
	Proven         int     `json:"proven"`
	Refuted        int     `json:"refuted"`
	NotProven      int     `json:"not_proven"`
	FixDefects     int     `json:"fix_defects"`
	StartedSeconds float64 `json:"started_seconds"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
}

type jsonData struct {
	Parts []jsonPartCounts `json:"parts"`
}

// jsonPartCounts are the data checks of one nullable key part. A skipped
// count is null with the reason beside it.
type jsonPartCounts struct {
	Part                   string `json:"part"`
	NullRows               *int64 `json:"null_rows"`
	NullRowsSkipped        string `json:"null_rows_skipped,omitempty"`
	CollidingGroups        *int64 `json:"colliding_groups"`
	CollidingGroupsSkipped string `json:"colliding_groups_skipped,omitempty"`
	// Rows is how many rows the index covers, what the NULL count is
	// measured against.
	Rows        *int64 `json:"rows"`
	RowsSkipped string `json:"rows_skipped,omitempty"`
}

type jsonDiagnostic struct {
	Position *jsonPosition `json:"position"`
	SQLState string        `json:"sqlstate,omitempty"`
	Message  string        `json:"message"`
}

type jsonSummary struct {
	Files             int            `json:"files"`
	Statements        int            `json:"statements"`
	SkippedFiles      int            `json:"skipped_files,omitempty"`
	SkippedStatements int            `json:"skipped_statements,omitempty"`
	Tables            int            `json:"tables,omitempty"`
	RoundTrips        int            `json:"round_trips,omitempty"`
	Errors            int            `json:"errors"`
	Warnings          int            `json:"warnings"`
	Infos             int            `json:"info"`
	InfoByRule        map[string]int `json:"info_by_rule"`
	Suppressed        int            `json:"suppressed"`
	Baselined         int            `json:"baselined"`
	NotShown          int            `json:"not_shown"`
	InputErrors       int            `json:"input_errors"`
	Notes             int            `json:"notes"`
	Unchanged         int            `json:"unchanged"`
	ElapsedSeconds    float64        `json:"elapsed_seconds"`
}

func init() { register(&Format{Name: "json", Rank: 10, Write: JSON}) }

// JSON writes doc as one indented JSON document. Lists are never null, so a
// consumer can iterate without checking; suppressed findings stay in, marked.
// It needs no options.
func JSON(w io.Writer, doc *Document, _ Options) error {
	out := jsonDocument{
		FormatVersion: FormatVersion,
		Tool:          doc.Tool,
		Version:       doc.Version,
		Database:      databaseJSON(doc.Database),
		Inputs:        []jsonInput{},
		Findings:      []jsonFinding{},
		Notes:         []jsonDiagnostic{},
		Errors:        []jsonDiagnostic{},
		Summary:       summaryJSON(doc),

		InputAccount: accountJSON(doc.Account),
	}
	for _, in := range doc.Inputs {
		out.Inputs = append(out.Inputs, jsonInput{
			Path: in.Path, Layout: in.Layout, FileCount: len(in.Files), Files: nonNil(in.Files),
			Skipped: in.Skipped, Statements: in.Statements,
		})
	}
	for _, f := range doc.Findings {
		if doc.Shown(f) {
			out.Findings = append(out.Findings, findingJSON(f))
		}
	}
	for _, d := range doc.Diagnostics {
		jd := jsonDiagnostic{Position: positionJSON(d.Pos), SQLState: d.SQLState, Message: d.Message}
		if d.Level == LevelError {
			out.Errors = append(out.Errors, jd)
		} else {
			out.Notes = append(out.Notes, jd)
		}
	}
	if pv := doc.Proving; pv != nil {
		proven, refuted, notProven, defects := ProofCounts(doc)
		out.Prove = &jsonProving{Server: pv.Server, ServerVersion: pv.Version, Target: pv.Target, TargetFrom: pv.TargetFrom,
			Scope: pv.Scope, Proven: proven, Refuted: refuted, NotProven: notProven, FixDefects: defects,
			StartedSeconds: pv.Started.Seconds(), ElapsedSeconds: pv.Elapsed.Seconds()}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// SQL is full of < and >; escaping them for HTML would only hurt.
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func summaryJSON(doc *Document) jsonSummary {
	c := Count(doc)
	return jsonSummary{
		Files: doc.Summary.Files, Statements: doc.Summary.Statements,
		SkippedFiles: doc.Summary.SkippedFiles, SkippedStatements: doc.Summary.SkippedStatements,
		Tables: doc.Summary.Tables, RoundTrips: doc.Summary.RoundTrips,
		Errors: c.Errors, Warnings: c.Warnings, Infos: c.Infos, InfoByRule: c.InfoByRule, Suppressed: c.Suppressed,
		Baselined: c.Baselined, NotShown: c.NotShown, Unchanged: doc.Summary.Unchanged,
		InputErrors: c.InputErrors, Notes: c.Notes,
		ElapsedSeconds: doc.Summary.Elapsed.Seconds(),
	}
}

func findingJSON(f audit.Finding) jsonFinding {
	out := jsonFinding{
		Fingerprint: f.Fingerprint(),
		Rule:        f.Rule, Severity: f.Severity.String(), Object: f.Object, Columns: nonNil(f.Columns),
		Message: f.Message, Position: positionJSON(f.Pos), Related: []jsonRelated{}, Fixes: []jsonFix{},
		Notes: nonNil(f.Notes),
	}
	if f.Data != nil {
		out.Data = dataJSON(f.Data)
	}
	for _, r := range f.Related {
		out.Related = append(out.Related, jsonRelated{Position: positionJSON(r.Pos), Message: r.Message})
	}
	for _, fix := range f.Fixes {
		out.Fixes = append(out.Fixes, jsonFix{
			Title: fix.Title, SQL: fix.SQL, Caveat: fix.Caveat, Precheck: fix.Precheck,
			NoTransaction: fix.NoTransaction, Lang: fix.Lang,
		})
	}
	if s := f.Suppressed; s != nil {
		out.Suppressed = &jsonSuppression{Kind: s.Kind, Reason: s.Reason, Position: positionJSON(s.Pos)}
	}
	if w := f.Witness; w != nil {
		out.Witness = &jsonWitness{Label: audit.WitnessLabel, SQL: w.SQL(), Statements: nonNil(w.Rows),
			NotBuilt: w.NotBuilt, Notes: nonNil(w.Notes)}
	}
	if p := f.Proof; p != nil {
		out.Proof = &jsonProof{Verdict: p.Verdict.String(), Message: p.Message, ServerVersion: p.Server,
			Fix: fixVerdicts[p.Fix], FixTitle: p.FixTitle, FixSQLState: p.FixSQLState}
	}
	return out
}

// fixVerdicts name what a fix did to a witness in JSON and SARIF.
var fixVerdicts = map[audit.FixVerdict]string{audit.FixNotRun: "not run", audit.FixRefused: "refused", audit.FixAccepted: "accepted"}

// positionJSON is nil (JSON null) for a zero position: a live catalog's
// objects have no file.
func positionJSON(p catalog.Pos) *jsonPosition {
	if p.IsZero() {
		return nil
	}
	return &jsonPosition{File: p.File, Line: p.Line, Col: p.Col}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func dataJSON(d *audit.DataCounts) *jsonData {
	out := &jsonData{Parts: []jsonPartCounts{}}
	for _, p := range d.Parts {
		pc := jsonPartCounts{Part: p.Part, NullRowsSkipped: p.NullRowsSkipped, CollidingGroupsSkipped: p.CollidingGroupsSkipped}
		if p.NullRowsSkipped == "" {
			n := p.NullRows
			pc.NullRows = &n
		}
		if p.CollidingGroupsSkipped == "" {
			n := p.CollidingGroups
			pc.CollidingGroups = &n
		}
		pc.RowsSkipped = p.RowsSkipped
		if p.RowsSkipped == "" {
			n := p.Rows
			pc.Rows = &n
		}
		out.Parts = append(out.Parts, pc)
	}
	return out
}
