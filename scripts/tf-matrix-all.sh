#!/usr/bin/env bash
# scripts/tf-matrix-all.sh BINARY...: the test matrix's subset
# (scripts/tf-matrix-test.sh) with each binary, side by side, then each
# one's output in the order given and a line per binary; fails when any
# failed, after all have run. `make tf-matrix-test` runs it with bin/tf/*.
#   TF_MATRIX_JOBS=1   one after the other (default: all at once; each run
#                      has a sandbox, a demo directory and a log of its own,
#                      and spends most of its time waiting on the sandbox)
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -ge 1 ] || { echo "usage: $0 BINARY... (make tf-matrix builds bin/tf/)" >&2; exit 2; }
jobs=${TF_MATRIX_JOBS:-$#}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "TF_MATRIX_JOBS=$jobs: want a number of runs at once, 1 or more" >&2; exit 2; }
make --no-print-directory sandbox-bin >/dev/null

declare -A pid=() started=() took=() result=()
run() {
  local b=$1 name
  name=$(basename "$b")
  DEMO_DIR=.cache/demo-$name bash scripts/tf-matrix-test.sh "$b" > "bin/tf-matrix-$name.out" 2>&1 &
  pid[$b]=$!
  started[$b]=$SECONDS
  echo "==> $name: started (output: bin/tf-matrix-$name.out)"
}
finish() {
  local b=$1
  if wait "${pid[$b]}"; then result[$b]=passed; else result[$b]=FAILED; fi
  took[$b]=$((SECONDS - started[$b]))
  echo "==> $(basename "$b"): ${result[$b]} in ${took[$b]}s"
}

start=$SECONDS
running=()
for b in "$@"; do
  if [ ${#running[@]} -ge "$jobs" ]; then
    finish "${running[0]}"
    running=("${running[@]:1}")
  fi
  run "$b"
  running+=("$b")
done
for b in "${running[@]}"; do finish "$b"; done

failed=()
for b in "$@"; do
  printf '\n==> output of the matrix run with %s\n' "$b"
  cat "bin/tf-matrix-$(basename "$b").out"
  [ "${result[$b]}" = passed ] || failed+=("$b")
done
printf '\n==> the Terraform/OpenTofu matrix (%d at once, %ds in all)\n' "$jobs" $((SECONDS - start))
for b in "$@"; do printf '%-28s %s in %ds\n' "$b" "${result[$b]}" "${took[$b]}"; done
[ ${#failed[@]} = 0 ] || { echo "==> failed with: ${failed[*]} (each one's whole test log: bin/tf-matrix-<binary>.log)" >&2; exit 1; }
