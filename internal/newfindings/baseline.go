package newfindings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/idemcheck/idemcheck/audit"
)

// baselineFormat is the version of the baseline file's layout; a reader
// refuses a file of another version instead of guessing.
const baselineFormat = 1

// Baseline is a set of accepted findings, by fingerprint (audit.Finding's
// Fingerprint: rule, object and key parts, no positions), so that lint and
// inspect can each read a baseline the other wrote.
type Baseline struct {
	// Path is where it was read from, for messages.
	Path string `json:"-"`
	File baselineFile
}

// baselineFile is the file as written: the command that wrote it, the
// rules that ran, and one entry per accepted finding. The rule, object,
// columns and message are there for people reviewing the file; only the
// fingerprint is matched.
type baselineFile struct {
	Tool    string `json:"tool"`
	Format  int    `json:"format"`
	Command string `json:"written_by"`
	// Rules are the rules that ran when the baseline was written: a finding
	// of any other rule could not have been listed.
	Rules    []string        `json:"rules"`
	Findings []baselineEntry `json:"findings"`
}

type baselineEntry struct {
	Fingerprint string   `json:"fingerprint"`
	Rule        string   `json:"rule"`
	Object      string   `json:"object,omitempty"`
	Columns     []string `json:"columns,omitempty"`
	Message     string   `json:"message"`
}

// WriteBaseline writes the findings that are not suppressed to path, sorted
// so that the file changes only when the findings do. command is "lint" or
// "inspect"; ran are the ids of the rules that ran.
func WriteBaseline(path, command string, ran []string, findings []audit.Finding) (int, error) {
	f := baselineFile{Tool: "idemcheck", Format: baselineFormat, Command: command,
		Rules: append([]string{}, ran...), Findings: []baselineEntry{}}
	sort.Strings(f.Rules)
	for _, fd := range findings {
		if fd.Suppressed != nil {
			continue
		}
		f.Findings = append(f.Findings, baselineEntry{Fingerprint: fd.Fingerprint(), Rule: fd.Rule,
			Object: fd.Object, Columns: fd.Columns, Message: fd.Message})
	}
	sort.SliceStable(f.Findings, func(i, j int) bool {
		a, b := f.Findings[i], f.Findings[j]
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Object != b.Object {
			return a.Object < b.Object
		}
		return a.Fingerprint < b.Fingerprint
	})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return 0, err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return 0, fmt.Errorf("--write-baseline: %v", err)
	}
	return len(f.Findings), nil
}

// ReadBaseline reads a baseline file written by WriteBaseline.
func ReadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("--baseline %s: no such file (write one with --write-baseline %s)", path, path)
		}
		return nil, fmt.Errorf("--baseline %s: %v", path, err)
	}
	b := &Baseline{Path: path}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b.File); err != nil {
		return nil, fmt.Errorf("--baseline %s: not a baseline written by idemcheck --write-baseline: %v", path, err)
	}
	if b.File.Tool != "idemcheck" || b.File.Format != baselineFormat {
		return nil, fmt.Errorf("--baseline %s: tool %q format %d, want idemcheck format %d (write it again with --write-baseline)",
			path, b.File.Tool, b.File.Format, baselineFormat)
	}
	for i, e := range b.File.Findings {
		if e.Fingerprint == "" || e.Rule == "" {
			return nil, fmt.Errorf("--baseline %s: finding %d has no fingerprint or rule", path, i+1)
		}
	}
	return b, nil
}

// couldRun reports whether the baseline's writer could have run rule id:
// inspect reads a live database and cannot run the rules that need
// migration history. A rule lint could run but was not asked to is not
// such a case: its findings are new.
func (b *Baseline) couldRun(id string) bool {
	r := audit.Lookup(id)
	return r == nil || !(b.File.Command == "inspect" && r.Needs == audit.Migrations)
}
