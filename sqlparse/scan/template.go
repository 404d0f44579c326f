package scan

import (
	"fmt"
	"sort"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/idemcheck/idemcheck/catalog"
)

// Templated migration trees hold placeholders that their runner fills in
// before the SQL reaches the server: Go templates ({{ .Namespace }},
// {{ index .Options "Namespace" }}, run over the whole file by gobuffalo/pop
// and others), Flyway placeholders (${schema}) and psql variables (:name,
// :'name', :"name"). Fill fills them with the values given
// (--var, vars: in the configuration) before the text is split, so that a
// templated tree is replayed in full. A placeholder without a value becomes
// a stand-in identifier, with a note, so that the statement is still read;
// a Go template control action ({{ if }}, {{ range }}) cannot be stood in
// for, and the statements inside it are skipped with a note when it has no
// values. Nothing here is ever an error: a template idemcheck cannot fill is
// reported and stood in for.

// Vars are the values for placeholders, by name. A nil Vars means that no
// values were given.
type Vars map[string]string

// placeholderKind says which syntax a placeholder uses.
type placeholderKind int

const (
	goAction    placeholderKind = iota // {{ ... }}
	flywayVar                          // ${name}
	psqlVar                            // :name
	psqlLiteral                        // :'name'
	psqlIdent                          // :"name"
)

// sqlContext is where in the SQL text a placeholder stands.
type sqlContext int

const (
	inCode sqlContext = iota
	inString
	inQuotedIdent
	inDollarQuote
)

// placeholder is one placeholder found in the text.
type placeholder struct {
	start, end int // byte offsets of its text
	kind       placeholderKind
	ctx        sqlContext
	name       string // the value's name (stand-in identifiers derive from it)
	keyword    string // for Go actions: if, range, end ... or "" for a value
	tree       *parse.Tree
}

// goControlOpeners start a Go template block that ends at {{ end }}.
var goControlOpeners = map[string]bool{"if": true, "range": true, "with": true, "define": true, "block": true}

// goControlWords are the other actions that steer a template rather than
// print a value.
var goControlWords = map[string]bool{"else": true, "end": true, "template": true, "break": true, "continue": true}

// edit replaces text[start:end] of the original with text.
type edit struct {
	start, end int
	text       string
}

// textEdit records where an edit landed in the output, so that offsets of
// the output map back to the file.
type textEdit struct {
	outStart, outEnd   int
	origStart, origEnd int
}

// offsetNote is a note at an offset of Input.Text.
type offsetNote struct {
	offset  int
	message string
}

// controlRange is a span of Input.Text inside a Go template control action
// that could not be run: statements overlapping it are skipped.
type controlRange struct {
	Range
	why string
}

// Fill fills the template placeholders of in.Text with vars, or stand-ins
// where vars has no value. The result's Text is
// what the runner would send; positions still point into the file.
func Fill(in Input, vars Vars) Input {
	found := findPlaceholders(in.Text, vars)
	if len(found) == 0 {
		return in
	}
	f := &filler{src: in.Text, vars: vars, seen: map[string]*standIn{}}
	f.fill(found)
	if len(f.edits) == 0 && len(f.control) == 0 && len(f.notes) == 0 {
		return in
	}
	out, mapping := applyEdits(in.Text, f.edits)
	res := in
	res.Text = out
	res.source = in.Text
	res.edits = mapping
	res.Whole = nil
	for _, w := range in.Whole {
		res.Whole = append(res.Whole, Range{forward(mapping, w.Start), forward(mapping, w.End)})
	}
	for _, n := range f.notes {
		res.notes = append(res.notes, offsetNote{forward(mapping, n.offset), n.message})
	}
	for _, c := range f.control {
		res.control = append(res.control, controlRange{Range{forward(mapping, c.Start), forward(mapping, c.End)}, c.why})
	}
	return res
}

// filler turns placeholders into edits, notes and control ranges, all at
// offsets of the original text.
type filler struct {
	src     string
	vars    Vars
	edits   []edit
	notes   []offsetNote
	control []controlRange
	seen    map[string]*standIn // one note per placeholder text and file
}

// standIn is a placeholder stood in for, with the note that says so.
type standIn struct {
	note  int // index in notes
	count int
	msg   string
}

func (f *filler) fill(found []placeholder) {
	for i := 0; i < len(found); i++ {
		p := found[i]
		if p.kind != goAction || p.keyword == "" {
			f.value(p)
			continue
		}
		if !goControlOpeners[p.keyword] {
			// else, end, template ... outside a block: nothing to run.
			f.skipControl(p.start, p.end, f.src[p.start:p.end], "it cannot be run on its own")
			continue
		}
		j := matchingEnd(found, i)
		if j < 0 {
			f.skipControl(p.start, len(f.src), f.src[p.start:p.end], "it has no {{ end }}")
			return
		}
		f.block(found[i : j+1])
		i = j
	}
}

// matchingEnd returns the index of the {{ end }} that closes found[i].
func matchingEnd(found []placeholder, i int) int {
	depth := 0
	for j := i; j < len(found); j++ {
		switch k := found[j].keyword; {
		case found[j].kind != goAction:
		case goControlOpeners[k]:
			depth++
		case k == "end":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// block runs a Go template control block with the values, or marks its
// statements to be skipped.
func (f *filler) block(group []placeholder) {
	start, end := group[0].start, group[len(group)-1].end
	head := f.src[group[0].start:group[0].end]
	if f.vars == nil {
		f.skipControl(start, end, head, "it needs values (--var NAME=VALUE)")
		f.blank(group)
		return
	}
	out, err := runTemplate(f.src[start:end], f.vars)
	if err != nil {
		f.skipControl(start, end, head, "it could not be run: "+err.Error())
		f.blank(group)
		return
	}
	f.edits = append(f.edits, blockEdits(f.src, group, out)...)
}

// blank replaces a block's actions by spaces: its statements are skipped,
// and the statements before and after it keep their own text.
func (f *filler) blank(group []placeholder) {
	for _, p := range group {
		f.edits = append(f.edits, edit{p.start, p.end, strings.Repeat(" ", p.end-p.start)})
	}
}

// blockEdits replaces a control block by its output in pieces, so that the
// block's own SQL keeps its positions: each stretch of text between the
// block's actions that appears in the output, in order, is an anchor, and
// only what lies between anchors is replaced. A branch not taken finds no
// anchor and is replaced along with the actions around it.
func blockEdits(src string, group []placeholder, out string) []edit {
	var edits []edit
	origAt, outAt := group[0].start, 0 // where the last anchor ended
	for i := 1; i < len(group); i++ {
		lit := src[group[i-1].end:group[i].start]
		if strings.TrimSpace(lit) == "" {
			continue
		}
		k := strings.Index(out[outAt:], lit)
		if k < 0 {
			continue
		}
		edits = append(edits, edit{origAt, group[i-1].end, out[outAt : outAt+k]})
		origAt, outAt = group[i].start, outAt+k+len(lit)
	}
	return append(edits, edit{origAt, group[len(group)-1].end, out[outAt:]})
}

func (f *filler) skipControl(start, end int, head, why string) {
	f.control = append(f.control, controlRange{Range{start, end},
		fmt.Sprintf("it is inside the template control action %s at line %d, and %s", Excerpt(head, 60), lineAt(f.src, start), why)})
}

// value fills one placeholder that stands for a value.
func (f *filler) value(p placeholder) {
	raw := f.src[p.start:p.end]
	if p.kind == goAction && p.tree != nil && isComment(p.tree) {
		f.edits = append(f.edits, edit{p.start, p.end, ""})
		return
	}
	val, ok, failure := f.lookup(p)
	if ok {
		f.edits = append(f.edits, edit{p.start, p.end, val})
		return
	}
	stand := standInFor(p, f.src)
	f.edits = append(f.edits, edit{p.start, p.end, stand})
	key := raw
	if s := f.seen[key]; s != nil {
		s.count++
		f.notes[s.note].message = fmt.Sprintf("%s (%d places in this file)", s.msg, s.count)
		return
	}
	what := "template placeholder"
	if p.kind >= psqlVar {
		what = "psql variable"
	}
	msg := fmt.Sprintf("%s %s has no value: the stand-in %s is used; pass --var %s=VALUE", what, Excerpt(raw, 60), stand, p.name)
	if failure != "" {
		msg = fmt.Sprintf("%s %s could not be filled (%s): the stand-in %s is used", what, Excerpt(raw, 60), failure, stand)
	}
	f.seen[key] = &standIn{note: len(f.notes), count: 1, msg: msg}
	f.notes = append(f.notes, offsetNote{p.start, msg})
}

// lookup finds a placeholder's value. failure says why a Go action that
// names a given value could not be run.
func (f *filler) lookup(p placeholder) (val string, ok bool, failure string) {
	if f.vars == nil {
		return "", false, ""
	}
	if p.kind != goAction {
		v, ok := f.vars[p.name]
		if !ok {
			return "", false, ""
		}
		switch p.kind {
		case psqlLiteral:
			return "'" + strings.ReplaceAll(v, "'", "''") + "'", true, ""
		case psqlIdent:
			return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`, true, ""
		}
		return v, true, ""
	}
	for _, name := range dataKeys(p.tree) {
		if _, ok := f.vars[name]; !ok {
			return "", false, ""
		}
	}
	out, err := runTemplate(f.src[p.start:p.end], f.vars)
	if err != nil {
		return "", false, err.Error()
	}
	return out, true, ""
}

// runTemplate runs text as a Go template over the values: each is a
// top-level field ({{ .Namespace }}) and a key of .Options
// ({{ index .Options "Namespace" }}), the two ways runners pass them.
func runTemplate(text string, vars Vars) (string, error) {
	t, err := template.New("migration").Option("missingkey=error").Parse(text)
	if err != nil {
		return "", cleanTemplateError(err)
	}
	data := map[string]any{}
	options := map[string]string{}
	for k, v := range vars {
		data[k] = v
		options[k] = v
	}
	data["Options"] = options
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", cleanTemplateError(err)
	}
	return b.String(), nil
}

// cleanTemplateError drops text/template's "template: migration:1:2: "
// prefix, whose position is within the placeholder, not the file.
func cleanTemplateError(err error) error {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); strings.HasPrefix(msg, "template: ") && i >= 0 {
		msg = msg[i+2:]
	}
	return fmt.Errorf("%s", msg)
}

// standInFor is the text put in place of a placeholder that has no value:
// the placeholder's name as an identifier (or a literal for :'name'),
// lower case so that quoted and unquoted uses name the same object, and
// quoted where a bare keyword would not parse.
func standInFor(p placeholder, src string) string {
	name := standInName(p.name)
	switch {
	case p.kind == psqlLiteral:
		return "'" + name + "'"
	case p.kind == psqlIdent:
		return `"` + name + `"`
	case p.ctx != inCode:
		return name
	case p.start > 0 && IsIdentChar(src[p.start-1]), p.end < len(src) && IsIdentChar(src[p.end]):
		return name // part of a longer identifier: prefix_{{ .X }}
	case IsReservedWord(name):
		return `"` + name + `"`
	}
	return name
}

// standInName makes a name into a lower-case identifier.
func standInName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "_")
	if s == "" {
		return "placeholder"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "_" + s
	}
	return catalog.TruncateIdent(s)
}

func lineAt(src string, offset int) int { return strings.Count(src[:offset], "\n") + 1 }

// applyEdits applies sorted, disjoint edits and returns the new text with
// the mapping of each edit.
func applyEdits(src string, edits []edit) (string, []textEdit) {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	b.Grow(len(src))
	mapping := make([]textEdit, 0, len(edits))
	last := 0
	for _, e := range edits {
		if e.start < last {
			continue // inside an edit already made
		}
		b.WriteString(src[last:e.start])
		outStart := b.Len()
		b.WriteString(e.text)
		mapping = append(mapping, textEdit{outStart: outStart, outEnd: b.Len(), origStart: e.start, origEnd: e.end})
		last = e.end
	}
	b.WriteString(src[last:])
	return b.String(), mapping
}

// forward maps an offset of the original text to the filled text: an
// offset inside a placeholder maps to the start of what replaced it.
func forward(mapping []textEdit, offset int) int {
	i := sort.Search(len(mapping), func(i int) bool { return mapping[i].origEnd > offset })
	if i < len(mapping) && offset >= mapping[i].origStart {
		return mapping[i].outStart
	}
	if i == 0 {
		return offset
	}
	m := mapping[i-1]
	return offset - m.origEnd + m.outEnd
}

// back maps an offset of the filled text to the original: an offset inside
// a replacement maps to the placeholder's start.
func back(mapping []textEdit, offset int) int {
	i := sort.Search(len(mapping), func(i int) bool { return mapping[i].outStart > offset }) - 1
	if i < 0 {
		return offset
	}
	m := mapping[i]
	if offset < m.outEnd {
		return m.origStart
	}
	return offset - m.outEnd + m.origEnd
}
