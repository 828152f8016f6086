#!/usr/bin/env bash
# Measure how often a small stack (a workload policy, 2 node pools, one
# 4x4x8 slice: the slice-stack module) applies and destroys on the local
# sandbox while both Google APIs answer a share of all requests 429 and a
# share 503 (issue 40, item 3).
#   scripts/flaky-apis.sh RATE429 RATE503 RUNS     e.g. scripts/flaky-apis.sh 0.3 0.3 10
#   FLAKY_DIR=DIR   work in DIR (default .cache/flaky-apis; recreated)
# It prints one line per apply and destroy (ok or FAILED, seconds, the
# retries the provider made and the most attempts one request took, from its
# DEBUG log, and its "still failing after" line when there is one), then
# the counts.
# The faults are off during the check between runs that nothing is left.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# = 3 ] || { sed -n 2,9p "$0" >&2; exit 2; }
R429=$1 R503=$2 RUNS=$3
ROOT=$PWD
W=$(realpath -m "${FLAKY_DIR:-$ROOT/.cache/flaky-apis}")
case $W in / | "$ROOT" | "$HOME") echo "FLAKY_DIR=$W: give a directory of its own" >&2; exit 2 ;; esac
VERSION=0.0.1
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

rm -rf "$W" && mkdir -p "$W/bin" "$W/stack"
go build -o "$W/bin/terraform-provider-gke" .
go build -o "$W/bin/gke-sandbox" ./cmd/gke-sandbox
dir=$W/mirror/registry.terraform.io/dynslice/gke/$VERSION/$(go env GOOS)_$(go env GOARCH)
mkdir -p "$dir" && cp "$W/bin/terraform-provider-gke" "$dir/terraform-provider-gke_v$VERSION"
cat > "$W/cli.tfrc" <<RC
provider_installation {
  filesystem_mirror {
    path    = "$W/mirror"
    include = ["registry.terraform.io/dynslice/gke"]
  }
  direct {
    exclude = ["registry.terraform.io/dynslice/gke"]
  }
}
RC
export TF_CLI_CONFIG_FILE=$W/cli.tfrc

"$W/bin/gke-sandbox" -quiet -dir "$W/sandbox" > "$W/sandbox.ready" 2> "$W/sandbox.log" &
SANDBOX=$!
trap 'kill -INT $SANDBOX 2>/dev/null && wait $SANDBOX || true' EXIT
for _ in $(seq 1 900); do
  [ -s "$W/sandbox.ready" ] && break
  kill -0 "$SANDBOX" 2>/dev/null || { tail -n 20 "$W/sandbox.log" >&2; exit 1; }
  sleep 0.2
done
[ -s "$W/sandbox.ready" ] || { echo "the sandbox did not start" >&2; exit 1; }
# shellcheck disable=SC1091
source "$W/sandbox/sandbox.env"
CONTROL=$GOOGLE_COMPUTE_CUSTOM_ENDPOINT TOKEN=$GOOGLE_OAUTH_ACCESS_TOKEN
faults() {
  curl -sf -X PUT -H "Authorization: Bearer $TOKEN" -d "$1" "${CONTROL%/}/sandbox/faults" >/dev/null
}

cp -r examples/modules "$W/modules"
cat > "$W/stack/main.tf" <<'TF'
terraform {
  required_providers {
    gke = { source = "dynslice/gke" }
  }
}
provider "gke" {}
module "stack" {
  source            = "../modules/slice-stack"
  name              = "flaky"
  zone              = "us-central1-a"
  reservation       = "tpu7x-reservation"
  reservation_block = "block-a"
  sub_block_count   = 2
  slices            = { "flaky-slice" = { topology = "4x4x8" } }
}
TF
tf() { terraform -chdir="$W/stack" "$@"; }
tf init -input=false -no-color > "$W/init.log"

on="{\"compute\":{\"rate429\":$R429,\"rate503\":$R503},\"container\":{\"rate429\":$R429,\"rate503\":$R503}}"
applies=0 destroys=0
# step NAME ARGS...: run terraform with the faults on; print and count.
step() {
  local name=$1 log=$W/run-$run-$1.log started ok=0
  shift
  faults "$on"
  started=$(date +%s.%N)
  if TF_LOG_PROVIDER=DEBUG TF_LOG_PATH=$log.debug tf "$@" -input=false -no-color -auto-approve > "$log" 2>&1; then ok=1; fi
  faults '{}'
  local took why retries most
  took=$(python3 -c "import time; print('%.0f' % (time.time() - $started))")
  why=$(grep -o 'still failing after [^;]*' "$log" | head -1 || true)
  retries=$(grep -c 'Retrying a Google API request' "$log.debug" || true)
  most=$(grep 'Retrying a Google API request' "$log.debug" | grep -o 'attempt=[0-9]*' | cut -d= -f2 | sort -n | tail -1 || true)
  # A request retried after attempt N made N+1 attempts (or failed).
  most=$(( ${most:-0} + 1 ))
  if [ $ok = 1 ]; then echo "run $run $name ok ${took}s retries=$retries most-attempts=$most"; else echo "run $run $name FAILED ${took}s retries=$retries most-attempts=$most $why"; fi
  return $((1 - ok))
}
for run in $(seq 1 "$RUNS"); do
  if step apply apply; then applies=$((applies + 1)); fi
  if step destroy destroy; then destroys=$((destroys + 1)); fi
  # Whatever failed, leave nothing for the next run: destroy with no faults.
  tf destroy -input=false -no-color -auto-approve > "$W/run-$run-cleanup.log" 2>&1 ||
    { echo "run $run: the clean-up destroy failed (see $W/run-$run-cleanup.log)" >&2; exit 1; }
done
echo "rate429=$R429 rate503=$R503: applies $applies/$RUNS succeeded, destroys $destroys/$RUNS succeeded"
