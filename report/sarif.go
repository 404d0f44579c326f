package report

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"path"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

// SARIF 2.1.0 identifiers. The schema URI is the final OASIS one, which the
// validator requires (SARIF1011).
const (
	sarifVersion   = "2.1.0"
	sarifSchema    = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	informationURI = "https://github.com/idemcheck/idemcheck"
	// srcRoot is the uriBaseId every path is relative to: the repository
	// root.
	srcRoot = "SRCROOT"
	// fingerprintKey names idemcheck's own partial fingerprint: the rule and
	// the object, so a finding keeps its identity when lines move.
	fingerprintKey = "idemcheck/v1"
)

func init() { register(&Format{Name: "sarif", Purpose: "code scanning", Rank: 20, Write: SARIF}) }

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                  `json:"tool"`
	Invocations        []sarifInvocation          `json:"invocations"`
	OriginalURIBaseIDs map[string]sarifArtifactID `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult              `json:"results"`
	// Artifacts are the input account's files (account.go).
	Artifacts  []sarifArtifact `json:"artifacts,omitempty"`
	ColumnKind string          `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string              `json:"id"`
	Name                 string              `json:"name"`
	ShortDescription     sarifMessage        `json:"shortDescription"`
	FullDescription      sarifMessage        `json:"fullDescription"`
	Help                 sarifMessage        `json:"help"`
	HelpURI              string              `json:"helpUri"`
	DefaultConfiguration sarifConfiguration  `json:"defaultConfiguration"`
	Properties           sarifRuleProperties `json:"properties"`
}

type sarifRuleProperties struct {
	Needs string   `json:"needs"`
	Tags  []string `json:"tags"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	// Properties holds the database inspect read; absent for lint.
	Properties *sarifInvocationProps `json:"properties,omitempty"`
}

type sarifInvocationProps struct {
	Database *jsonDatabase `json:"database"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifArtifactID struct {
	URI string `json:"uri"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifMessage       `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	RelatedLocations    []sarifLocation    `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Fixes               []sarifFix         `json:"fixes,omitempty"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	Properties          *sarifResultProps  `json:"properties,omitempty"`
}

// sarifResultProps are idemcheck's own properties of a result: the witness
// of a hole, and what --prove made of it.
type sarifResultProps struct {
	Witness      string `json:"witness,omitempty"`
	Proof        string `json:"proof,omitempty"`
	ProofMessage string `json:"proofMessage,omitempty"`
	Fix          string `json:"fixProof,omitempty"`
}

type sarifLocation struct {
	ID               *int                   `json:"id,omitempty"`
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
	Message          *sarifMessage          `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

type sarifLogicalLocation struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifFix struct {
	Description     sarifMessage          `json:"description"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Replacements     []sarifReplacement    `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion   sarifRegion          `json:"deletedRegion"`
	InsertedContent sarifArtifactContent `json:"insertedContent"`
}

type sarifArtifactContent struct {
	Text string `json:"text"`
}

type sarifSuppression struct {
	Kind          string         `json:"kind"`
	Status        string         `json:"status"`
	Justification string         `json:"justification"`
	Location      *sarifLocation `json:"location,omitempty"`
}

// SARIF writes doc as a SARIF 2.1.0 log for code scanning: the rules with
// their full docs, one result per finding (suppressed ones carry their
// suppression), input errors as tool notifications. Of opts it reads Paths
// and Rules.
func SARIF(w io.Writer, doc *Document, opts Options) error {
	rules := opts.Rules
	if rules == nil {
		rules = audit.Rules
	}
	s := sarifWriter{paths: opts.Paths, ruleIndex: map[string]int{}}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: doc.Tool, Version: numericVersion(doc.Version), InformationURI: informationURI, Rules: []sarifRule{},
		}},
		Results:    []sarifResult{},
		ColumnKind: "unicodeCodePoints",
	}
	if opts.Paths.RootURI != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactID{srcRoot: {URI: opts.Paths.RootURI}}
	}
	for _, r := range rules {
		s.ruleIndex[r.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleFor(r, doc.Version))
	}
	for _, f := range doc.Findings {
		if !doc.Shown(f) {
			continue
		}
		idx, ok := s.ruleIndex[f.Rule]
		if !ok {
			// A finding of a rule the caller did not list still needs its
			// metadata, or the result's ruleIndex would dangle.
			r := audit.Lookup(f.Rule)
			if r == nil {
				r = &audit.Rule{ID: f.Rule, Title: f.Rule, Severity: f.Severity}
			}
			idx = len(run.Tool.Driver.Rules)
			s.ruleIndex[f.Rule] = idx
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleFor(r, doc.Version))
		}
		run.Results = append(run.Results, s.result(f, idx))
	}
	inv := s.invocation(doc.Diagnostics)
	if doc.Database != nil {
		inv.Properties = &sarifInvocationProps{Database: databaseJSON(doc.Database)}
	}
	if doc.Account != nil {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{Level: "note", Message: sarifMessage{Text: sentence(accountNotice(doc.Account))}})
		run.Artifacts = s.accountArtifacts(doc.Account)
	}
	run.Invocations = []sarifInvocation{inv}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

// sarifWriter holds what every result needs: where paths are relative to,
// and the rule indexes.
type sarifWriter struct {
	paths     Paths
	ruleIndex map[string]int
}

// sarifRuleFor describes r; its helpUri is r's section of the rule
// reference, in the docs of the version that wrote the log.
func sarifRuleFor(r *audit.Rule, version string) sarifRule {
	return sarifRule{
		ID:                   r.ID,
		Name:                 pascalCase(r.ID),
		ShortDescription:     sarifMessage{Text: sentence(r.Title)},
		FullDescription:      sarifMessage{Text: sentence(strings.Join(strings.Fields(r.Doc), " "))},
		Help:                 sarifMessage{Text: RuleHelpText(r), Markdown: RuleHelpMarkdown(r)},
		HelpURI:              DocsURL(version, "rules-reference.md#"+r.ID),
		DefaultConfiguration: sarifConfiguration{Level: sarifLevel(r.Severity)},
		Properties:           sarifRuleProperties{Needs: r.Needs.String(), Tags: []string{"idempotency", "postgresql"}},
	}
}

func (s sarifWriter) result(f audit.Finding, ruleIndex int) sarifResult {
	res := sarifResult{
		RuleID:              f.Rule,
		RuleIndex:           ruleIndex,
		Level:               sarifLevel(f.Severity),
		Message:             sarifMessage{Text: sentence(f.Message)},
		Locations:           []sarifLocation{s.primaryLocation(f)},
		PartialFingerprints: map[string]string{fingerprintKey: f.Fingerprint()},
	}
	for i, r := range f.Related {
		if r.Pos.IsZero() {
			continue
		}
		id := i + 1
		res.RelatedLocations = append(res.RelatedLocations, sarifLocation{
			ID: &id, PhysicalLocation: s.physical(r.Pos), Message: &sarifMessage{Text: sentence(r.Message)},
		})
	}
	for _, fix := range f.Fixes {
		res.Fixes = append(res.Fixes, s.fix(f, fix))
	}
	if f.Witness != nil || f.Proof != nil {
		res.Properties, res.Message.Markdown = witnessSARIF(f)
	}
	if sup := f.Suppressed; sup != nil {
		kind := "inSource"
		if sup.Kind == "config" || sup.Kind == SuppressBaseline {
			kind = "external"
		}
		ss := sarifSuppression{Kind: kind, Status: "accepted", Justification: sup.Reason}
		if !sup.Pos.IsZero() {
			ss.Location = &sarifLocation{PhysicalLocation: s.physical(sup.Pos)}
		}
		res.Suppressions = []sarifSuppression{ss}
	}
	return res
}

// primaryLocation is the file position for a migration, or the object as a
// logical location for a live database, where nothing has a file.
func (s sarifWriter) primaryLocation(f audit.Finding) sarifLocation {
	if !f.Pos.IsZero() {
		return sarifLocation{PhysicalLocation: s.physical(f.Pos)}
	}
	return sarifLocation{LogicalLocations: []sarifLogicalLocation{objectLocation(f.Object)}}
}

// objectLocation names schema.table.index as a logical location.
func objectLocation(object string) sarifLogicalLocation {
	kind := "object"
	switch strings.Count(object, ".") {
	case 0:
		kind = "namespace"
	case 1:
		kind = "table"
	case 2:
		kind = "index"
	}
	name := object
	if i := strings.LastIndex(object, "."); i >= 0 {
		name = object[i+1:]
	}
	return sarifLogicalLocation{Name: name, FullyQualifiedName: object, Kind: kind}
}

func (s sarifWriter) physical(p catalog.Pos) *sarifPhysicalLocation {
	loc := &sarifPhysicalLocation{ArtifactLocation: s.artifact(p.File)}
	if p.Line > 0 {
		loc.Region = &sarifRegion{StartLine: p.Line, StartColumn: p.Col}
	}
	return loc
}

// artifact makes a display path relative to the repository root: slashes,
// no "./", below the prefix, and percent-encoded where a URI needs it. An
// absolute path outside the repository stays absolute, as a file URI.
func (s sarifWriter) artifact(file string) sarifArtifactLocation {
	p, inRepo := s.paths.fromRoot(file)
	if inRepo {
		return sarifArtifactLocation{URI: uriPath(p), URIBaseID: srcRoot}
	}
	return sarifArtifactLocation{URI: "file://" + uriPath(p)}
}

// uriPath escapes the characters a relative URI reference cannot hold.
func uriPath(p string) string {
	var b strings.Builder
	for _, c := range []byte(p) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~/!$&'()*+,;=:@", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}

// fix describes one fix. Fixes belong in a new migration, not in the file
// that already ran, so the change inserts the SQL into a new file beside it
// (idemcheck lint --fix-sql writes that file with the layout's name).
func (s sarifWriter) fix(f audit.Finding, fix audit.Fix) sarifFix {
	desc := fix.Title
	if fix.Caveat != "" {
		desc += ". " + fix.Caveat
	}
	dir := "."
	if !f.Pos.IsZero() {
		dir = path.Dir(strings.ReplaceAll(f.Pos.File, "\\", "/"))
	}
	text := fix.SQL + "\n"
	if fix.Precheck != "" {
		text = "-- precheck: " + strings.ReplaceAll(fix.Precheck, "\n", "\n-- ") + "\n" + text
	}
	return sarifFix{
		Description: sarifMessage{Text: sentence(desc)},
		ArtifactChanges: []sarifArtifactChange{{
			ArtifactLocation: s.artifact(path.Join(dir, "idemcheck_fix.sql")),
			Replacements: []sarifReplacement{{
				DeletedRegion:   sarifRegion{StartLine: 1, StartColumn: 1, EndLine: 1, EndColumn: 1},
				InsertedContent: sarifArtifactContent{Text: text},
			}},
		}},
	}
}

// invocation reports input errors and notes; the run counts as successful
// only when every input could be read.
func (s sarifWriter) invocation(ds []Diagnostic) sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: true}
	for _, d := range ds {
		level := "note"
		if d.Level == LevelError {
			level = "error"
			inv.ExecutionSuccessful = false
		}
		msg := d.Message
		if d.SQLState != "" {
			msg += " (SQLSTATE " + d.SQLState + ")"
		}
		n := sarifNotification{Level: level, Message: sarifMessage{Text: sentence(msg)}}
		if !d.Pos.IsZero() {
			n.Locations = []sarifLocation{{PhysicalLocation: s.physical(d.Pos)}}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}
	return inv
}

func sarifLevel(s audit.Severity) string {
	switch s {
	case audit.Error:
		return "error"
	case audit.Warning:
		return "warning"
	}
	return "note"
}

// numericVersion is the version as SARIF wants it, starting with a digit
// (SARIF2005): "v1.2.3" becomes "1.2.3" and a development build "0.0.0-devel".
func numericVersion(v string) string {
	v = strings.TrimPrefix(v, "v")
	if v == "" {
		return "0.0.0-unknown"
	}
	if v[0] < '0' || v[0] > '9' {
		return "0.0.0-" + v
	}
	return v
}

// sentence ends text with a period, as SARIF consumers expect of messages.
func sentence(text string) string {
	text = strings.TrimSpace(text)
	if text == "" || strings.HasSuffix(text, ".") || strings.HasSuffix(text, "?") || strings.HasSuffix(text, "!") {
		return text
	}
	return text + "."
}

// pascalCase turns a rule id into the friendly name SARIF expects
// (nullable-key -> NullableKey).
func pascalCase(id string) string {
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// witnessSARIF is a result's witness and proof, as properties and as the
// markdown message code scanning shows: the message, the verdict, and the
// witness as a SQL block.
func witnessSARIF(f audit.Finding) (*sarifResultProps, string) {
	props := &sarifResultProps{Witness: f.Witness.SQL()}
	md := sentence(f.Message)
	if p := f.Proof; p != nil {
		props.Proof, props.ProofMessage, props.Fix = p.Verdict.String(), p.Message, fixVerdicts[p.Fix]
		md += "\n\n**" + p.Verdict.String() + "**" + strings.TrimPrefix(p.Message, p.Verdict.String())
	}
	if sql := props.Witness; sql != "" {
		md += "\n\nWitness, " + audit.WitnessLabel + ":\n\n```sql\n" + sql + "\n```"
	} else if f.Witness != nil && f.Witness.NotBuilt != "" {
		md += "\n\nNo witness: " + f.Witness.NotBuilt
	}
	return props, md
}
