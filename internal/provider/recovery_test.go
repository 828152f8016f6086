package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// operations counts the sandbox's operations of a type on a target.
func operations(typ, target string) int {
	n := 0
	for _, op := range accSandbox.Operations() {
		if op.Type == typ && strings.HasSuffix(op.Target, target) {
			n++
		}
	}
	return n
}

// A create interrupted with Ctrl-C leaves the pool, and then the slice, in
// the state without a taint: the next plan shows an update that waits for
// it, and the next apply finishes it without recreating anything.
func TestAccInterruptedCreatesResume(t *testing.T) {
	needSandboxControl(t, "operations and slice activations the sandbox delays so that terraform can be interrupted, and its operations log")
	pools := slicePools("intr", "tpu7x-reservation", "block-a", "sub-block-a2")
	cli := cliWorkspace(t, accSandbox.ProviderConfig(), pools)
	apply := []string{"apply", "-auto-approve", "-input=false", "-no-color"}

	// The pool: interrupted while GKE provisions it.
	accFaults(t, sandbox.Faults{OperationDelayMs: 6000})
	pool := "nodePools/intr-sub-block-a2"
	before, deletesBefore := operations("CREATE_NODE_POOL", pool), operations("DELETE_NODE_POOL", pool)
	out := cli.interruptWhen(func() bool { return operations("CREATE_NODE_POOL", pool) > before }, apply...)
	if !strings.Contains(out, "Node Pool Create Interrupted") {
		t.Errorf("the interrupted apply did not say the pool is kept:\n%s", out)
	}
	plan := cli.must("plan", "-input=false", "-no-color")
	if strings.Contains(plan, "must be replaced") || strings.Contains(plan, "tainted") {
		t.Errorf("the interrupted pool is planned for replacement:\n%s", plan)
	}
	if !strings.Contains(plan, "Node Pool Not Finished") || !strings.Contains(plan, "updated in-place") {
		t.Errorf("the plan does not wait for the unfinished pool:\n%s", plan)
	}
	cli.must(apply...)
	if n := operations("CREATE_NODE_POOL", pool) - before; n != 1 {
		t.Errorf("%d node pool creates, want 1: the pool was recreated", n)
	}
	if n := operations("DELETE_NODE_POOL", pool) - deletesBefore; n != 0 {
		t.Errorf("%d node pool deletes, want 0", n)
	}
	if out, err := cli.run("plan", "-input=false", "-no-color", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the resumed apply is not empty: %v\n%s", err, out)
	}

	// The slice: interrupted while it forms.
	accFaults(t, sandbox.Faults{SliceActivationDelayMs: 6000})
	cli.write(accSandbox.ProviderConfig() + pools + `
resource "gke_tpu_slice" "s" {
  name          = "intr"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a2.partition_id]
}
`)
	var uid string
	e := accEngine(t) // one engine for the polls: its watches serve each read
	out = cli.interruptWhen(func() bool {
		s, err := e.Slices().ReadSlice(context.Background(), "intr")
		if err == nil && s.State == clusterread.SliceActivating {
			uid = s.UID
			return true
		}
		return false
	}, apply...)
	if !strings.Contains(out, "Slice Create Interrupted") {
		t.Errorf("the interrupted apply did not say the slice is kept:\n%s", out)
	}
	plan = cli.must("plan", "-input=false", "-no-color")
	if strings.Contains(plan, "must be replaced") || !strings.Contains(plan, "Slice Not Ready") {
		t.Errorf("the plan does not wait for the forming slice:\n%s", plan)
	}
	cli.must(apply...)
	s, err := accEngine(t).Slices().ReadSlice(context.Background(), "intr")
	if err != nil || s.State != clusterread.SliceActive || s.UID != uid {
		t.Errorf("after the resumed apply the slice is %+v (%v), want the same Slice (UID %s) ACTIVE", s, err, uid)
	}
	if out, err := cli.run("plan", "-input=false", "-no-color", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the resumed apply is not empty: %v\n%s", err, out)
	}
}

// A node pool whose GKE operation failed is in the state as GKE reports
// it, ERROR (not PROVISIONING), tainted: the next apply replaces it.
func TestAccFailedPoolOperationRecordsError(t *testing.T) {
	needSandboxControl(t, "a node pool operation made to fail")
	cli := cliWorkspace(t, accSandbox.ProviderConfig(), slicePools("failop", "tpu7x-reservation", "block-a", "sub-block-a3"))
	accFaults(t, sandbox.Faults{FailOperations: map[string]int{"CREATE_NODE_POOL": 1}})
	if out, err := cli.run("apply", "-auto-approve", "-input=false", "-no-color"); err == nil {
		t.Fatalf("apply succeeded with a failing operation:\n%s", out)
	}
	show := cli.must("state", "show", "-no-color", "gke_subblock_node_pool.sub-block-a3")
	if !strings.Contains(show, `status                = "ERROR"`) || !strings.Contains(show, "tainted") {
		t.Errorf("the failed pool's state does not say ERROR, tainted:\n%s", show)
	}
	accFaults(t, sandbox.Faults{})
	plan := cli.must("plan", "-input=false", "-no-color")
	if !strings.Contains(plan, "is tainted, so must be replaced") {
		t.Errorf("the failed pool is not planned for replacement:\n%s", plan)
	}
}

// A failure report lists the events of the failed Slice only, not those of
// an earlier Slice of the same name (events are filtered by UID).
func TestAccSliceFailureListsItsOwnEvents(t *testing.T) {
	needSandboxControl(t, "a slice formation the sandbox fails")
	cli := cliWorkspace(t, accSandbox.ProviderConfig(), slicePools("evts", "tpu7x-reservation", "block-a", "sub-block-a4")+`
resource "gke_tpu_slice" "s" {
  name          = "evts"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a4.partition_id]
}
`)
	cli.must("apply", "-auto-approve", "-input=false", "-no-color", "-target=gke_subblock_node_pool.sub-block-a4")
	failed := func() int {
		accFaults(t, sandbox.Faults{FailSliceFormations: 1})
		out, err := cli.run("apply", "-auto-approve", "-input=false", "-no-color")
		if err == nil || !strings.Contains(out, "Events:") {
			t.Fatalf("apply: %v, want a formation failure with the slice's events:\n%s", err, out)
		}
		return strings.Count(out, "Warning "+sandbox.ReasonFailed)
	}
	first := failed()
	second := failed() // the tainted slice is replaced: a new Slice of the same name
	if first == 0 || second != first {
		t.Errorf("the first failure listed %d failure events, the second %d: want the same, its own", first, second)
	}
}

// A stack that takes its sub-blocks from gke_reservation_sub_blocks ("free,
// or ours", as the slice-stack module does) keeps a pool whose create was
// interrupted. The pool's sub-block is in use and has no nodes yet; the
// data source names the pool from GKE's node pool list, so the next plan
// finishes the pool rather than dropping its sub-block and destroying it.
func TestAccInterruptedPoolKeepsItsSubBlock(t *testing.T) {
	needSandboxControl(t, "an operation the sandbox delays so that terraform can be interrupted, and its operations log")
	cli := cliWorkspace(t, accSandbox.ProviderConfig(), `
resource "gke_workload_policy" "p" {
  name = "`+accName("unfin")+`-policy"
}

data "gke_reservation_sub_blocks" "a" {
  zone              = "us-central1-a"
  reservation       = "tpu7x-reservation"
  reservation_block = "block-a"
}

locals {
  ours = [for s in data.gke_reservation_sub_blocks.a.sub_blocks : s.name
    if s.name == "sub-block-a3" && (s.free || startswith(s.node_pool, "`+accName("unfin")+`-"))]
}

resource "gke_subblock_node_pool" "pool" {
  for_each              = toset(local.ours)
  name                  = "`+accName("unfin")+`-${each.key}"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = each.key
}

output "node_pool" {
  value = one([for s in data.gke_reservation_sub_blocks.a.sub_blocks : s.node_pool if s.name == "sub-block-a3"])
}
`)
	apply := []string{"apply", "-auto-approve", "-input=false", "-no-color"}
	accFaults(t, sandbox.Faults{OperationDelayMs: 15000})
	pool := "nodePools/" + poolName("unfin", "sub-block-a3")
	before := operations("CREATE_NODE_POOL", pool)
	out := cli.interruptWhen(func() bool { return operations("CREATE_NODE_POOL", pool) > before }, apply...)
	if !strings.Contains(out, "Node Pool Create Interrupted") {
		t.Fatalf("the interrupted apply did not say the pool is kept:\n%s", out)
	}
	plan := cli.must("plan", "-input=false", "-no-color")
	if strings.Contains(plan, "will be destroyed") || !strings.Contains(plan, "0 to destroy") || !strings.Contains(plan, "Node Pool Not Finished") {
		t.Errorf("the plan after the interrupted create does not keep and finish the pool:\n%s", plan)
	}
	if !strings.Contains(plan, `-> "`+poolName("unfin", "sub-block-a3")+`"`) {
		t.Errorf("the data source does not name the unfinished pool on its sub-block:\n%s", plan)
	}
	cli.must(apply...)
	if n := operations("CREATE_NODE_POOL", pool) - before; n != 1 {
		t.Errorf("%d node pool creates, want 1: the pool was recreated", n)
	}
}
