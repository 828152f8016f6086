#!/usr/bin/env bash
# Runs `go test` with the given arguments, keeps its whole output in
# $TEST_LOG (bin/test.log by default), and when a test fails ends with a
# short summary of what failed: the failing tests and the lines of their own
# output that say why. CI shows the end of a run's output, and a failure
# should be readable there without the whole log.
set -uo pipefail

log=${TEST_LOG:-bin/test.log}
mkdir -p "$(dirname "$log")"

go test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] && exit 0

{
	printf '\n==> go test failed (exit %s); the whole output is in %s\n' "$status" "$log"
	# What each failing test said (its t.Error/t.Fatal lines and Terraform's
	# "Error:" lines), then the failing tests and packages themselves.
	grep -E '^\s+[A-Za-z0-9_]+_test\.go:[0-9]+:|^\s*Error: |panic:|test timed out' "$log" | cut -c1-300 | head -n 30
	grep -E -- '^\s*--- FAIL: |^FAIL\s' "$log" | head -n 30
} || true
exit "$status"
