package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"

	"github.com/idemcheck/idemcheck/internal/humanize"
)

func init() { register(&Format{Name: "text", Rank: 0, Write: Text}) }

// DefaultWidth is where message text is wrapped, indentation included, when
// Options.Width is not set: the width of output that is not a terminal (a
// log, a file, a pipe), where no width can be asked for.
const DefaultWidth = 100

// minWidth is the narrowest wrap: below it every line would break after a
// word or two, which is harder to read than a line the terminal folds.
const minWidth = 40

// palette holds one color.Color per kind of text. Each value has colour
// switched on or off explicitly, so that two reports written at once (tests
// in parallel) never share color's global NoColor switch.
type palette struct {
	err, warning, info, note, rule, pos *color.Color
}

func newPalette(enabled bool) palette {
	p := palette{
		err:     color.New(color.FgRed, color.Bold),
		warning: color.New(color.FgYellow, color.Bold),
		info:    color.New(color.FgCyan),
		note:    color.New(color.FgBlue),
		rule:    color.New(color.Bold),
		pos:     color.New(color.Bold),
	}
	for _, c := range []*color.Color{p.err, p.warning, p.info, p.note, p.rule, p.pos} {
		if enabled {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return p
}

// proof colours a verdict: proven like an error (the hole is real),
// refuted like a note.
func (p palette) proof(v audit.Verdict, word string) string {
	switch v {
	case audit.Proven:
		return p.err.Sprint(word)
	case audit.Refuted:
		return p.note.Sprint(word)
	}
	return p.info.Sprint(word)
}

func (p palette) severity(s audit.Severity) string {
	switch s {
	case audit.Error:
		return p.err.Sprint(s)
	case audit.Warning:
		return p.warning.Sprint(s)
	}
	return p.info.Sprint(s)
}

// textWriter keeps the first write error so the formatting code can stay
// straight-line; Text returns that error at the end.
type textWriter struct {
	w   io.Writer
	err error
	// width is where prose wraps, indentation included.
	width int
}

func (t *textWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// Text writes doc in the format of docs/cli.md: one block per finding that starts
// with file:line:col so editors and CI can jump to it, then input errors
// (and notes with Verbose), then the summary line. An info finding takes
// one line (all of it with Verbose), so that forty optional names do not
// bury two holes; the info lines come together, after a blank line.
//
// Of opts it reads Color (ANSI colours for severities, rule ids and
// positions), Verbose (note diagnostics, and every fix in full) and Width
// (where prose wraps; the first line of a finding never wraps, so that it
// stays one file:line:col: severity rule line for grep and editors).
func Text(w io.Writer, doc *Document, opts Options) error {
	t := &textWriter{w: w, width: opts.Width}
	if t.width <= 0 {
		t.width = DefaultWidth
	}
	t.width = max(t.width, minWidth)
	p := newPalette(opts.Color)
	if db := doc.Database; db != nil {
		t.printf("database: %s (PostgreSQL %s)\n", db, db.Version)
	}
	lines := false
	for _, f := range doc.Findings {
		if f.Suppressed != nil || !doc.Shown(f) {
			continue
		}
		if f.Severity == audit.Info && !opts.Verbose {
			t.printf("%s: %s %s %s\n", p.pos.Sprint(location(f.Pos, f.Object)), p.severity(f.Severity), p.rule.Sprint(f.Rule),
				strings.Join(strings.Fields(f.Message), " "))
			lines = true
			continue
		}
		if lines {
			t.printf("\n")
			lines = false
		}
		writeFinding(t, p, f, opts)
		t.printf("\n")
	}
	if lines {
		t.printf("\n")
	}
	shown := 0
	for _, d := range doc.Diagnostics {
		if d.Level == LevelNote && !opts.Verbose {
			continue
		}
		writeDiagnostic(t, p, d)
		shown++
	}
	if shown > 0 {
		t.printf("\n")
	}
	if doc.Proving != nil {
		writeWrapped(t, "", "", ProvingLine(doc))
		t.printf("\n")
	}
	if doc.Account != nil {
		t.printf("%s\n", AccountLine(doc.Account))
	}
	t.printf("%s\n", SummaryLine(doc, opts.Verbose))
	return t.err
}

// location is the prefix of a finding's first line: its position, or the
// object's name when the catalog came from a live server and has no files.
func location(pos catalog.Pos, object string) string {
	if pos.IsZero() {
		return object
	}
	return pos.String()
}

func writeFinding(t *textWriter, p palette, f audit.Finding, opts Options) {
	// One grep-able line: file:line:col: severity rule object. A live
	// catalog's finding has no file, and its location is the object.
	head := fmt.Sprintf("%s: %s %s", p.pos.Sprint(location(f.Pos, f.Object)), p.severity(f.Severity), p.rule.Sprint(f.Rule))
	if !f.Pos.IsZero() && f.Object != "" {
		head += " " + f.Object
	}
	t.printf("%s\n", head)
	writeWrapped(t, "  ", "  ", f.Message)
	for _, r := range f.Related {
		writeWrapped(t, "  "+p.pos.Sprint(r.Pos.String())+": ", "    ", r.Message)
	}
	for _, n := range f.Notes {
		writeWrapped(t, "  "+p.note.Sprint("note")+": ", "    ", n)
	}
	for i, fix := range f.Fixes {
		label := "fix"
		if i > 0 {
			label = "or"
		}
		title := fix.Title
		if fix.NoTransaction {
			title += " (run outside a transaction)"
		}
		writeWrapped(t, "  "+label+": ", "    ", title)
		if i == 0 || opts.Verbose {
			writeFixBody(t, fix)
		}
	}
	writeProof(t, p, f, opts)
}

// writeProof writes what --prove found and the witness it ran. Without
// --prove the witness is printed with -v only: it adds some six lines to
// a finding of twenty, which a run over a large tree need not show; with
// --prove it is the evidence the verdict rests on (and what a bug report
// about a refuted finding needs), so it is always printed.
func writeProof(t *textWriter, p palette, f audit.Finding, opts Options) {
	if pr := f.Proof; pr != nil {
		verdict, rest, _ := strings.Cut(pr.Message, ": ")
		writeWrapped(t, "  "+p.proof(pr.Verdict, verdict)+": ", "    ", rest)
	}
	w := f.Witness
	if w == nil || !(opts.Verbose || f.Proof != nil) {
		return
	}
	if len(w.Rows) == 0 {
		writeWrapped(t, "  witness: ", "    ", "none: "+w.NotBuilt)
		return
	}
	t.printf("  witness (%s):\n", audit.WitnessLabel)
	writeIndented(t, "    ", w.SQL())
	for _, n := range w.Notes {
		writeWrapped(t, "    "+p.note.Sprint("note")+": ", "      ", n)
	}
}

func writeFixBody(t *textWriter, fix audit.Fix) {
	writeIndented(t, "    ", fix.SQL)
	if fix.Caveat != "" {
		writeWrapped(t, "    caveat: ", "      ", fix.Caveat)
	}
	if fix.Precheck != "" {
		t.printf("    precheck (the rows that make this fix fail):\n")
		writeIndented(t, "      ", fix.Precheck)
	}
}

func writeDiagnostic(t *textWriter, p palette, d Diagnostic) {
	level := p.err.Sprint(string(d.Level))
	if d.Level == LevelNote {
		level = p.note.Sprint(string(d.Level))
	}
	msg := d.Message
	if d.SQLState != "" {
		msg += " (SQLSTATE " + d.SQLState + ")"
	}
	if d.Pos.IsZero() {
		t.printf("%s: %s\n", level, msg)
		return
	}
	t.printf("%s: %s: %s\n", p.pos.Sprint(d.Pos.String()), level, msg)
}

// writeIndented writes text line by line, each line behind indent, as it is:
// SQL keeps its own line breaks and alignment.
func writeIndented(t *textWriter, indent, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			t.printf("\n")
			continue
		}
		t.printf("%s%s\n", indent, line)
	}
}

// writeWrapped writes prose wrapped at t.width: the first line behind
// first, the following ones behind rest. The widths count visible characters,
// so colour codes in first do not shorten the line.
func writeWrapped(t *textWriter, first, rest, text string) {
	for _, line := range wrap(text, visibleLen(first), len(rest), t.width) {
		t.printf("%s\n", strings.TrimRight(first+line, " "))
		first = rest
	}
}

// wrap splits text into lines of at most width characters once an indent
// of firstIndent (first line) or restIndent (others) is added. Existing line
// breaks are kept; a word longer than a line stays whole.
func wrap(text string, firstIndent, restIndent, width int) []string {
	var lines []string
	indent := firstIndent
	for _, para := range strings.Split(text, "\n") {
		var line strings.Builder
		for _, word := range strings.Fields(para) {
			if line.Len() > 0 && indent+len([]rune(line.String()))+1+len([]rune(word)) > width {
				lines = append(lines, line.String())
				line.Reset()
				indent = restIndent
			}
			if line.Len() > 0 {
				line.WriteByte(' ')
			}
			line.WriteString(word)
		}
		lines = append(lines, line.String())
		indent = restIndent
	}
	return lines
}

// visibleLen is the length of s without ANSI escape sequences.
func visibleLen(s string) int {
	n, inEscape := 0, false
	for _, r := range s {
		switch {
		case r == '\x1b':
			inEscape = true
		case inEscape:
			if r == 'm' {
				inEscape = false
			}
		default:
			n++
		}
	}
	return n
}

// SummaryLine is the last line of the text report:
// "3 errors, 1 warning, 4 info in 212 files (1,840 statements) — 0.21 s",
// with skipped files and statements, input errors, notes and suppressed
// findings added when there are any. Unless verbose, the count of notes
// says that -v shows them.
func SummaryLine(doc *Document, verbose bool) string {
	hint := "-v to show"
	if verbose {
		hint = ""
	}
	return summaryLine(doc, hint)
}

// summaryLine is the run's summary in words: every format that prints a
// summary line prints this one (the text report, GitHub's last line), and
// the JSON summary holds the same counts (Count). notesHint, when set, is
// put in brackets after the count of notes: how to see them.
func summaryLine(doc *Document, notesHint string) string {
	c := Count(doc)
	var b strings.Builder
	infos := humanize.Count(c.Infos, "info", "info")
	if c.Infos > 0 {
		infos += " (" + c.infoRules() + ")"
	}
	fmt.Fprintf(&b, "%s, %s, %s in %s",
		humanize.Count(c.Errors, "error", "errors"), humanize.Count(c.Warnings, "warning", "warnings"), infos, whatWasRead(doc))
	if c.NotShown > 0 {
		fmt.Fprintf(&b, ", %s below --min-severity %s not shown", humanize.Thousands(c.NotShown), doc.MinSeverity)
	}
	if c.InputErrors > 0 {
		fmt.Fprintf(&b, ", %s", humanize.Count(c.InputErrors, "input error", "input errors"))
	}
	if c.Notes > 0 {
		b.WriteString(", " + humanize.Count(c.Notes, "note", "notes"))
		if notesHint != "" {
			b.WriteString(" (" + notesHint + ")")
		}
	}
	if n := c.Suppressed - c.Baselined; n > 0 {
		fmt.Fprintf(&b, ", %d suppressed", n)
	}
	if c.Baselined > 0 {
		fmt.Fprintf(&b, ", %d in the baseline", c.Baselined)
	}
	if doc.Summary.Unchanged > 0 {
		fmt.Fprintf(&b, ", %s", unchangedWords(doc.Summary.Unchanged))
	}
	fmt.Fprintf(&b, " — %.2f s", doc.Summary.Elapsed.Seconds())
	return b.String()
}

// whatWasRead is "212 files (1,840 statements)", with the files and
// statements skipped when there are any, or for a live database "14 tables
// (2 round trips)".
func whatWasRead(doc *Document) string {
	if doc.Summary.Live {
		return humanize.Count(doc.Summary.Tables, "table", "tables") + " (" + humanize.Count(doc.Summary.RoundTrips, "round trip", "round trips") + ")"
	}
	read := humanize.Count(doc.Summary.Files, "file", "files") + " (" + humanize.Count(doc.Summary.Statements, "statement", "statements") + ")"
	if n := doc.Summary.SkippedFiles; n > 0 {
		read += ", " + humanize.Count(n, "file", "files") + " skipped"
	}
	if n := doc.Summary.SkippedStatements; n > 0 {
		read += ", " + humanize.Count(n, "statement", "statements") + " skipped"
	}
	return read
}

// unchangedWords counts the findings --new-from-rev left out.
func unchangedWords(n int) string {
	return humanize.Count(n, "finding", "findings") + " in unchanged files not shown"
}
