package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/internal/humanize"
)

// Account is what a lint run did with every file under its paths that
// could be schema: replayed (in which tree, at which place), skipped with
// a reason, or not read. Every format carries it: the text report in one
// line (AccountLine), JSON and SARIF whole, GitHub and GitLab as a notice.
type Account struct {
	Paths []AccountPath
}

// AccountPath is the account of one path lint was given.
type AccountPath struct {
	Path  string
	Files []AccountFile
	// Partial is set when more of the path's schema files went unread
	// than were replayed (lint then fails unless --allow-partial).
	Partial bool
}

// FileStatus is what became of one file.
type FileStatus string

const (
	Replayed FileStatus = "replayed"
	Skipped  FileStatus = "skipped"
	Unread   FileStatus = "unread"
)

// AccountFile is one schema-like file and what became of it.
type AccountFile struct {
	Path   string
	Status FileStatus
	// Tree is the root of the tree a replayed file belongs to, Order its
	// place in that tree's replay (1 first).
	Tree  string
	Order int
	// Kind is a skipped file's reason in a word or two ("down", "other
	// dialect", "test fixture", "excluded", "not applied", "no DDL",
	// "definitions", "compared"); Reason says it in full, for an unread
	// file too.
	Kind   string
	Reason string
}

// AccountCounts are an account's tallies.
type AccountCounts struct {
	Replayed, Skipped, Unread, Trees int
	// ByKind counts the skipped files per Kind.
	ByKind map[string]int
}

// Counts tallies the account over every path.
func (a *Account) Counts() AccountCounts {
	c := AccountCounts{ByKind: map[string]int{}}
	trees := map[string]bool{}
	for _, p := range a.Paths {
		pc := p.Counts()
		c.Replayed += pc.Replayed
		c.Skipped += pc.Skipped
		c.Unread += pc.Unread
		for k, n := range pc.ByKind {
			c.ByKind[k] += n
		}
		for _, f := range p.Files {
			if f.Status == Replayed {
				trees[f.Tree] = true
			}
		}
	}
	c.Trees = len(trees)
	return c
}

// Counts tallies one path's files.
func (p AccountPath) Counts() AccountCounts {
	c := AccountCounts{ByKind: map[string]int{}}
	trees := map[string]bool{}
	for _, f := range p.Files {
		switch f.Status {
		case Replayed:
			c.Replayed++
			trees[f.Tree] = true
		case Skipped:
			c.Skipped++
			c.ByKind[f.Kind]++
		default:
			c.Unread++
		}
	}
	c.Trees = len(trees)
	return c
}

// AccountLine is the account in one line: "read 269 files in 1 tree;
// skipped 270 (269 down, 1 other dialect)", and "; not read 3" when files
// went unread.
func AccountLine(a *Account) string {
	c := a.Counts()
	var b strings.Builder
	fmt.Fprintf(&b, "read %s in %s", humanize.Count(c.Replayed, "file", "files"), humanize.Count(c.Trees, "tree", "trees"))
	if c.Skipped > 0 {
		kinds := make([]string, 0, len(c.ByKind))
		for k := range c.ByKind {
			kinds = append(kinds, k)
		}
		sort.Slice(kinds, func(i, j int) bool {
			if c.ByKind[kinds[i]] != c.ByKind[kinds[j]] {
				return c.ByKind[kinds[i]] > c.ByKind[kinds[j]]
			}
			return kinds[i] < kinds[j]
		})
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %s", humanize.Thousands(c.ByKind[k]), k)
		}
		fmt.Fprintf(&b, "; skipped %s (%s)", humanize.Thousands(c.Skipped), strings.Join(parts, ", "))
	}
	if c.Unread > 0 {
		fmt.Fprintf(&b, "; not read %s", humanize.Thousands(c.Unread))
	}
	return b.String()
}

// The account in the JSON document: the field "input_account".

type jsonAccount struct {
	Replayed int `json:"replayed"`
	Skipped  int `json:"skipped"`
	Unread   int `json:"unread"`
	Trees    int `json:"trees"`
	// SkippedByKind counts the skipped files per kind.
	SkippedByKind map[string]int    `json:"skipped_by_kind"`
	Paths         []jsonAccountPath `json:"paths"`
}

type jsonAccountPath struct {
	Path     string            `json:"path"`
	Replayed int               `json:"replayed"`
	Skipped  int               `json:"skipped"`
	Unread   int               `json:"unread"`
	Partial  bool              `json:"partial"`
	Files    []jsonAccountFile `json:"files"`
}

type jsonAccountFile struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Tree   string `json:"tree,omitempty"`
	Order  int    `json:"order,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func accountJSON(a *Account) *jsonAccount {
	if a == nil {
		return nil
	}
	c := a.Counts()
	byKind := c.ByKind
	if byKind == nil {
		byKind = map[string]int{}
	}
	out := &jsonAccount{Replayed: c.Replayed, Skipped: c.Skipped, Unread: c.Unread, Trees: c.Trees,
		SkippedByKind: byKind, Paths: []jsonAccountPath{}}
	for _, p := range a.Paths {
		pc := p.Counts()
		jp := jsonAccountPath{Path: p.Path, Replayed: pc.Replayed, Skipped: pc.Skipped, Unread: pc.Unread,
			Partial: p.Partial, Files: []jsonAccountFile{}}
		for _, f := range p.Files {
			jp.Files = append(jp.Files, jsonAccountFile{Path: f.Path, Status: string(f.Status), Tree: f.Tree,
				Order: f.Order, Kind: f.Kind, Reason: f.Reason})
		}
		out.Paths = append(out.Paths, jp)
	}
	return out
}

// The account in SARIF: run.artifacts, one per file, a replayed file with
// the role analysisTarget; every file's status in its properties; and the
// account line as a tool notification.

type sarifArtifact struct {
	Location   sarifArtifactLocation   `json:"location"`
	Roles      []string                `json:"roles,omitempty"`
	Properties sarifArtifactProperties `json:"properties"`
}

type sarifArtifactProperties struct {
	Status string `json:"idemcheck/status"`
	Tree   string `json:"idemcheck/tree,omitempty"`
	Order  int    `json:"idemcheck/order,omitempty"`
	Kind   string `json:"idemcheck/kind,omitempty"`
	Reason string `json:"idemcheck/reason,omitempty"`
}

func (s sarifWriter) accountArtifacts(a *Account) []sarifArtifact {
	if a == nil {
		return nil
	}
	var out []sarifArtifact
	for _, p := range a.Paths {
		for _, f := range p.Files {
			if f.Path == "<stdin>" {
				continue // no artifact to name
			}
			art := sarifArtifact{Location: s.artifact(f.Path), Properties: sarifArtifactProperties{
				Status: string(f.Status), Tree: f.Tree, Order: f.Order, Kind: f.Kind, Reason: f.Reason}}
			if f.Status == Replayed {
				art.Roles = []string{"analysisTarget"}
			}
			out = append(out, art)
		}
	}
	return out
}

// accountNotice is the account line for the CI formats, "" without one.
func accountNotice(a *Account) string {
	if a == nil {
		return ""
	}
	return "idemcheck input: " + AccountLine(a)
}

// accountIssues is the Code Quality entry for the input account: one info
// entry naming what was read, when some file went unread (a run that read
// everything adds nothing to the merge request).
func accountIssues(doc *Document) []gitlabIssue {
	if doc.Account == nil || doc.Account.Counts().Unread == 0 {
		return nil
	}
	path := "."
	for _, p := range doc.Account.Paths {
		if p.Counts().Unread > 0 {
			path = p.Path
			break
		}
	}
	sum := sha256.Sum256([]byte("idemcheck/input\x00" + path))
	return []gitlabIssue{{Description: accountNotice(doc.Account), CheckName: "idemcheck/input",
		Fingerprint: hex.EncodeToString(sum[:16]), Severity: "info",
		Location: gitlabLocation{Path: path, Lines: gitlabLines{Begin: 1}}}}
}
