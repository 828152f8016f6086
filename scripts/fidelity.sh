#!/usr/bin/env bash
# make fidelity: run the gcloud and kubectl commands of GKE's dynamic slicing
# guide ("Use dynamic slicing with a custom scheduler") against a fresh local
# sandbox, as a new user would, and
# fail on any error or on an answer that is not GKE's.
#
# gcloud and kubectl are used when installed; a missing one is skipped with
# a message (without gcloud, the node pools are made through the GKE API).
# gcloud runs with the sandbox's cli.env: a configuration directory of its
# own, the sandbox token, no prompts, usage reporting or update checks. HOME
# points at a scratch directory too, so nothing of the user's gcloud or
# kubectl configuration is read or written.
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT=$PWD
WORK=$ROOT/.cache/fidelity

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
note() { printf '  (%s)\n' "$*"; }
fail() { printf '\n\033[31mfidelity failed: %s\033[0m\n' "$*" >&2; exit 1; }

# run shows a command as a user would type it, runs it, and shows its
# output indented; any failure stops the script with the command named.
run() {
  printf '$ %s\n' "$*"
  local out
  if ! out=$("$@" 2>&1); then
    printf '%s\n' "$out" | sed 's/^/    /'
    fail "$*"
  fi
  [ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/    /'
  LAST=$out
}

# expect fails unless the last command's output contains the text.
expect() {
  case $LAST in
    *"$1"*) ;;
    *) fail "the output of the last command lacks: $1" ;;
  esac
}

have() { command -v "$1" >/dev/null; }

step "Building the sandbox"
make --no-print-directory sandbox-bin >/dev/null || fail "make sandbox-bin"
go build -o bin/gke-sandbox ./cmd/gke-sandbox || fail "building the sandbox"

rm -rf "$WORK" && mkdir -p "$WORK/home"

step "Starting a fresh sandbox"
bin/gke-sandbox -quiet -dir "$WORK/sandbox" > "$WORK/sandbox.ready" 2> "$WORK/sandbox.log" &
SANDBOX=$!
stop_sandbox() {
  if kill -0 "$SANDBOX" 2>/dev/null; then
    { kill -INT "$SANDBOX" && wait "$SANDBOX"; } || true
  fi
}
trap stop_sandbox EXIT
for _ in $(seq 1 600); do
  [ -s "$WORK/sandbox.ready" ] && break
  kill -0 "$SANDBOX" 2>/dev/null || { cat "$WORK/sandbox.log" >&2; fail "the sandbox did not start"; }
  sleep 0.1
done
[ -s "$WORK/sandbox.ready" ] || fail "the sandbox did not become ready in 60s"

# Nothing of the caller's gcloud or Kubernetes settings may reach the
# commands: drop them, then take the sandbox's.
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep -E '^(CLOUDSDK_|GOOGLE_|KUBE)' || true)
export HOME=$WORK/home
# shellcheck disable=SC1091
source "$WORK/sandbox/sandbox.env"
# shellcheck disable=SC1091
source "$WORK/sandbox/cli.env"
PROJECT=$GOOGLE_PROJECT
REGION=$GOOGLE_REGION
CLUSTER=$GOOGLE_CLUSTER
ZONE=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["zone"])' "$WORK/sandbox/sandbox.json")
RESERVATION=tpu7x-reservation
BLOCK=block-a
POLICY=ironwood-workload-policy
echo "sandbox ready: project $PROJECT, region $REGION, cluster $CLUSTER; GKE and Compute at $GOOGLE_CONTAINER_CUSTOM_ENDPOINT"

# The node pools of the guide: three targeted at block-a (GKE picks a free
# sub-block for each), one at its remaining sub-block.
BLOCK_POOLS=(sub-block-pool-1 sub-block-pool-2 sub-block-pool-3)
SUBBLOCK_POOL=sub-block-pool-4
SUBBLOCK=sub-block-a4

# google_api calls the emulated Google APIs as the Go clients do; it is used
# only for what the installed gcloud cannot do.
google_api() {
  local method=$1 path=$2 body=${3:-}
  curl -sS --fail-with-body -X "$method" -H "Authorization: Bearer $GOOGLE_OAUTH_ACCESS_TOKEN" \
    -H 'Content-Type: application/json' ${body:+--data "$body"} "$GOOGLE_CONTAINER_CUSTOM_ENDPOINT$path"
}
json_field() { python3 -c 'import json, sys; print(json.load(sys.stdin).get(sys.argv[1], ""))' "$1"; }

# wait_operation polls a long-running operation at path until it is DONE
# and fails on its error.
wait_operation() {
  local path=$1 op
  for _ in $(seq 1 600); do
    op=$(google_api GET "$path") || fail "reading operation $path"
    if [ "$(json_field status <<<"$op")" = DONE ]; then
      [ -z "$(json_field error <<<"$op")" ] || fail "operation $path failed: $op"
      return 0
    fi
    sleep 0.1
  done
  fail "operation $path did not finish in 60s"
}

create_policy_by_api() {
  local op
  op=$(google_api POST "compute/v1/projects/$PROJECT/regions/$REGION/resourcePolicies" \
    "{\"name\":\"$POLICY\",\"workloadPolicy\":{\"type\":\"HIGH_THROUGHPUT\",\"acceleratorTopology\":\"4x4x4\",\"acceleratorTopologyMode\":\"PROVISION_ONLY\"}}") ||
    fail "creating the workload policy through the Compute API"
  wait_operation "compute/v1/projects/$PROJECT/regions/$REGION/operations/$(json_field name <<<"$op")"
}

create_pool_by_api() {
  local name=$1 reservation=$2 op
  op=$(google_api POST "v1/projects/$PROJECT/locations/$REGION/clusters/$CLUSTER/nodePools" "{\"nodePool\":{
      \"name\":\"$name\",\"initialNodeCount\":16,\"locations\":[\"$ZONE\"],\"placementPolicy\":{\"policyName\":\"$POLICY\"},
      \"config\":{\"machineType\":\"tpu7x-standard-4t\",\"reservationAffinity\":{\"consumeReservationType\":\"SPECIFIC_RESERVATION\",
      \"key\":\"compute.googleapis.com/reservation-name\",\"values\":[\"$reservation\"]}}}}") ||
    fail "creating node pool $name through the GKE API"
  wait_operation "v1/projects/$PROJECT/locations/$REGION/operations/$(json_field name <<<"$op")"
}

if have gcloud; then
  step "gcloud $(gcloud version 2>/dev/null | sed -n 's/^Google Cloud SDK //p'), configuration in $CLOUDSDK_CONFIG"

  step "Create a workload policy"
  if gcloud compute resource-policies create workload-policy --help 2>/dev/null | grep -q -- --accelerator-topology-mode; then
    run gcloud compute resource-policies create workload-policy "$POLICY" \
      --project="$PROJECT" --region="$REGION" --type=HIGH_THROUGHPUT \
      --accelerator-topology=4x4x4 --accelerator-topology-mode=provision_only
  else
    note "this gcloud has no --accelerator-topology-mode (newer releases have it): creating $POLICY with mode PROVISION_ONLY through the Compute API"
    create_policy_by_api
  fi
  run gcloud compute resource-policies describe "$POLICY" --region="$REGION"
  expect "acceleratorTopologyMode: PROVISION_ONLY"
  run gcloud compute resource-policies list
  expect "$POLICY"

  step "The reservation, its blocks and sub-blocks"
  run gcloud compute reservations list
  expect "$RESERVATION"
  run gcloud compute reservations describe "$RESERVATION" --zone="$ZONE"
  run gcloud compute reservations blocks list "$RESERVATION" --zone="$ZONE"
  expect "name: $BLOCK"
  run gcloud compute reservations blocks describe "$RESERVATION" --block-name="$BLOCK" --zone="$ZONE"
  expect "reservationSubBlockCount: 4"
  run gcloud compute reservations sub-blocks list "$RESERVATION" --block-name="$BLOCK" --zone="$ZONE"
  expect "name: $SUBBLOCK"
  run gcloud compute reservations sub-blocks describe "$RESERVATION" --block-name="$BLOCK" \
    --sub-block-name="$SUBBLOCK" --zone="$ZONE"
  expect "healthStatus: HEALTHY"

  step "The cluster"
  run gcloud container clusters describe "$CLUSTER" --location="$REGION"
  expect "sliceControllerConfig:"
  run gcloud container clusters list
  expect "$CLUSTER"
  run gcloud config set container/cluster "$CLUSTER"
  # get-credentials writes a kubeconfig entry that gets its token from
  # gcloud (gke-gcloud-auth-plugin); keep it apart from the sandbox's own.
  export KUBECONFIG=$WORK/kubeconfig
  run gcloud container clusters get-credentials "$CLUSTER" --location="$REGION"

  step "Node pools targeted at a block, one per sub-block"
  RESERVATION_PATH="projects/$PROJECT/reservations/$RESERVATION/reservationBlocks/$BLOCK"
  for pool in "${BLOCK_POOLS[@]}"; do
    run gcloud container node-pools create "$pool" \
      --cluster="$CLUSTER" \
      --location="$REGION" \
      --node-locations="$ZONE" \
      --machine-type=tpu7x-standard-4t \
      --num-nodes=16 \
      --placement-policy="$POLICY" \
      --reservation-affinity=specific \
      --reservation="$RESERVATION_PATH"
  done

  step "A node pool targeted at a sub-block"
  RESERVATION_PATH="projects/$PROJECT/reservations/$RESERVATION/reservationBlocks/$BLOCK/reservationSubBlocks/$SUBBLOCK"
  run gcloud container node-pools create "$SUBBLOCK_POOL" \
    --project="$PROJECT" \
    --cluster="$CLUSTER" \
    --location="$REGION" \
    --node-locations="$ZONE" \
    --machine-type=tpu7x-standard-4t \
    --num-nodes=16 \
    --placement-policy="$POLICY" \
    --reservation-affinity=specific \
    --reservation="$RESERVATION_PATH"
  run gcloud container node-pools list --cluster="$CLUSTER" --location="$REGION"
  expect "$SUBBLOCK_POOL"
  run gcloud container node-pools describe "$SUBBLOCK_POOL" --cluster="$CLUSTER" --location="$REGION"
  expect "status: RUNNING"
  run gcloud compute reservations blocks describe "$RESERVATION" --block-name="$BLOCK" --zone="$ZONE"
  expect "reservationSubBlockInUseCount: 4"

  step "Operations"
  run gcloud container operations list
  expect CREATE_NODE_POOL
  OPERATION=$(gcloud container operations list --location="$REGION" --format='value(name)' --limit=1) ||
    fail "gcloud container operations list --format"
  run gcloud container operations describe "$OPERATION" --location="$REGION"
  expect "status: DONE"
else
  step "gcloud is not installed: skipping the seed's gcloud commands"
  note "creating the workload policy and the node pools through the Compute and GKE APIs instead"
  create_policy_by_api
  for pool in "${BLOCK_POOLS[@]}"; do
    create_pool_by_api "$pool" "projects/$PROJECT/reservations/$RESERVATION/reservationBlocks/$BLOCK"
  done
  create_pool_by_api "$SUBBLOCK_POOL" "projects/$PROJECT/reservations/$RESERVATION/reservationBlocks/$BLOCK/reservationSubBlocks/$SUBBLOCK"
fi

if ! have kubectl; then
  step "kubectl is not installed: skipping the seed's kubectl commands"
  stop_sandbox
  trap - EXIT
  echo "Fidelity check done (without kubectl)."
  exit 0
fi

step "The Slice API"
run kubectl get crd slices.accelerator.gke.io
expect slices.accelerator.gke.io

step "Nodes and partitions"
# The guide's commands in full for the last pool; for each pool, what they
# must show: 16 Ready nodes with a VERSION, one partition ID.
PARTITIONS=()
for pool in "${BLOCK_POOLS[@]}" "$SUBBLOCK_POOL"; do
  nodes=$(kubectl get nodes -l "cloud.google.com/gke-nodepool=$pool" --no-headers) || fail "kubectl get nodes of pool $pool"
  ready=$(grep -c ' Ready ' <<<"$nodes" || true)
  [ "$ready" = 16 ] || fail "node pool $pool has $ready Ready nodes, want 16"
  grep -q ' v1\.[0-9]*\.[0-9]*-gke\.' <<<"$nodes" || fail "kubectl shows no node VERSION for pool $pool"
  partition=$(kubectl get nodes -l "cloud.google.com/gke-nodepool=$pool" \
    -o jsonpath='{range .items[*]}{.metadata.labels.cloud\.google\.com/gke-tpu-partition-4x4x4-id}{"\n"}{end}' | sort -u)
  if [ -z "$partition" ] || [ "$(wc -l <<<"$partition")" != 1 ]; then
    fail "the nodes of pool $pool do not share one partition ID: $partition"
  fi
  PARTITIONS+=("$partition")
  echo "node pool $pool: 16 Ready nodes, partition $partition"
done
run kubectl get nodes -l "cloud.google.com/gke-nodepool=$SUBBLOCK_POOL"
NODE=$(kubectl get nodes -l "cloud.google.com/gke-nodepool=$SUBBLOCK_POOL" -o jsonpath='{.items[0].metadata.name}') ||
  fail "listing the nodes of $SUBBLOCK_POOL"
echo "\$ kubectl describe node $NODE | grep ..."
DESCRIBED=$(kubectl describe node "$NODE") || fail "kubectl describe node $NODE"
for pattern in "cloud.google.com/gke-accelerator-topology-mode=PROVISION_ONLY" "cloud.google.com/gke-tpu-partition-4x4x4-id=${PARTITIONS[3]}" \
  "node.gke.io/created-by-mig: projects/" "Taints: +google.com/tpu=present:NoSchedule\$"; do
  grep -E -- "$pattern" <<<"$DESCRIBED" | sed 's/^ */    /' || fail "kubectl describe node $NODE lacks: $pattern"
done
run kubectl get nodes -l "cloud.google.com/gke-nodepool=$SUBBLOCK_POOL" \
  -L cloud.google.com/gke-tpu-partition-4x4x4-id,cloud.google.com/gke-tpu-partition-4x4x4-state
expect HEALTHY

step "A Slice of the four partitions (the guide's 4x8x8 example)"
SLICE=test-slice-example
MANIFEST=$WORK/$SLICE.yaml
cat > "$MANIFEST" <<YAML
apiVersion: accelerator.gke.io/v1beta1
kind: Slice
metadata:
  name: $SLICE
  annotations:
    slice.gke.io/retry-on-failure: "true"
spec:
  type: "tpu7x"
  topology: "4x8x8" # (4*8*8)/64 = 4 partitions
  partitionIds:
$(printf '    - "%s"\n' "${PARTITIONS[@]}")
YAML
sed 's/^/    /' "$MANIFEST"
run kubectl apply -f "$MANIFEST"
run kubectl wait --for=condition=Ready "slice/$SLICE" --timeout=60s
run kubectl get slices
expect ACTIVE
run kubectl describe slice "$SLICE"
state=$(kubectl get slice "$SLICE" -o jsonpath='{.status.conditions[?(@.type=="Ready")].reason}')
[ "$state" = ACTIVE ] || fail "slice $SLICE is $state, want ACTIVE"
labelled=$(kubectl get nodes -l "cloud.google.com/gke-tpu-slice=$SLICE" -o name | wc -l)
[ "$labelled" = 64 ] || fail "$labelled nodes carry cloud.google.com/gke-tpu-slice=$SLICE, want 64"
echo "64 nodes carry cloud.google.com/gke-tpu-slice=$SLICE and cloud.google.com/gke-tpu-topology=4x8x8"

step "A Slice GKE refuses at admission"
printf '$ kubectl apply -f - (topology 4x8x4, not in non-decreasing order)\n'
if out=$(sed 's/"4x8x8"/"4x8x4"/; s/name: test-slice-example/name: test-slice-refused/' "$MANIFEST" | kubectl apply -f - 2>&1); then
  fail "the API server admitted a Slice of topology 4x8x4"
fi
printf '%s\n' "$out" | sed 's/^/    /'
grep -q 'non-decreasing order' <<<"$out" || fail "the refusal does not say what is wrong"

step "Delete the slice"
run kubectl delete slice "$SLICE" --timeout=60s
run kubectl get slices
expect "No resources found"
labelled=$(kubectl get nodes -l cloud.google.com/gke-tpu-slice -o name | wc -l)
[ "$labelled" = 0 ] || fail "$labelled nodes keep the cloud.google.com/gke-tpu-slice label after deletion"
echo "No node keeps the slice labels."

step "The guide's workloads: Example 1, a Job on test-slice; Example 2, a JobSet on two slices"
# Three 4x4x4 slices of the block's pools: test-slice for Example 1 (the
# name it selects), and two for Example 2's JobSet, whose exclusive-topology
# annotation gives each of its Jobs a slice of its own.
for i in 0 1 2; do
  name=test-slice; [ "$i" = 0 ] || name=test-slice-$((i + 1))
  kubectl apply -f - >/dev/null <<YAML || fail "creating Slice $name"
apiVersion: accelerator.gke.io/v1beta1
kind: Slice
metadata:
  name: $name
spec:
  type: tpu7x
  topology: 4x4x4
  partitionIds: ["${PARTITIONS[$i]}"]
YAML
done
run kubectl wait --for=condition=Ready slice/test-slice slice/test-slice-2 slice/test-slice-3 --timeout=60s
run kubectl apply -f scripts/fidelity/seed-example-1.yaml
run kubectl wait --for=condition=Complete job/tpu-job-jax-v7x-64 --timeout=180s
python3 scripts/placement.py default 1 || fail "Example 1's pods did not all run on test-slice"
on=$(kubectl get pods -l job-name=tpu-job-jax-v7x-64 -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort -u |
  xargs kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.labels.cloud\.google\.com/gke-tpu-slice}{"\n"}{end}' | sort -u)
[ "$on" = test-slice ] || fail "Example 1's pods ran on slices: $on"
run kubectl delete -f scripts/fidelity/seed-example-1.yaml --timeout=120s
if have_jobset=$(kubectl get crd jobsets.jobset.x-k8s.io -o name 2>/dev/null) && [ -n "$have_jobset" ]; then
  run kubectl apply -f scripts/fidelity/seed-example-2.yaml
  run kubectl wait --for=condition=Completed jobset/tpu-multislice-jax --timeout=240s
  python3 scripts/placement.py default 2 || fail "Example 2's Jobs did not each run on a slice of their own"
  run kubectl delete -f scripts/fidelity/seed-example-2.yaml --timeout=120s
else
  fail "JobSet is not installed in the sandbox (the guide installs v0.10.1 before Example 2)"
fi
run kubectl delete slice test-slice test-slice-2 test-slice-3 --timeout=60s

step "Stopping the sandbox"
stop_sandbox
trap - EXIT
echo "Fidelity check passed: the seed's commands work against the sandbox."
