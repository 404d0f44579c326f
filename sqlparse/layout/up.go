package layout

import (
	"bytes"
	"fmt"
	"strings"
	"unsafe"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// ReadUp reads a file and keeps only its up part, according to its layout.
func ReadUp(f File) (scan.Input, error) {
	data := f.data
	if !f.stdin && data == nil {
		var err error
		data, err = readSQLFile(f.disk)
		if err != nil {
			return scan.Input{Path: f.Path}, fmt.Errorf("%s: cannot read: %w", f.Path, unwrapPathError(err))
		}
	}
	if bytes.HasPrefix(data, []byte(utf8BOM)) {
		d := Lookup(f.Layout)
		if d == nil || !d.DropsBOM {
			return scan.Input{Path: f.Path}, fmt.Errorf("%s:1:1: %w", f.Path, &bomError{Tool: toolName(d)})
		}
		data = data[len(utf8BOM):]
	}
	if len(data) == 0 {
		return upPart(f, ""), nil
	}
	// Nothing writes to data once it is read, so the text shares its
	// memory instead of copying a file that may be megabytes long.
	return upPart(f, unsafe.String(&data[0], len(data))), nil
}

// toolName is how an error names the tool that applies a layout.
func toolName(d *Def) string {
	if d == nil || d.Tool == "" {
		return "the migration tool"
	}
	return d.Tool
}

// Release drops the content discovery kept for a file read from disk, so
// that a tree does not hold it once the file is read; ReadUp then reads
// the file again. Input from stdin is kept: it cannot be read twice.
func (f *File) Release() {
	if !f.stdin {
		f.data = nil
	}
}

// upPart cuts the up part out of text for f's layout.
func upPart(f File, text string) scan.Input {
	if d := Lookup(f.Layout); d != nil && d.Up != nil {
		return d.Up(f, text)
	}
	return scan.Input{Path: f.Path, Text: text}
}

// srcLine is one line of a file with its byte offsets (end excludes "\n").
type srcLine struct {
	start, end int
	text       string
}

func splitLines(text string) []srcLine {
	var lines []srcLine
	start := 0
	for start <= len(text) {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			lines = append(lines, srcLine{start, len(text), text[start:]})
			break
		}
		lines = append(lines, srcLine{start, start + end, text[start : start+end]})
		start += end + 1
	}
	return lines
}

// blanker builds scan.Input.Text by blanking spans of the original.
type blanker struct {
	buf []byte
}

func newBlanker(text string) *blanker { return &blanker{buf: []byte(text)} }

// blank replaces bytes in [start, end) with spaces, keeping line breaks.
func (b *blanker) blank(start, end int) {
	for i := start; i < end && i < len(b.buf); i++ {
		if b.buf[i] != '\n' && b.buf[i] != '\r' {
			b.buf[i] = ' '
		}
	}
}

// directive returns the lower-cased words after "-- <tool>" on a line, or
// nil when the line is not such a directive.
func directive(l, tool string) []string {
	t := strings.TrimSpace(l)
	if !strings.HasPrefix(t, "--") {
		return nil
	}
	fields := strings.Fields(strings.ToLower(strings.TrimPrefix(t, "--")))
	if len(fields) == 0 || fields[0] != tool {
		return nil
	}
	if len(fields) == 1 {
		return []string{""}
	}
	return fields[1:]
}

// annotatedUp handles goose and sql-migrate: the Up section is used, the
// Down section and anything before Up are blanked; StatementBegin/End wrap
// one statement. A file with no Up annotation is used whole.
func annotatedUp(f File, text, tool string) scan.Input {
	in := scan.Input{Path: f.Path}
	lines := splitLines(text)
	hasUp := false
	for _, l := range lines {
		if d := directive(l.text, tool); d != nil && d[0] == "up" {
			hasUp = true
		}
	}
	b := newBlanker(text)
	section := "up"
	if hasUp {
		section = "before"
	}
	wholeStart := -1
	for _, l := range lines {
		d := directive(l.text, tool)
		switch {
		case d == nil:
			if section != "up" {
				b.blank(l.start, l.end)
			}
		case d[0] == "up":
			section = "up"
			if len(d) > 1 && d[1] == "notransaction" {
				in.NoTransaction = true
			}
		case d[0] == "down":
			section = "down"
			b.blank(l.start, l.end)
		case d[0] == "no" && len(d) > 1 && d[1] == "transaction":
			in.NoTransaction = true // goose puts it at the top of the file
		case section != "up":
			b.blank(l.start, l.end)
		case d[0] == "statementbegin":
			wholeStart = l.end
		case d[0] == "statementend" && wholeStart >= 0:
			in.Whole = append(in.Whole, scan.Range{Start: wholeStart, End: l.start})
			wholeStart = -1
		}
	}
	in.Text = string(b.buf)
	return in
}
