#!/usr/bin/env bash
# scripts/cold-start.sh [--ci-only | --no-ci] [WORK_DIR]: what a newcomer's first run
# costs, measured. It clones this repository's HEAD (what is committed) into
# WORK_DIR (default: a new directory under /tmp), with ../shared beside it
# as CI has it, points Go at an empty build cache and an empty module cache
# inside WORK_DIR (GOCACHE, GOMODCACHE: every module comes from the Go module
# proxy, every package is compiled), and times, one after the other:
#
#   make demo        the README's first command, cold;
#   make test        the README's test command, after it;
#   bash .ci/run     all of CI (CI=true), after both.
#
# With --no-ci, only the first two (a newcomer's first demo and tests).
# With --ci-only, only `bash .ci/run`, cold: CI on a fresh machine. Its
# first steps are a newcomer's `make demo` then `make test`, so its table
# gives their cold times too (with CI's own work beside them, at the lowest
# priority).
# It prints a table of the times (and writes it to WORK_DIR/cold-start.txt),
# and each command's output goes to WORK_DIR/<step>.log. It fails when a
# step fails, after printing the table. Debian packages that a step installs
# (etcd-server, shellcheck) are not removed first: on a machine that has
# them, their install is not in the figures.
set -euo pipefail
ci_only=0 no_ci=0
case ${1:-} in
--ci-only) ci_only=1; shift ;;
--no-ci) no_ci=1; shift ;;
esac
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/cold-start.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
[ -d "$repo/../shared" ] || { echo "$0: no ../shared beside $repo (CI has it there)" >&2; exit 1; }

echo "==> cold start in $work (clone of $(git -C "$repo" rev-parse --short HEAD); empty GOCACHE and GOMODCACHE)"
# The module cache is read-only, as Go writes it.
[ -d "$work/gomodcache" ] && chmod -R u+w "$work/gomodcache"
rm -rf "$work/main" "$work/gocache" "$work/gomodcache"
git clone -q "$repo" "$work/main"
ln -sfn "$(cd "$repo/../shared" && pwd)" "$work/shared"
mkdir -p "$work/gocache" "$work/gomodcache"
export GOCACHE="$work/gocache" GOMODCACHE="$work/gomodcache"
export GOFLAGS="${GOFLAGS:-}"
cd "$work/main"

rows=()
failed=""
table() {
	{
		printf '\n==> cold start (%s; %s, %s cores; %s)\n' "$(git rev-parse --short HEAD)" \
			"$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)" "$(nproc)" "$(go version | awk '{print $3}')"
		printf '%-14s %8s  %s\n' step seconds minutes
		printf '%s\n' "${rows[@]}"
	} | tee "$work/cold-start.txt"
}
run() {
	local name=$1
	shift
	local start=$SECONDS rc=0
	echo "==> $name ($(date -u +%H:%M:%S)); output in $work/$name.log"
	"$@" >"$work/$name.log" 2>&1 || rc=$?
	local took=$((SECONDS - start))
	rows+=("$(printf '%-14s %8d  %dm%02ds%s' "$name" "$took" $((took / 60)) $((took % 60)) "$([ $rc = 0 ] || echo "  FAILED (exit $rc)")")")
	if [ $rc != 0 ]; then
		failed=$name
		tail -n 40 "$work/$name.log" >&2
	fi
	return $rc
}
trap 'table' EXIT

if [ $ci_only = 1 ]; then
	run ci-cold env CI=true bash .ci/run
else
	run make-demo make demo
	run make-test make test
	[ $no_ci = 1 ] || run ci-after env CI=true bash .ci/run
fi
[ -z "$failed" ]
