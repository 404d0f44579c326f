package report

import (
	"encoding/json"
	"io"
	"path"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
)

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
// Paths are made relative to the repository root as GitLab wants, with
// opts.Root and opts.Prefix as in SARIF (opts.Rules is not used).
func GitLab(w io.Writer, doc *Document, opts SARIFOptions) error {
	paths := sarifWriter{prefix: strings.Trim(opts.Prefix, "/"), root: strings.TrimSuffix(opts.Root, "/")}
	issues := []gitlabIssue{}
	for _, f := range doc.Findings {
		if f.Suppressed != nil || !doc.Shown(f) {
			continue
		}
		loc := gitlabLocation{Path: paths.repoPath(f.Pos.File), Lines: gitlabLines{Begin: f.Pos.Line}}
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

// repoPath is file relative to the repository root, unescaped; a file
// outside the repository keeps its absolute path.
func (s sarifWriter) repoPath(file string) string {
	p := strings.ReplaceAll(file, "\\", "/")
	if !path.IsAbs(p) {
		return path.Join(s.prefix, p)
	}
	if s.root != "" && strings.HasPrefix(p, s.root+"/") {
		return strings.TrimPrefix(p, s.root+"/")
	}
	return p
}
