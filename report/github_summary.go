package report

import (
	"fmt"
	"os"
	"strings"

	"github.com/idemcheck/idemcheck/internal/humanize"
)

// stepSummaryRows bounds the table: a step summary is read by a person, and
// GitHub refuses one over 1 MiB.
const stepSummaryRows = 100

// appendStepSummary appends the run as Markdown to the step summary file:
// the summary line, a table of the findings the annotations show, and the
// input errors. GitHub creates the file for each step; it is appended to,
// never truncated, as GitHub asks, so that two runs in one step both show.
func appendStepSummary(path string, doc *Document) error {
	var b strings.Builder
	tool := doc.Tool
	if tool == "" {
		tool = "idemcheck"
	}
	fmt.Fprintf(&b, "### %s\n\n%s\n\n", tool, summaryLine(doc, ""))
	var rows []string
	hidden, proving := 0, doc.Proving != nil
	for _, f := range doc.Findings {
		if f.Suppressed != nil || !doc.Shown(f) {
			continue
		}
		if len(rows) == stepSummaryRows {
			hidden++
			continue
		}
		where := f.Pos.File
		if f.Pos.Line > 0 {
			where += fmt.Sprintf(":%d", f.Pos.Line)
		}
		cells := []string{f.Severity.String(), "`" + f.Rule + "`", cell(f.Object), cell(where), cell(firstLine(f.Message))}
		if proving {
			proof := ""
			if f.Proof != nil {
				proof = f.Proof.Message
			}
			cells = append(cells, cell(proof))
		}
		rows = append(rows, "| "+strings.Join(cells, " | ")+" |")
	}
	if len(rows) > 0 {
		if proving {
			b.WriteString("| severity | rule | object | where | finding | --prove |\n|---|---|---|---|---|---|\n")
		} else {
			b.WriteString("| severity | rule | object | where | finding |\n|---|---|---|---|---|\n")
		}
		b.WriteString(strings.Join(rows, "\n"))
		b.WriteString("\n")
		if hidden > 0 {
			fmt.Fprintf(&b, "\n%s more not shown here (see the annotations or the SARIF report).\n", humanize.Count(hidden, "finding", "findings"))
		}
		b.WriteString("\n")
	}
	var errs []string
	for _, d := range doc.Diagnostics {
		if d.Level == LevelError {
			where := d.Pos.File
			if d.Pos.Line > 0 {
				where += fmt.Sprintf(":%d", d.Pos.Line)
			}
			errs = append(errs, "- "+strings.TrimPrefix(where+": ", ": ")+oneLine(d.Message))
		}
	}
	if len(errs) > 0 {
		b.WriteString("**Input that could not be read:**\n\n" + strings.Join(errs, "\n") + "\n\n")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("the step summary (GITHUB_STEP_SUMMARY): %w", err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return fmt.Errorf("the step summary %s: %w", path, err)
	}
	return f.Close()
}

// cell is text made safe for one Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
