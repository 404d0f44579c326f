package report

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
)

// Format is one output format: its name on the command line, what it is for,
// and the function that writes a document in it. Each format's file
// registers its Format in an init function, so that adding a format is one
// new file (and its golden output); the commands take the list of names,
// the help text and the shell completion from here.
type Format struct {
	// Name is the --format value.
	Name string
	// Purpose says in a few words what the format is for, in help text
	// ("code scanning"); empty when the name says it.
	Purpose string
	// Rank places the format in lists: help text, error messages and
	// completion show the formats by rank, lowest first. The default format
	// ranks first.
	Rank int
	// Write writes doc in this format.
	Write func(w io.Writer, doc *Document, opts Options) error
}

// Options are what a format needs beside the document. Every format gets the
// same Options and reads the fields it uses.
type Options struct {
	// Color turns on ANSI colours (text).
	Color bool
	// Verbose shows note diagnostics and every fix in full, not only the
	// first (text).
	Verbose bool
	// Width is where prose wraps (text): the terminal's width when stdout
	// is one, 0 for DefaultWidth otherwise.
	Width int
	// Paths say where the document's file paths are relative to (sarif,
	// gitlab), for formats that name files from the repository root.
	Paths Paths
	// Rules are the rules described in the tool metadata (sarif); nil means
	// every registered rule.
	Rules []*audit.Rule
	// StepSummary is the file GitHub Actions shows as the job's summary
	// ($GITHUB_STEP_SUMMARY): the github format appends a findings table
	// to it. Empty writes none.
	StepSummary string
}

// Paths say how a document's file paths relate to the repository they are
// in. The zero value leaves relative paths as they are.
type Paths struct {
	// Prefix is the working directory relative to the repository root
	// ("" at the root, "services/api" below it, slash-separated). Relative
	// paths in the document are joined to it, so that code scanning finds
	// the files whatever directory idemcheck ran in.
	Prefix string
	// Root is the repository root as an absolute slash path; absolute paths
	// below it are made relative to it.
	Root string
	// RootURI is the repository root as an absolute file URI ending in "/"
	// (file:///home/ci/repo/); empty leaves SRCROOT for the consumer to
	// resolve, which is what GitHub code scanning expects (sarif).
	RootURI string
}

// fromRoot is file relative to the repository root, slash-separated, and
// whether it is in the repository at all: an absolute path outside the root
// is returned as it is, with inRepo false.
func (p Paths) fromRoot(file string) (rel string, inRepo bool) {
	f := strings.ReplaceAll(file, "\\", "/")
	if !path.IsAbs(f) {
		return path.Join(strings.Trim(p.Prefix, "/"), f), true
	}
	if root := strings.TrimSuffix(p.Root, "/"); root != "" && strings.HasPrefix(f, root+"/") {
		return strings.TrimPrefix(f, root+"/"), true
	}
	return f, false
}

// formats holds every registered format by name.
var formats = map[string]*Format{}

// register adds a format; each format's file calls it from init. A second
// format with the same name is a programming error.
func register(f *Format) {
	if f.Name == "" || f.Write == nil {
		panic("report: a format needs a name and a writer")
	}
	if _, dup := formats[f.Name]; dup {
		panic("report: format " + f.Name + " registered twice")
	}
	formats[f.Name] = f
}

// Formats lists the registered formats by rank.
func Formats() []*Format {
	out := make([]*Format, 0, len(formats))
	for _, f := range formats {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Rank != out[j].Rank {
			return out[i].Rank < out[j].Rank
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// FormatNames are the names of the registered formats, by rank.
func FormatNames() []string {
	fs := Formats()
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return names
}

// LookupFormat returns the format called name, or nil.
func LookupFormat(name string) *Format { return formats[name] }

// FormatHelp describes the formats for a flag's help text: "text, json,
// sarif (code scanning) or gitlab (Code Quality)".
func FormatHelp() string {
	fs := Formats()
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Name
		if f.Purpose != "" {
			parts[i] += " (" + f.Purpose + ")"
		}
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// Write writes doc in the format called name. A name no format registered
// is an error, never a fallback to another format.
func Write(w io.Writer, doc *Document, name string, opts Options) error {
	f := LookupFormat(name)
	if f == nil {
		return fmt.Errorf("unknown format %q (want %s)", name, strings.Join(FormatNames(), " or "))
	}
	return f.Write(w, doc, opts)
}
