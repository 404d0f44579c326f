package cmd

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/idemcheck/idemcheck/sqlparse"
)

// version and commit are set at build time by releases (.goreleaser.yaml)
// and the Dockerfile, which build from a tree without git metadata:
//
//	go build -ldflags "-X github.com/idemcheck/idemcheck/cmd.version=v1.2.3 -X github.com/idemcheck/idemcheck/cmd.commit=$(git rev-parse HEAD)"
//
// When they are empty, the build info stands in: go install module@version
// records the module's version, and go build or go install in a git clone
// records the commit (vcs.revision). Otherwise the version is "devel" and
// the commit "unknown".
var version, commit string

func init() { register(newVersionCmd) }

func newVersionCmd(s *Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, parser and PostgreSQL grammar version",
		Example: `  idemcheck version
  idemcheck --version`,
		Args: noArgs(""),
		RunE: func(c *cobra.Command, args []string) error {
			return writeVersion(s.Out, readVersionInfo())
		},
	}
}

// versionInfo is what `idemcheck version` reports.
type versionInfo struct {
	Version  string
	Commit   string
	Modified bool
	PGQuery  string
	Grammar  string
	Go       string
}

func readVersionInfo() versionInfo {
	v := versionInfo{Version: toolVersion(), Commit: "unknown", PGQuery: sqlparse.ParserVersion(), Grammar: grammarVersion()}
	if commit != "" {
		v.Commit = commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Go = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	if commit != "" {
		// A stamped commit is the one the release was built from; the tree
		// it was built in may have had no git metadata at all.
		v.Commit, v.Modified = commit, false
	}
	return v
}

// toolVersion is the version reports and `version` print.
func toolVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func writeVersion(w io.Writer, v versionInfo) error {
	commit := v.Commit
	if v.Modified {
		commit += " (modified)"
	}
	_, err := fmt.Fprintf(w, "idemcheck %s\ncommit:             %s\npg_query_go:        %s\nPostgreSQL grammar: %s\n",
		v.Version, commit, v.PGQuery, v.Grammar)
	if err == nil && v.Go != "" {
		_, err = fmt.Fprintf(w, "go:                 %s\n", v.Go)
	}
	return err
}

// grammarVersion is the PostgreSQL version whose grammar the parser uses.
func grammarVersion() string { return fmt.Sprint(sqlparse.GrammarVersion) }
