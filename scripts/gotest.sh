#!/usr/bin/env bash
# scripts/gotest.sh [go test flags] packages: runs `go test`, keeps its whole
# output in $TEST_LOG (bin/test.log by default), and when a test fails ends
# with a short summary of what failed: the failing tests and the lines of
# their own output that say why. CI shows the end of a run's output, and a
# failure should be readable there without the whole log.
#
# Shards. The provider's acceptance tests run one at a time against one
# sandbox (they change its faults and its inventory), and they wait on it
# far more than they compute: alone, they keep 2 cores less than half busy
# for about 14 minutes. With TF_ACC set, TEST_SHARDS=N (default 1) above 1
# and no -run of the caller's, the provider package's tests are split into
# N processes, each with a sandbox of its own, beside one process for the
# other packages. The tests are dealt to the shards by their weights
# (internal/provider/testdata/test-seconds.tsv: the seconds each took in
# one run; `make test-weights` rewrites it), longest first, each to the
# shard with the least so far. Each process's output is shown whole when it
# ends, the other packages' first.
set -uo pipefail

log=${TEST_LOG:-bin/test.log}
mkdir -p "$(dirname "$log")"
shards=${TEST_SHARDS:-1}
shard_pkg=./internal/provider/

# summary LOG STATUS: the short account of a failed run.
summary() {
	printf '\n==> go test failed (exit %s); the whole output is in %s\n' "$2" "$1"
	# What each failing test said (its t.Error/t.Fatal lines and Terraform's
	# "Error:" lines), then the failing tests and packages themselves.
	grep -E '^\s+[A-Za-z0-9_]+_test\.go:[0-9]+:|^\s*Error: |panic:|test timed out' "$1" | cut -c1-300 | head -n 30
	grep -E -- '^\s*--- FAIL: |^FAIL\s' "$1" | head -n 30
}

# The caller's flags and packages; a flag's value follows it.
flags=() pkgs=() has_run=0
while [ $# -gt 0 ]; do
	case $1 in
	-run | -run=*) has_run=1 ;;
	esac
	case $1 in
	./* | github.com/*) pkgs+=("$1") ;;
	-timeout | -run | -parallel | -tags | -coverprofile | -covermode | -coverpkg | -count | -p)
		flags+=("$1" "$2")
		shift
		;;
	*) flags+=("$1") ;;
	esac
	shift
done

sharded=0
if [ -n "${TF_ACC:-}" ] && [ "$shards" -gt 1 ] && [ $has_run = 0 ] && [ ${#pkgs[@]} -gt 0 ]; then
	all=$(go list "${pkgs[@]}") || exit 1
	provider=$(go list "$shard_pkg") || exit 1
	grep -qx "$provider" <<<"$all" && sharded=1
fi

if [ $sharded = 0 ]; then
	go test "${flags[@]}" "${pkgs[@]}" 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	[ "$status" -eq 0 ] && exit 0
	summary "$log" "$status" || true
	exit "$status"
fi

rm -f "$log".*
pids=() logs=() what=()
others=$(grep -vx "$provider" <<<"$all" | tr '\n' ' ')
# shellcheck disable=SC2086 # one word per package
go test "${flags[@]}" $others >"$log.others" 2>&1 &
pids+=($!) logs+=("$log.others") what+=("the other packages")

# The provider's tests, as the package lists them (built as the shards build
# it, so the build is shared; without TF_ACC, so no sandbox starts).
names=$(env -u TF_ACC go test "${flags[@]}" -list '.*' "$shard_pkg" | grep -E '^(Test|Example|Fuzz)') || {
	echo "gotest.sh: could not list the tests of $shard_pkg" >&2
	kill "${pids[@]}" 2>/dev/null
	exit 1
}
# Longest first, each to the shard with the least so far (by the seconds of
# $weights; a test not in it counts as 10 s): shards that end together.
weights=${shard_pkg}testdata/test-seconds.tsv
declare -a shard_re
i=0
while read -r shard name; do
	shard_re[shard]+="${shard_re[shard]:+|}$name"
	i=$((i + 1))
done < <(awk -v shards="$shards" -v weights="$weights" '
	BEGIN { while ((getline line < weights) > 0) if (line !~ /^#/) { split(line, f, "\t"); w[f[1]] = f[2] } }
	{ print ($1 in w ? w[$1] : 10) "\t" $1 }' <<<"$names" |
	sort -t "$(printf '\t')" -k1,1nr -k2,2 |
	awk -v shards="$shards" '{
		best = 0
		for (s = 1; s < shards; s++) if (load[s] < load[best]) best = s
		load[best] += $1
		print best, $2
	}')
echo "==> $i tests of $shard_pkg in $shards shards, each with a sandbox of its own, beside the other packages"

for ((s = 0; s < shards; s++)); do
	go test "${flags[@]}" -run "^(${shard_re[s]})\$" "$shard_pkg" >"$log.shard$((s + 1))" 2>&1 &
	pids+=($!) logs+=("$log.shard$((s + 1))") what+=("$shard_pkg, shard $((s + 1)) of $shards")
done

status=0
: >"$log"
for k in "${!pids[@]}"; do
	rc=0
	wait "${pids[k]}" || rc=$?
	{
		printf '==> %s%s\n' "${what[k]}" "$([ $rc = 0 ] || echo " (exit $rc)")"
		cat "${logs[k]}"
	} | tee -a "$log"
	rm -f "${logs[k]}"
	[ $rc = 0 ] || status=$rc
done
[ "$status" -eq 0 ] && exit 0
summary "$log" "$status" || true
exit "$status"
