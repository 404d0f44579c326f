package idemtest_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/golden"
)

// TestAPIIsReviewed guards the public contract: the documentation and
// declarations of idemtest and idemtest/idemsql, as go doc -all prints
// them, must equal testdata/api.golden. A change to the API or its docs
// fails here until the golden is rewritten (go test ./idemtest -run
// TestAPIIsReviewed -update) and the diff is reviewed with the change.
func TestAPIIsReviewed(t *testing.T) {
	var got strings.Builder
	for _, pkg := range []string{module + "/idemtest", module + "/idemtest/idemsql"} {
		out, err := goCommand(t, nil, "doc", "-all", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go doc -all %s: %v\n%s", pkg, err, out)
		}
		got.WriteString("=== go doc -all " + pkg + "\n")
		got.Write(out)
		got.WriteString("\n")
	}
	golden.Check(t, filepath.Join("testdata", "api.golden"), []byte(got.String()))
}
