#!/usr/bin/env bash
# Runs the provider's acceptance tests with GKE_ACC_TARGET=external against
# a sandbox this script starts separately (bin/gke-sandbox, default
# inventory), as CI does: the tests reach it only through the provider's
# usual environment (from sandbox.env, which the sandbox writes beside
# sandbox.json once ready), like any external target. The sandbox is
# stopped on exit, whatever happens. At the end it prints how many tests
# passed, failed and were skipped (each skip with its reason), and the
# times.
#
#   scripts/testacc-external.sh                      all the provider's tests
#   TESTARGS='-run TestAccTPUSlice' scripts/testacc-external.sh
#
# INVENTORY=file.yaml starts the sandbox with that inventory instead of its
# default one: then give the test variables that name its reservation
# (GKE_ACC_RESERVATION, GKE_ACC_RESERVATION_BLOCK, GKE_ACC_SUB_BLOCKS,
# GKE_ACC_ZONE), as for a real one, and the tests that rely on the default
# inventory are skipped. SANDBOX_DIR (default .cache/sandbox-external) is
# the sandbox's directory (its log is SANDBOX_DIR.log); SANDBOX_WAIT
# (default 180) bounds its start in seconds; TEST_LOG (default
# bin/testacc-external.log) keeps the whole output of go test.
set -euo pipefail

# The whole script is one function, read before it runs: bash reads a
# script as it goes, so an edit during a run would otherwise change it.
main() {
	cd "$(dirname "$0")/.."

	dir=${SANDBOX_DIR:-.cache/sandbox-external}
	wait_s=${SANDBOX_WAIT:-180}
	log=${TEST_LOG:-bin/testacc-external.log}
	mkdir -p bin "$(dirname "$log")" "$(dirname "$dir")"

	make -s sandbox-bin
	go build -o bin/gke-sandbox ./cmd/gke-sandbox

	started=$(date +%s)
	sandbox_out=$(mktemp)
	bin/gke-sandbox -quiet -dir "$dir" -inventory "${INVENTORY:-default}" >"$sandbox_out" 2>"$dir.log" &
	sandbox_pid=$!
	# shellcheck disable=SC2317 # called by the EXIT trap
	stop_sandbox() {
		if kill -0 "$sandbox_pid" 2>/dev/null; then
			kill -TERM "$sandbox_pid" 2>/dev/null || true
			# The sandbox stops every process it started; wait for it, bounded.
			for _ in $(seq 1 60); do kill -0 "$sandbox_pid" 2>/dev/null || break; sleep 0.5; done
			kill -KILL "$sandbox_pid" 2>/dev/null || true
		fi
		rm -f "$sandbox_out"
	}
	trap stop_sandbox EXIT
	trap 'exit 130' INT TERM

	# -quiet prints the path of sandbox.json once the sandbox is ready.
	info=
	for _ in $(seq 1 $((wait_s * 2))); do
		info=$(head -n 1 "$sandbox_out")
		[ -n "$info" ] && break
		if ! kill -0 "$sandbox_pid" 2>/dev/null; then
			echo "testacc-external: the sandbox exited before it was ready; its output:" >&2
			tail -n 30 "$dir.log" >&2
			exit 1
		fi
		sleep 0.5
	done
	if [ -z "$info" ] || [ ! -f "$info" ]; then
		echo "testacc-external: the sandbox was not ready within ${wait_s}s (SANDBOX_WAIT); its output:" >&2
		tail -n 30 "$dir.log" >&2
		exit 1
	fi
	sandbox_ready=$(($(date +%s) - started))

	# The provider's usual environment (GOOGLE_PROJECT, GOOGLE_REGION,
	# GOOGLE_CLUSTER, GOOGLE_OAUTH_ACCESS_TOKEN and the two custom endpoints),
	# which the sandbox writes beside sandbox.json.
	# shellcheck disable=SC1091
	source "$(dirname "$info")/sandbox.env"
	export GKE_ACC_TARGET=external
	# The sandbox's default inventory: its reservation, block and free
	# sub-blocks are the test variables' defaults, and the tests that rely on
	# its other blocks run too.
	if [ -z "${INVENTORY:-}" ] || [ "$INVENTORY" = default ]; then
		export GKE_ACC_INVENTORY=sandbox-default
	fi
	echo "testacc-external: sandbox ready in ${sandbox_ready}s ($info); running the acceptance tests against it"

	tests_started=$(date +%s)
	status=0
	make -s testacc >"$log.make" 2>&1 || status=$?
	tests_took=$(($(date +%s) - tests_started))
	# make testacc runs go test -v: its lines give the counts.
	mv "$log.make" "$log"
	count() { grep -cE "$1" "$log" || true; }
	passed=$(count '^--- PASS: ')
	failed=$(count '^--- FAIL: ')
	skipped=$(count '^--- SKIP: ')
	acc_ran=$(count '^--- (PASS|FAIL): TestAcc[A-Z_]')
	acc_skipped=$(count '^--- SKIP: TestAcc[A-Z_]')

	# The failures, and each skipped test with its reason.
	grep -E -- '^--- FAIL: |^(ok|FAIL)\s' "$log" | cut -c1-400 || true
	awk '/^=== RUN   / { name = $3; why = "" }
		/^    [^ ]+_test\.go:[0-9]+: (needs|relies on) / { why = $0; sub(/^ +[^ ]+: /, "", why) }
		/^--- SKIP: / { printf "  skipped %s: %s\n", $3, why }' "$log" | cut -c1-300
	printf '\ntestacc-external: %d tests passed, %d failed, %d skipped; acceptance tests (TestAcc*): %d ran, %d skipped\n' \
		"$passed" "$failed" "$skipped" "$acc_ran" "$acc_skipped"
	printf 'testacc-external: sandbox start %ss, tests %ss, total %ss; whole output in %s\n' \
		"$sandbox_ready" "$tests_took" "$(($(date +%s) - started))" "$log"
	exit "$status"
}

main "$@"
# shellcheck disable=SC2317 # main exits; this ends the script if it did not
exit
