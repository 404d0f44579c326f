package cmd

import (
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/internal/testkit/golden"
	"github.com/idemcheck/idemcheck/report"
)

// TestRulesReferenceDoc fails when docs/rules-reference.md is not what the
// rule values generate; scripts/regen.sh rewrites it.
func TestRulesReferenceDoc(t *testing.T) {
	golden.Check(t, "../docs/rules-reference.md", []byte(report.RulesReference(audit.Rules)))
}
