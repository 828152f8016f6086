package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// unwrapped is terraform's output as one line of words: its boxes' rules
// and line breaks gone, so that a message can be found whole.
func unwrapped(out string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " ")
}

// refusedWhileAtWork runs an apply in workspace b while the apply a runs,
// and checks that it is refused with summary, naming a's workspace (where
// its provider runs), and that a then succeeds.
func refusedWhileAtWork(t *testing.T, a, b *terraformCLI, running runningTerraform, summary, object string) {
	t.Helper()
	out, err := b.run("apply", "-auto-approve", "-input=false", "-no-color")
	flat := unwrapped(out)
	if err == nil || !strings.Contains(flat, summary) || !strings.Contains(flat, object+" is being created at this moment by another run") ||
		!strings.Contains(flat, "workspace "+a.dir) {
		t.Errorf("the second workspace's apply, made while the first creates %s: %v, want it refused (%s) naming the first:\n%s", object, err, summary, out)
	}
	if err := <-running.done; err != nil {
		t.Fatalf("the first workspace's apply: %v\n%s", err, running.out.String())
	}
	if show := b.must("state", "list"); strings.Contains(show, "gke_subblock_node_pool") || strings.Contains(show, "gke_tpu_slice") {
		t.Errorf("the refused workspace recorded %s:\n%s", object, show)
	}
}

// Two workspaces (two terraform runs, two provider processes) that create
// the same node pool, then the same Slice, at once: the first creates it,
// the second is refused while the first is at work (it does not adopt it,
// which would give the object two states, either of whose destroy would
// delete it from under the other), and only the first records it.
func TestAccConcurrentCreatesOfOneName(t *testing.T) {
	needSandboxControl(t, "operations and slice activations the sandbox delays so that two applies overlap, and its operations log")
	prefix := accName("owner")
	pools := slicePools("owner", "tpu7x-reservation", "block-a", "sub-block-a1")
	a := cliWorkspace(t, accSandbox.ProviderConfig(), pools)
	pool := poolName("owner", "sub-block-a1")
	poolConfig := fmt.Sprintf(`
resource "gke_subblock_node_pool" "sub-block-a1" {
  name                  = %q
  zone                  = "us-central1-a"
  workload_policy       = %q
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a1"
}
`, pool, prefix+"-policy")
	b := cliWorkspace(t, accSandbox.ProviderConfig(), poolConfig)
	apply := []string{"apply", "-auto-approve", "-input=false", "-no-color"}

	accFaults(t, sandbox.Faults{OperationDelayMs: 8000})
	before := operations("CREATE_NODE_POOL", "nodePools/"+pool)
	running := a.startUntil(func() bool { return operations("CREATE_NODE_POOL", "nodePools/"+pool) > before }, "overlapped", apply...)
	refusedWhileAtWork(t, a, b, running, "Node Pool Being Created Elsewhere", "node pool "+a.poolID(pool))
	if n := operations("CREATE_NODE_POOL", "nodePools/"+pool) - before; n != 1 {
		t.Errorf("%d creates of the pool, want 1", n)
	}

	p, err := accEngine(t).NodePools().Read(context.Background(), a.poolID(pool))
	if err != nil || p.PartitionID == "" {
		t.Fatalf("the first workspace's pool: %+v, %v", p, err)
	}
	slice := fmt.Sprintf(`
resource "gke_tpu_slice" "s" {
  name          = %q
  topology      = "4x4x4"
  partition_ids = [%q]
}
`, prefix, p.PartitionID)
	accFaults(t, sandbox.Faults{SliceActivationDelayMs: 8000})
	a.write(accSandbox.ProviderConfig() + pools + slice)
	b.write(accSandbox.ProviderConfig() + slice)
	e := accEngine(t)
	var uid string
	running = a.startUntil(func() bool {
		s, err := e.Slices().ReadSlice(context.Background(), prefix)
		if err == nil && s.State == clusterread.SliceActivating {
			uid = s.UID
			return true
		}
		return false
	}, "overlapped", apply...)
	refusedWhileAtWork(t, a, b, running, "Slice Being Created Elsewhere", "Slice "+prefix)
	if s, err := accEngine(t).Slices().ReadSlice(context.Background(), prefix); err != nil || s.UID != uid || s.State != clusterread.SliceActive {
		t.Errorf("the Slice is %+v (%v), want the first workspace's (UID %s) ACTIVE", s, err, uid)
	}
}

// poolID is the full ID of the sandbox's pool name.
func (c *terraformCLI) poolID(name string) string {
	i := accSandbox.Info()
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s/nodePools/%s", i.Project, i.Region, i.Cluster, name)
}

// A pool of the configuration's name whose resource labels differ (made
// out of band, or by another configuration) is not adopted: the create
// fails saying what differs. Before, it was adopted and the apply ended in
// "Provider produced inconsistent result".
func TestAccAdoptNodePoolComparesLabels(t *testing.T) {
	needSandboxControl(t, "a node pool made out of band through the engine, beside the configuration's")
	policy := slicePools("lbl", "tpu7x-reservation", "block-a")
	cli := cliWorkspace(t, accSandbox.ProviderConfig(), policy)
	apply := []string{"apply", "-auto-approve", "-input=false", "-no-color"}
	cli.must(apply...)
	i := accSandbox.Info()
	spec := nodepool.Spec{
		Project: i.Project, Location: i.Region, Cluster: i.Cluster, Name: poolName("lbl", "sub-block-a4"), Policy: accName("lbl") + "-policy",
		Target:      reservation.Target{Project: i.Project, Zone: i.Zone, Reservation: "tpu7x-reservation", Block: "block-a", SubBlock: "sub-block-a4"},
		MachineType: topology.MachineType, NodeCount: topology.HostsPerPartition, AutoRepair: true, WaitFor: nodepool.WaitLabelled,
		ResourceLabels: map[string]string{"team": "infra"},
	}
	e := accEngine(t)
	if _, err := e.NodePools().Create(context.Background(), spec, func(string) {}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // before the workspace's destroy, which deletes the policy
		if err := accEngine(t).NodePools().Delete(context.Background(), spec.ID()); err != nil {
			t.Errorf("deleting the out-of-band pool: %v", err)
		}
	})
	cli.write(accSandbox.ProviderConfig() + slicePools("lbl", "tpu7x-reservation", "block-a", "sub-block-a4"))
	out, err := cli.run(apply...)
	flat := unwrapped(out)
	if err == nil || !strings.Contains(flat, "Node Pool Name Taken") || !strings.Contains(flat, "its resource labels are {team=infra} (configuration: {})") {
		t.Errorf("apply beside a pool of other resource labels: %v, want Node Pool Name Taken saying the labels differ:\n%s", err, out)
	}
}
