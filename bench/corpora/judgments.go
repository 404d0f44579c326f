package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A judgment is one hand-made verdict, one row of
// docs/corpora/judgments/<corpus>.tsv:
//
//	rule  object  parts  where  verdict  reason
//
// A row whose rule is "index" judges a unique index with a nullable key
// part (the recall denominator): parts are all its key parts, and the
// verdict is hole, present (unique when present, by docs/rules.md), safe (no
// hole: a predicate, CHECK or other index proves it) or debatable. Any
// other rule judges that rule's findings on the object: parts are the
// finding's columns, where (optional, "-" for any) the file of the finding
// relative to the tree, and the verdict true, false, debatable, or info
// (right at info, a false alarm at warning or error). "?" marks a row
// written by -append-unjudged and not yet judged.
//
// Findings of nullable-key and optional-unique take their verdict from the
// index row when no row of their own names them, so a finding that moves
// between the two rules keeps its judgment.
type judgment struct {
	Rule, Object, Parts, Where, Verdict, Reason string
	Pos                                         string // file:line, for messages
	used                                        bool
	// historical is set for rows under the file's "# historical" line:
	// verdicts on findings that went away (false alarms a change fixed).
	// They still judge a finding that comes back, which is then reported as
	// reappeared; matching nothing is what they are expected to do.
	historical bool
}

// historicalMarker is the comment line after which a judgment file keeps
// its historical rows.
const historicalMarker = "# historical"

const indexRule = "index"

var (
	indexVerdicts   = map[string]bool{"hole": true, "present": true, "safe": true, "debatable": true, "?": true}
	findingVerdicts = map[string]bool{"true": true, "false": true, "debatable": true, "info": true, "?": true}
)

// judgmentFile is the judgments of one corpus.
type judgmentFile struct {
	Path string
	Rows []*judgment
}

func judgmentPath(dir, corpusName string) string {
	return filepath.Join(dir, corpusName+".tsv")
}

// readJudgments reads a corpus's file; a missing file is an empty one.
func readJudgments(path string) (*judgmentFile, error) {
	jf := &judgmentFile{Path: path}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return jf, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	seen := map[string]string{}
	historical := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(text)), historicalMarker) {
			historical = true
			continue
		}
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 6 {
			return nil, fmt.Errorf("%s:%d: want 6 tab-separated fields (rule, object, parts, where, verdict, reason), got %d", path, line, len(fields))
		}
		j := &judgment{Rule: fields[0], Object: fields[1], Parts: fields[2], Where: fields[3], Verdict: fields[4], Reason: fields[5],
			Pos: fmt.Sprintf("%s:%d", path, line), historical: historical}
		if j.Where == "-" {
			j.Where = ""
		}
		valid := findingVerdicts
		if j.Rule == indexRule {
			valid = indexVerdicts
		}
		if !valid[j.Verdict] {
			return nil, fmt.Errorf("%s:%d: verdict %q is not one of %s", path, line, j.Verdict, verdictList(j.Rule))
		}
		if j.Verdict != "?" && strings.TrimSpace(j.Reason) == "" {
			return nil, fmt.Errorf("%s:%d: a verdict needs a one-line reason", path, line)
		}
		key := j.key()
		if prev, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s:%d: judges the same thing as line %s", path, line, prev)
		}
		seen[key] = fmt.Sprint(line)
		jf.Rows = append(jf.Rows, j)
	}
	return jf, sc.Err()
}

func verdictList(rule string) string {
	if rule == indexRule {
		return "hole, present, safe, debatable, ?"
	}
	return "true, false, debatable, info, ?"
}

func (j *judgment) key() string {
	return strings.Join([]string{j.Rule, j.Object, j.Parts, j.Where}, "\t")
}

// index finds the judgment of a unique index; the parts must match, so a
// changed key asks for a new judgment.
func (jf *judgmentFile) index(u uniqueIndex) *judgment {
	for _, j := range jf.Rows {
		if j.Rule == indexRule && j.Object == u.Object && j.Parts == u.key() {
			j.used = true
			return j
		}
	}
	return nil
}

// finding finds the row that judges f itself: one naming its file first,
// then one for any file.
func (jf *judgmentFile) finding(f finding, where string) *judgment {
	parts := strings.Join(f.Columns, ", ")
	var fallback *judgment
	for _, j := range jf.Rows {
		if j.Rule != f.Rule || j.Object != f.Object || j.Parts != parts {
			continue
		}
		if j.Where == where {
			j.used = true
			return j
		}
		if j.Where == "" && fallback == nil {
			fallback = j
		}
	}
	if fallback != nil {
		fallback.used = true
	}
	return fallback
}

// indexByObject finds an index row by object alone: how a nullable-key or
// optional-unique finding reaches the verdict on its index.
func (jf *judgmentFile) indexByObject(object string) *judgment {
	for _, j := range jf.Rows {
		if j.Rule == indexRule && j.Object == object {
			j.used = true
			return j
		}
	}
	return nil
}

// unused lists the rows that judged nothing in this run: findings no
// longer reported, indexes no longer in the catalog or with another key.
// Historical rows are expected to match nothing and are left out.
func (jf *judgmentFile) unused() []*judgment {
	var out []*judgment
	for _, j := range jf.Rows {
		if !j.used && !j.historical {
			out = append(out, j)
		}
	}
	return out
}

// reappeared lists the historical rows that judged something in this run:
// a finding that had gone away is back.
func (jf *judgmentFile) reappeared() []*judgment {
	var out []*judgment
	for _, j := range jf.Rows {
		if j.used && j.historical {
			out = append(out, j)
		}
	}
	return out
}

// historicalCount is how many historical rows the file keeps.
func (jf *judgmentFile) historicalCount() int {
	n := 0
	for _, j := range jf.Rows {
		if j.historical {
			n++
		}
	}
	return n
}

// appendUnjudged writes "?" rows for what has no judgment yet, so the judge
// fills in verdicts instead of typing keys.
func (jf *judgmentFile) appendUnjudged(rows []*judgment) error {
	if len(rows) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(jf.Path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(jf.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, j := range rows {
		if j.Pos != "" {
			continue // already in the file, as "?"
		}
		where := j.Where
		if where == "" {
			where = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t?\t%s\n", j.Rule, j.Object, j.Parts, where, oneLine(j.Reason))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// oneLine keeps a message to one TSV-safe line.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.ReplaceAll(s, "\t", " ")
}
