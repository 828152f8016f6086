#!/usr/bin/env bash
# scripts/tf-matrix-test.sh BINARY: the test matrix's subset, run with one
# Terraform or OpenTofu binary (one of bin/tf/, built by `make tf-matrix`):
#   - the acceptance tests of each resource's basic lifecycle and import
#     (workload policy, sub-block node pool, TPU slice, Kueue slicing), of the
#     list resources and import by identity, of the two data
#     sources, every provider function's tests and the actions' tests
#     (Terraform 1.14 or later; skipped, with the reason, on others), with
#     TF_ACC_TERRAFORM_PATH=BINARY for terraform-plugin-testing;
#   - `make demo` with TF=BINARY (the multislice and serving stacks: init from
#     a local mirror, apply, plan, destroy).
# TestTerraformCLI runs first and says which CLI ran and what it skips (list
# resources and actions need Terraform 1.14 or later, not OpenTofu).
# The example-stack tests of cli_test.go run `terraform` on PATH, so they are
# not part of it: the demo covers the stacks.
#   GKE_SANDBOX_KUBE_APISERVER, GKE_SANDBOX_KUEUE_CRDS, GKE_SANDBOX_JOBSET,
#   GKE_SANDBOX_JOBSET_CRDS: as for `make test`
#   TESTS='^TestAccTPUSlice_selector$' to run other tests, NODEMO=1 to skip the demo
set -euo pipefail
cd "$(dirname "$0")/.."

RESOURCES='TestAccWorkloadPolicy_basic|TestAccSubBlockNodePool_subBlock|TestAccTPUSlice_selector|TestAccKueueSlicing'
DATA_SOURCES='TestAccPartitionsDataSource|TestAccReservationSubBlocksDataSource'
FUNCTIONS='Test[A-Za-z]+Function(_[A-Za-z]+)?'
# List resources and the import of generated configuration (Terraform 1.14+),
# import by identity (Terraform or OpenTofu 1.12+): skipped, saying so, on
# the others.
QUERY='TestAccListResources|TestAccListKueueMadeSlices|TestAccImportByIdentity|TestAccQueryGenerateConfigImportsHandMadeStack'
ACTIONS='TestAccAction[A-Za-z]+'
SUBSET="^(TestTerraformCLI|$RESOURCES|$DATA_SOURCES|$FUNCTIONS|$QUERY|$ACTIONS)\$"
# --subset prints the subset's -run pattern (.ci/run runs it against an
# external target too).
if [ "${1:-}" = --subset ]; then echo "$SUBSET"; exit 0; fi
TESTS=${TESTS:-$SUBSET}

[ $# = 1 ] || { echo "usage: $0 BINARY (a terraform or tofu binary, such as bin/tf/terraform-1.16.0)" >&2; exit 2; }
bin=$1
[[ $bin == */* ]] || bin=$(command -v "$bin") || { echo "no $1 on PATH" >&2; exit 2; }
bin=$(realpath "$bin")
[ -x "$bin" ] || { echo "$bin: not an executable (make tf-matrix builds bin/tf/)" >&2; exit 2; }
name=$(basename "$bin")
export CHECKPOINT_DISABLE=1
# A TF_CLI_CONFIG_FILE that does not exist makes OpenTofu warn on stdout,
# before its version, which terraform-exec (under terraform-plugin-testing)
# cannot parse: drop it (the tests write their own where they need one).
if [ -n "${TF_CLI_CONFIG_FILE:-}" ] && [ ! -e "$TF_CLI_CONFIG_FILE" ]; then
  echo "==> TF_CLI_CONFIG_FILE=$TF_CLI_CONFIG_FILE does not exist: unset for this run"
  unset TF_CLI_CONFIG_FILE
fi
cli=$("$bin" version 2>/dev/null | awk '/^(Terraform|OpenTofu) v/ && !n++')
[ -n "$cli" ] || { echo "$bin: not Terraform or OpenTofu" >&2; exit 2; }
echo "==> $name: $cli"
# OpenTofu refuses the reattach address registry.terraform.io/-/gke that
# terraform-plugin-testing gives the in-process provider by default (for
# Terraform 0.12 and 0.13); its own registry's hashicorp/gke is what a
# configuration without required_providers means to it.
if [[ $cli == OpenTofu* ]]; then
  export TF_ACC_PROVIDER_HOST=${TF_ACC_PROVIDER_HOST:-registry.opentofu.org} TF_ACC_PROVIDER_NAMESPACE=${TF_ACC_PROVIDER_NAMESPACE:-hashicorp}
  echo "==> OpenTofu: TF_ACC_PROVIDER_HOST=$TF_ACC_PROVIDER_HOST TF_ACC_PROVIDER_NAMESPACE=$TF_ACC_PROVIDER_NAMESPACE"
fi



[ -n "${GKE_SANDBOX_KUBE_APISERVER:-}" ] || make --no-print-directory sandbox-bin >/dev/null

start=$SECONDS
tests=passed
echo "==> go test -run '$TESTS' with TF_ACC_TERRAFORM_PATH=$bin"
set +e
TF_ACC=1 TF_ACC_TERRAFORM_PATH=$bin TEST_LOG=bin/tf-matrix-$name.log \
  bash scripts/gotest.sh -count=1 -v -timeout 30m -run "$TESTS" ./internal/provider/ |
  grep -E '^(--- |    --- |ok |FAIL|PASS$|==> )|tfversion_test.go|^\s+\S+_test\.go:[0-9]+:|^\s*Error: |^cannot run'
[ "${PIPESTATUS[0]}" = 0 ] || tests=failed
set -e
tests="$tests in $((SECONDS - start))s"

demo=skipped
if [ -z "${NODEMO:-}" ]; then
  start=$SECONDS
  if TF=$bin make --no-print-directory demo; then demo=passed; else demo=failed; fi
  demo="$demo in $((SECONDS - start))s"
fi

echo
echo "==> $name: tests $tests (the whole log in bin/tf-matrix-$name.log); demo $demo"
[[ $tests == passed* && $demo != failed* ]]
