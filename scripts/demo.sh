#!/usr/bin/env bash
# make demo: apply slice stacks on the local sandbox (multislice, serving and
# training sub-slices, DRA, then the Kueue path), run their workloads, show
# them, destroy them, and stop the sandbox.
#   TF=tofu make demo        use OpenTofu instead of Terraform
#   KEEP=1 make demo         leave the last stack (the Kueue path) and the sandbox running
#   DEMO_DIR=DIR make demo   work in DIR (default .cache/demo; recreated), so that
#                            demos can run side by side (scripts/tf-matrix-all.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

TF=${TF:-terraform}
ROOT=$PWD
DEMO=$(realpath -m "${DEMO_DIR:-$ROOT/.cache/demo}")
case $DEMO in
  / | "$ROOT" | "$HOME") echo "DEMO_DIR=$DEMO: the demo recreates its directory; give one of its own" >&2; exit 2 ;;
esac
VERSION=0.0.1 # a release-like version: init does not pick pre-releases unasked
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
fail() { printf '\n\033[31mdemo failed: %s\033[0m\n' "$*" >&2; exit 1; }
command -v "$TF" >/dev/null || fail "no $TF on PATH (set TF=terraform or TF=tofu)"

step "Building the provider and the sandbox"
# The sandbox's parts (make sandbox-bin) and the provider build side by
# side. The first run compiles Kubernetes, kwok, JobSet and Kueue (minutes:
# the README says how long); then Go's build cache makes it seconds.
if ! make --no-print-directory -q bin/kube-apiserver bin/kueue bin/kueue-crds/VERSION bin/provreq-crds/VERSION bin/jobset-crds/VERSION 2>/dev/null; then
  echo "    building the sandbox's parts (make sandbox-bin; output in bin/sandbox-bin.log): Kubernetes, kwok, JobSet and Kueue from source, minutes on a first run"
fi
mkdir -p bin
make --no-print-directory sandbox-bin > bin/sandbox-bin.log 2>&1 &
sandbox_bin=$!
rm -rf "$DEMO" && mkdir -p "$DEMO/bin"
go build -o "$DEMO/bin/terraform-provider-gke" . || fail "building the provider"
go build -o "$DEMO/bin/gke-sandbox" ./cmd/gke-sandbox || fail "building the sandbox"
wait "$sandbox_bin" || { tail -n 30 bin/sandbox-bin.log >&2; fail "make sandbox-bin (its output: bin/sandbox-bin.log)"; }
# A local mirror of this build, under both registries' names, so that
# init installs it with no network.
for host in registry.terraform.io registry.opentofu.org; do
  dir=$DEMO/mirror/$host/dynslice/gke/$VERSION/$(go env GOOS)_$(go env GOARCH)
  mkdir -p "$dir" && cp "$DEMO/bin/terraform-provider-gke" "$dir/terraform-provider-gke_v$VERSION"
done
cat > "$DEMO/cli.tfrc" <<RC
provider_installation {
  filesystem_mirror {
    path    = "$DEMO/mirror"
    include = ["registry.terraform.io/dynslice/gke", "registry.opentofu.org/dynslice/gke"]
  }
  direct {
    exclude = ["registry.terraform.io/dynslice/gke", "registry.opentofu.org/dynslice/gke"]
  }
}
RC
export TF_CLI_CONFIG_FILE=$DEMO/cli.tfrc

step "Starting the sandbox"
"$DEMO/bin/gke-sandbox" -quiet -dir "$DEMO/sandbox" > "$DEMO/sandbox.ready" 2> "$DEMO/sandbox.log" &
SANDBOX=$!
stop_sandbox() {
  if kill -0 "$SANDBOX" 2>/dev/null; then
    kill -INT "$SANDBOX" && wait "$SANDBOX" || true
  fi
}
if [ -z "${KEEP:-}" ]; then trap stop_sandbox EXIT; fi
for _ in $(seq 1 600); do
  [ -s "$DEMO/sandbox.ready" ] && break
  kill -0 "$SANDBOX" 2>/dev/null || { cat "$DEMO/sandbox.log" >&2; fail "the sandbox did not start"; }
  sleep 0.1
done
[ -s "$DEMO/sandbox.ready" ] || fail "the sandbox did not become ready in 60s"
# shellcheck disable=SC1091
source "$DEMO/sandbox/sandbox.env"
echo "sandbox ready: GKE and Compute at $GOOGLE_CONTAINER_CUSTOM_ENDPOINT, kubeconfig $DEMO/sandbox/kubeconfig"

mkdir -p "$DEMO/examples" && cp -r examples/modules examples/stacks "$DEMO/examples/"
WORK=$DEMO/examples/stacks/multislice
tf() { "$TF" -chdir="$WORK" "$@"; }

step "$TF init"
tf init -input=false -no-color >/dev/null || fail "$TF init"

step "$TF apply: workload policy, a node pool per free sub-block of block-a, two 4x4x8 slices"
tf apply -auto-approve -input=false -no-color | grep -E 'Creation complete|^Apply complete' | sed 's/^/  /' || fail "$TF apply"

step "Slices"
kubectl --kubeconfig "$DEMO/sandbox/kubeconfig" get slices
tf output -json slices | python3 -c '
import json, sys
for name, s in sorted(json.load(sys.stdin).items()):
    print("  %s: %s  topology %s  %d chips  %d hosts  %s" % (name, s["state"], s["topology"], s["chips"], s["hosts"], s["accelerator_type"]))'
states=$(tf output -json slices | python3 -c 'import json,sys; print(" ".join(s["state"] for s in json.load(sys.stdin).values()))')
for s in $states; do [ "$s" = ACTIVE ] || fail "a slice is $s, not ACTIVE"; done

step "Partitions"
tf output -json node_pools | python3 -c '
import json, sys
print("  %-24s %-14s %-34s %-10s %s" % ("NODE POOL", "SUB-BLOCK", "PARTITION", "STATE", "READY"))
for name, p in sorted(json.load(sys.stdin).items()):
    print("  %-24s %-14s %-34s %-10s %d/16" % (name, p["sub_block"], p["partition_id"], p["partition_state"], p["ready_nodes"]))'

K=(kubectl --kubeconfig "$DEMO/sandbox/kubeconfig")
# run_workloads NAMESPACE JOBS: apply the manifests on stdin in a new
# namespace, wait for the Jobs to finish and show where their pods ran.
run_workloads() {
  "${K[@]}" create namespace "$1" >/dev/null || fail "creating namespace $1"
  "${K[@]}" apply -n "$1" -f - | sed 's/^/  /' || fail "applying the workloads in $1"
  KUBECONFIG=$DEMO/sandbox/kubeconfig python3 scripts/placement.py "$1" "$2" || fail "the workloads in $1 did not all run on their slices"
}

step "The JobSet for the two slices: JobSet's controller gives each Job a slice of its own (exclusive topology)"
tf output -raw jobset_manifest | sed -n '1,12p;/nodeSelector/,/accelerator/p' | sed 's/^/  /'
tf output -raw jobset_manifest | run_workloads demo-train 2

step "$TF plan (nothing to change)"
set +e
tf plan -input=false -no-color -detailed-exitcode >/dev/null
code=$?
set -e
[ "$code" = 0 ] || fail "the plan after apply is not empty (exit code $code)"
echo "No changes."

FLEET=$DEMO/examples/stacks/serving-and-training
fleet() { "$TF" -chdir="$FLEET" "$@"; }
step "$TF apply: sub-slices 2x4x4, 2x2x4, 2x2x2 and 2x2x1 in one sub-block of block-b, beside a 4x4x8 training slice"
fleet init -input=false -no-color >/dev/null || fail "$TF init (serving-and-training)"
fleet apply -auto-approve -input=false -no-color | grep -E '^Apply complete' | sed 's/^/  /' || fail "$TF apply (serving-and-training)"
kubectl --kubeconfig "$DEMO/sandbox/kubeconfig" get slices
fleet output -json slices | python3 -c '
import json, sys
for name, s in sorted(json.load(sys.stdin).items()):
    print("  %s: %s  topology %s  %d chips  %d hosts  %s" % (name, s["state"], s["topology"], s["chips"], s["hosts"], s["accelerator_type"]))'
states=$(fleet output -json slices | python3 -c 'import json,sys; print(" ".join(s["state"] for s in json.load(sys.stdin).values()))')
for s in $states; do [ "$s" = ACTIVE ] || fail "a slice of the serving fleet is $s, not ACTIVE"; done
echo "  hosts of the serving sub-block still free: $(fleet output -json serving_free_hosts | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"

step "One Job per slice of the fleet, each pinned to its slice by the slice's node selector"
fleet output -raw workload_manifests | run_workloads demo-serve 5

step "A workload wired to a slice that is not ACTIVE waits, with the scheduler's reason"
PARTITION=$(tf output -json node_pools | python3 -c 'import json,sys; print(sorted(p["partition_id"] for p in json.load(sys.stdin).values())[0])')
"${K[@]}" apply -f - >/dev/null <<YAML || fail "creating Slice blocked"
apiVersion: accelerator.gke.io/v1beta1
kind: Slice
metadata:
  name: blocked
spec:
  type: tpu7x
  topology: 4x4x4
  partitionIds: ["$PARTITION"]
YAML
"${K[@]}" wait --for=jsonpath='{.status.conditions[?(@.type=="Ready")].reason}'=SliceCreationFailed slice/blocked --timeout=60s >/dev/null ||
  fail "Slice blocked did not fail to form"
echo "  Slice blocked (a partition that train-slice-0 holds): $("${K[@]}" get slice blocked -o jsonpath='{.status.conditions[?(@.type=="Ready")].reason}')"
"${K[@]}" create namespace demo-wait >/dev/null
"${K[@]}" create -n demo-wait -f - >/dev/null <<YAML || fail "creating Job wait-for-blocked"
apiVersion: batch/v1
kind: Job
metadata:
  name: wait-for-blocked
spec:
  template:
    spec:
      restartPolicy: Never
      nodeSelector:
        cloud.google.com/gke-tpu-accelerator: tpu7x
        cloud.google.com/gke-tpu-topology: 4x4x4
        cloud.google.com/gke-tpu-slice: blocked
      containers:
      - name: w
        image: python:3.12
        resources:
          requests: {google.com/tpu: 4}
          limits: {google.com/tpu: 4}
YAML
reason=""
for _ in $(seq 1 60); do
  reason=$("${K[@]}" get pods -n demo-wait -o jsonpath='{.items[0].status.conditions[?(@.type=="PodScheduled")].message}' 2>/dev/null || true)
  [ -n "$reason" ] && break
  sleep 0.5
done
[ -n "$reason" ] || fail "the pod of Job wait-for-blocked was not marked unschedulable"
echo "  pod of Job wait-for-blocked: Pending: $reason"
"${K[@]}" delete namespace demo-wait --wait=false >/dev/null
"${K[@]}" delete slice blocked --timeout=60s >/dev/null || fail "deleting Slice blocked"

DRA=$DEMO/examples/stacks/dra
dra() { "$TF" -chdir="$DRA" "$@"; }
step "$TF apply: a node pool on GKE's TPU DRA driver and a 4x4x4 slice with device_access = \"dra\" (block-c)"
dra init -input=false -no-color >/dev/null || fail "$TF init (dra)"
dra apply -auto-approve -input=false -no-color | grep -E '^Apply complete' | sed 's/^/  /' || fail "$TF apply (dra)"
echo "  resource_claim_template: $(dra output -json slices | python3 -c 'import json,sys; print(json.load(sys.stdin)["dra-slice"]["resource_claim_template"])')"
echo "  ResourceSlices published for its nodes: $("${K[@]}" get resourceslices -o name | wc -l)"
dra output -raw workload_manifests | run_workloads demo-dra 1

step "$TF destroy of the three stacks"
"${K[@]}" delete namespace demo-train demo-serve demo-dra --timeout=120s >/dev/null || fail "deleting the workload namespaces"
dra destroy -auto-approve -input=false -no-color | grep -E '^Destroy complete' | sed 's/^/  /' || fail "$TF destroy (dra)"
fleet destroy -auto-approve -input=false -no-color | grep -E '^Destroy complete' | sed 's/^/  /' || fail "$TF destroy (serving-and-training)"
tf destroy -auto-approve -input=false -no-color | grep -E '^Destroy complete' | sed 's/^/  /' || fail "$TF destroy"
left=$("${K[@]}" get slices,nodes -o name | wc -l)
[ "$left" = 0 ] || fail "$left Slice or Node object(s) left after destroy"
echo "No Slice and no node left."

KUEUE=$DEMO/examples/stacks/kueue-multislice
kq() { "$TF" -chdir="$KUEUE" "$@"; }
step "$TF apply: the Kueue path: a node pool per free sub-block of block-a, Kueue set up over them (gke_kueue_slicing), no slices"
kq init -input=false -no-color >/dev/null || fail "$TF init (kueue-multislice)"
kq apply -auto-approve -input=false -no-color | grep -E '^Apply complete' | sed 's/^/  /' || fail "$TF apply (kueue-multislice)"
kq output -json kueue | python3 -c '
import json, sys
k = json.load(sys.stdin)
print("  ClusterQueue %s: google.com/tpu quota %d; Topology levels %s" % (k["name"], k["tpu_quota"], " > ".join(k["topology_levels"])))'
echo "  Slices before the JobSet: $("${K[@]}" get slices -o name | wc -l)"

step "A JobSet queued in Kueue: admitted within the quota, a Slice per Job made on demand, run, and its Slices deleted"
kq output -raw jobset_manifest | "${K[@]}" apply -f - | sed 's/^/  /' || fail "applying the Kueue JobSet"
KUBECONFIG=$DEMO/sandbox/kubeconfig python3 scripts/kueue_watch.py default kueue-multislice ||
  fail "the Kueue JobSet did not run from queue to completion on its own slices"
"${K[@]}" delete jobset -n default kueue-multislice --timeout=60s >/dev/null || fail "deleting the Kueue JobSet"

if [ -n "${KEEP:-}" ]; then
  step "Left running (KEEP=1)"
  echo "The Kueue stack is in $KUEUE; the sandbox runs as PID $SANDBOX (kill -INT $SANDBOX to stop it)."
  echo "source $DEMO/sandbox/sandbox.env, then $TF -chdir=$KUEUE output -raw jobset_manifest | kubectl --kubeconfig $DEMO/sandbox/kubeconfig apply -f -"
  exit 0
fi

step "$TF destroy (kueue-multislice)"
kq destroy -auto-approve -input=false -no-color | grep -E '^Destroy complete' | sed 's/^/  /' || fail "$TF destroy (kueue-multislice)"
left=$("${K[@]}" get slices,nodes,clusterqueues.kueue.x-k8s.io -o name | wc -l)
[ "$left" = 0 ] || fail "$left Slice, Node or ClusterQueue object(s) left after destroy"
echo "No Slice, node or ClusterQueue left."

FLEX=$DEMO/examples/stacks/kueue-flex-overflow
fx() { "$TF" -chdir="$FLEX" "$@"; }
POOLS=${GOOGLE_CONTAINER_CUSTOM_ENDPOINT%/}/v1/projects/$GOOGLE_PROJECT/locations/$GOOGLE_REGION/clusters/$GOOGLE_CLUSTER/nodePools
step "A flex-start node pool with queued provisioning (GKE's Dynamic Workload Scheduler), made through the GKE API as gcloud does"
curl -sf -X POST -H "Authorization: Bearer $GOOGLE_OAUTH_ACCESS_TOKEN" -H "Content-Type: application/json" "$POOLS" -d '{"nodePool": {
  "name": "flex-2x2x2", "queuedProvisioning": {"enabled": true},
  "autoscaling": {"enabled": true, "totalMaxNodeCount": 4, "locationPolicy": "ANY"},
  "placementPolicy": {"tpuTopology": "2x2x2"},
  "config": {"machineType": "tpu7x-standard-4t", "flexStart": true, "reservationAffinity": {"consumeReservationType": "NO_RESERVATION"}}}}' >/dev/null ||
  fail "creating the flex-start pool flex-2x2x2"
echo "  node pool flex-2x2x2: tpu7x 2x2x2, flex-start, queued provisioning, $("${K[@]}" get nodes -l cloud.google.com/gke-nodepool=flex-2x2x2 -o name | wc -l) nodes"

step "$TF apply: one queue over the reservation (a node pool of block-a) and the flex-start pool (gke_kueue_slicing's overflow)"
fx init -input=false -no-color >/dev/null || fail "$TF init (kueue-flex-overflow)"
fx apply -auto-approve -input=false -no-color | grep -E '^Apply complete' | sed 's/^/  /' || fail "$TF apply (kueue-flex-overflow)"
fx output -json kueue | python3 -c '
import json, sys
k = json.load(sys.stdin)
print("  ClusterQueue %s: flavor %s (reservation, %d chips, Slices) then %s (DWS, %d chips, no Slice)" % (
    k["name"], k["name"], k["reservation_quota"], k["flex_flavor"], k["flex_quota"]))'

step "Two JobSets on the queue: one with a slice topology runs on the reservation with a Slice; one without goes to DWS"
# Both followed at once (the reserved one's Slice lives only while it runs).
fx output -raw reserved_jobset_manifest | "${K[@]}" apply -f - | sed 's/^/  /' || fail "applying train-reserved"
KUBECONFIG=$DEMO/sandbox/kubeconfig python3 scripts/kueue_watch.py default train-reserved > "$DEMO/train-reserved.watch" 2>&1 &
reserved_watch=$!
fx output -raw flex_jobset_manifest | "${K[@]}" apply -f - | sed 's/^/  /' || fail "applying train-flex"
echo "  train-flex:"
KUBECONFIG=$DEMO/sandbox/kubeconfig python3 scripts/kueue_flex_watch.py default train-flex tpu7x-flex ||
  fail "the flex JobSet did not run through DWS"
reserved_ok=0
wait "$reserved_watch" || reserved_ok=$?
echo "  train-reserved:"
cat "$DEMO/train-reserved.watch"
[ "$reserved_ok" = 0 ] || fail "the reservation JobSet did not run on its slice"
"${K[@]}" delete jobset -n default train-reserved train-flex --timeout=60s >/dev/null || fail "deleting the JobSets"

step "$TF destroy (kueue-flex-overflow), then the flex-start pool"
fx destroy -auto-approve -input=false -no-color | grep -E '^Destroy complete' | sed 's/^/  /' || fail "$TF destroy (kueue-flex-overflow)"
curl -sf -X DELETE -H "Authorization: Bearer $GOOGLE_OAUTH_ACCESS_TOKEN" "$POOLS/flex-2x2x2" >/dev/null || fail "deleting the flex-start pool"
left=$("${K[@]}" get slices,nodes,clusterqueues.kueue.x-k8s.io -o name | wc -l)
[ "$left" = 0 ] || fail "$left Slice, Node or ClusterQueue object(s) left after destroy"
echo "No Slice, node or ClusterQueue left."

step "Stopping the sandbox"
stop_sandbox
trap - EXIT
echo "Demo complete."
