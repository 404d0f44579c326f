package report

import (
	"encoding/json"
	"io"

	"github.com/idemcheck/idemcheck/audit"
)

func init() {
	register(&Format{Name: "gitlab", Purpose: "Code Quality", Rank: 40, Write: GitLab})
}

// gitlabIssue is one entry of GitLab's Code Quality report (a JSON array, a
// subset of the Code Climate issue format).
type gitlabIssue struct {
	Description string         `json:"description"`
	CheckName   string         `json:"check_name"`
	Fingerprint string         `json:"fingerprint"`
	Severity    string         `json:"severity"`
	Location    gitlabLocation `json:"location"`
}

type gitlabLocation struct {
	Path  string      `json:"path"`
	Lines gitlabLines `json:"lines"`
}

type gitlabLines struct {
	Begin int `json:"begin"`
}

// GitLab writes doc as a GitLab Code Quality report. Suppressed findings are
// left out (the format has no way to mark them); the fingerprint is the
// finding's own (rule, object and key parts), so a finding keeps its
// identity across runs and merge requests even when lines move.
// Paths are made relative to the repository root as GitLab wants, from
// opts.Paths; no other option is read.
func GitLab(w io.Writer, doc *Document, opts Options) error {
	issues := []gitlabIssue{}
	for _, f := range doc.Findings {
		if f.Suppressed != nil || !doc.Shown(f) {
			continue
		}
		file, _ := opts.Paths.fromRoot(f.Pos.File)
		loc := gitlabLocation{Path: file, Lines: gitlabLines{Begin: f.Pos.Line}}
		if f.Pos.IsZero() {
			// A live database has no file; GitLab still needs a path, and
			// the object's name is what a reader looks for.
			loc = gitlabLocation{Path: f.Object, Lines: gitlabLines{Begin: 1}}
		}
		issues = append(issues, gitlabIssue{
			Description: f.Rule + ": " + f.Message,
			CheckName:   f.Rule,
			Fingerprint: f.Fingerprint(),
			Severity:    gitlabSeverity(f.Severity),
			Location:    loc,
		})
	}
	issues = append(issues, accountIssues(doc)...)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(issues)
}

// gitlabSeverity maps onto Code Quality's scale (info, minor, major,
// critical, blocker): an error lets duplicates through, so it is critical.
func gitlabSeverity(s audit.Severity) string {
	switch s {
	case audit.Error:
		return "critical"
	case audit.Warning:
		return "major"
	}
	return "info"
}
