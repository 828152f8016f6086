#!/usr/bin/env bash
# scripts/test-under-load.sh [RUNS]: runs `make test` RUNS times (default 3)
# in a row while two CPU-bound processes (loops of `sha256sum /dev/zero`)
# run beside it at normal priority, as a busy machine has them: the suite
# must be green on a 2-core machine that does other work. It prints each
# run's result and time, with the machine's CPU model, and fails on the
# first run that fails (its log: bin/test-under-load.<n>.log). The loops
# stop when it ends, whatever the outcome.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
mkdir -p bin

# Each loop runs in a process group of its own (setsid), and is stopped by
# its group: the loop and the sha256sum it runs at once. (Killing the loop's
# child, then the loop, left the next sha256sum the loop had started in the
# meantime running on after the check.)
burners=()
stop_burners() {
	for pid in "${burners[@]}"; do
		kill -- "-$pid" 2>/dev/null || true
	done
}
trap stop_burners EXIT
for _ in 1 2; do
	setsid sh -c 'while :; do sha256sum /dev/zero; done' >/dev/null 2>&1 &
	burners+=($!)
done

cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
echo "==> make test, $runs runs, beside two CPU-bound loops ($cpu, $(nproc) cores)"
for ((n = 1; n <= runs; n++)); do
	start=$SECONDS
	log=bin/test-under-load.$n.log
	if make test >"$log" 2>&1; then
		echo "==> run $n of $runs: passed in $((SECONDS - start)) s"
	else
		echo "==> run $n of $runs: FAILED after $((SECONDS - start)) s; the end of its log ($log):" >&2
		tail -n 40 "$log" >&2
		exit 1
	fi
done
echo "==> $runs runs of make test passed under load"
