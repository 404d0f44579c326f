package audit_test

import "github.com/idemcheck/idemcheck/audit"

// ofRule keeps the findings of one rule, for tests about that rule in a
// catalog where other rules rightly report too.
func ofRule(fs []audit.Finding, id string) []audit.Finding {
	var out []audit.Finding
	for _, f := range fs {
		if f.Rule == id {
			out = append(out, f)
		}
	}
	return out
}
