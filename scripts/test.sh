#!/usr/bin/env bash
# The test command: every package under the race detector, printed as go
# test prints it, then how many tests passed and which skipped, and why
# (scripts/testsummary). Extra arguments go to go test (-run, -count=1).
# The timeout is go test's per-package limit, raised from 10 minutes for
# slow runners.
set -o pipefail
cd "$(dirname "$0")/.."
go test -race -timeout 30m -json "$@" ./... | go run ./scripts/testsummary
