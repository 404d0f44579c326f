package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

func init() {
	register(&Format{Name: "github", Purpose: "workflow annotations", Rank: 30, Write: GitHub})
}

// GitHub writes doc as GitHub Actions workflow commands: one annotation per
// finding that is not suppressed (::error, ::warning or ::notice with file,
// line, column and title), one per input error, then the summary line the
// text report ends with, behind "idemcheck: ".
// Suppressed findings are left out, as in the text report. With
// opts.StepSummary it also appends the findings as a Markdown table to the
// job's step summary.
func GitHub(w io.Writer, doc *Document, opts Options) error {
	t := &textWriter{w: w}
	for _, f := range doc.Findings {
		if f.Suppressed != nil || !doc.Shown(f) {
			continue
		}
		title := "idemcheck " + f.Rule
		if f.Object != "" {
			title += ": " + f.Object
		}
		msg := f.Message
		if f.Proof != nil {
			msg += "\n" + f.Proof.Message
		}
		if len(f.Fixes) > 0 {
			msg += "\nfix: " + f.Fixes[0].Title + "\n" + f.Fixes[0].SQL
		}
		t.printf("%s\n", annotation(githubLevel(f.Severity), f.Pos, title, msg))
	}
	for _, d := range doc.Diagnostics {
		if d.Level != LevelError {
			continue
		}
		msg := d.Message
		if d.SQLState != "" {
			msg += " (SQLSTATE " + d.SQLState + ")"
		}
		t.printf("%s\n", annotation("error", d.Pos, "idemcheck could not read this input", msg))
	}
	// The annotations leave notes out whatever -v says, so the count of
	// notes carries no hint.
	line := "idemcheck: " + summaryLine(doc, "")
	t.printf("%s\n", line)
	if t.err != nil {
		return t.err
	}
	if opts.StepSummary != "" {
		return appendStepSummary(opts.StepSummary, doc)
	}
	return nil
}

// annotation is one workflow command. Properties and message are escaped
// the way the Actions runner unescapes them.
func annotation(level string, pos catalog.Pos, title, msg string) string {
	var props []string
	if !pos.IsZero() {
		props = append(props, "file="+escapeProperty(pos.File))
		if pos.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", pos.Line))
		}
		if pos.Col > 0 {
			props = append(props, fmt.Sprintf("col=%d", pos.Col))
		}
	}
	props = append(props, "title="+escapeProperty(title))
	return "::" + level + " " + strings.Join(props, ",") + "::" + escapeData(msg)
}

func githubLevel(s audit.Severity) string {
	switch s {
	case audit.Error:
		return "error"
	case audit.Warning:
		return "warning"
	}
	return "notice"
}

// escapeData escapes a workflow command's message: %, CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a property value: the message escapes plus the
// characters that separate properties (: and ,).
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
