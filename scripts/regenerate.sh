#!/usr/bin/env bash
# Rewrites every generated file from what the code produces: the output
# golden files (report, race report), the README's rule table and the Go
# test library's API listing. Each comes from a test that compares it and,
# under -update (internal/golden), rewrites it instead. Review `git diff`
# afterwards; the tests fail on any of these files until it matches.
#
#   scripts/regenerate.sh
set -euo pipefail
cd "$(dirname "$0")/.."

go test ./report ./racetest ./cmd ./idemtest \
  -run '^(Test.*Golden|TestReadmeRuleTable|TestAPIIsReviewed)$' -update
git status --short -- report/testdata testdata/race README.md idemtest/testdata
