#!/usr/bin/env bash
# Regenerates every file derived from the code, in place:
#   - the rule table of docs/rules.md and docs/rules-reference.md, from the
#     rule values in audit/ (cmd tests);
#   - the layout table of docs/layouts.md, from the layout registry
#     (sqlparse/layout);
#   - the output golden files of every format (report), of race's text and
#     JSON output (racetest), and idemtest's reviewed API (idemtest).
# After adding or editing a rule, a format or an API, run it and review the
# diff. CI runs it on a clean clone and fails when it changes the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 ./cmd -run '^(TestRulesPageTable|TestRulesReferenceDoc)$' -update
go test -count=1 ./sqlparse/layout -run '^TestLayoutsPageTable$' -update
go test -count=1 ./report -update
go test -count=1 ./racetest -run 'Golden$' -update
go test -count=1 ./idemtest -run '^TestAPIIsReviewed$' -update
