package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// killedPoolCreate creates, out of band, a pool (name, on the target
// sub-block of block), and leaves it as an apply killed with SIGKILL right
// after GKE accepted it does: provisioning, in no state. It returns a
// func that deletes it (once its create has finished: a pool deleted while
// provisioning may leave nodes behind), also called when the test ends.
func killedPoolCreate(t *testing.T, name, policy, block, target string) func() {
	t.Helper()
	e := accEngine(t)
	i := accSandbox.Info()
	spec := nodepool.Spec{
		Project: i.Project, Location: i.Region, Cluster: i.Cluster, Name: name, Policy: policy,
		Target:      reservation.Target{Project: i.Project, Zone: i.Zone, Reservation: "tpu7x-reservation", Block: block, SubBlock: target},
		MachineType: topology.MachineType, NodeCount: topology.HostsPerPartition, AutoRepair: true, WaitFor: nodepool.WaitLabelled,
	}
	ctx, kill := context.WithCancel(context.Background())
	if _, err := e.NodePools().Create(ctx, spec, func(string) { kill() }); ctx.Err() == nil {
		t.Fatalf("the out-of-band create of %s was not cut short after GKE accepted it: %v", name, err)
	}
	deleted := false
	remove := func() {
		if deleted {
			return
		}
		deleted = true
		e := accEngine(t)
		if _, err := e.NodePools().Resume(context.Background(), spec); err != nil && !errors.Is(err, kernel.ErrNotFound) {
			t.Logf("the out-of-band pool %s did not finish: %v", name, err)
		}
		if err := e.NodePools().Delete(context.Background(), spec.ID()); err != nil {
			t.Errorf("deleting the out-of-band pool %s: %v", name, err)
		}
	}
	t.Cleanup(remove)
	return remove
}

// A pool that an apply killed with SIGKILL left provisioning outside the
// state, and that matches the configuration, is adopted by the next apply
// (not created again, and the plan after it is empty); one that differs
// fails the create with the terraform import command; and a sub-block held
// by another pool still PROVISIONING names that pool.
func TestAccAdoptNodePoolLeftByKilledApply(t *testing.T) {
	needSandboxControl(t, "faults that hold the node pool operation while the apply is killed")
	policy := "resource \"gke_workload_policy\" \"p\" {\n  name = \"adopt-policy\"\n}\n"
	adopted := slicePools("adopt", "tpu7x-reservation", "block-b", "sub-block-b1")
	differs := slicePools("adopt", "tpu7x-reservation", "block-b", "sub-block-b4")
	i := accSandbox.Info()
	poolID := func(name string) string {
		return fmt.Sprintf("projects/%s/locations/%s/clusters/%s/nodePools/%s", i.Project, i.Region, i.Cluster, name)
	}
	creates := 0
	var removeDiffering, removeSquatter func()
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []tfresource.TestStep{
			{Config: accConfig(policy)},
			{
				// Killed while GKE provisions it: it holds its sub-block.
				PreConfig: func() {
					accFaults(t, sandbox.Faults{OperationDelayMs: 3000})
					creates = operations("CREATE_NODE_POOL", "nodePools/adopt-sub-block-b1")
					killedPoolCreate(t, "adopt-sub-block-b1", "adopt-policy", "block-b", "sub-block-b1")
				},
				Config: accConfig(adopted),
				Check: tfresource.ComposeTestCheckFunc(
					tfresource.TestCheckResourceAttr("gke_subblock_node_pool.sub-block-b1", "id", poolID("adopt-sub-block-b1")),
					tfresource.TestCheckResourceAttr("gke_subblock_node_pool.sub-block-b1", "status", "RUNNING"),
					func(*terraform.State) error {
						if n := operations("CREATE_NODE_POOL", "nodePools/adopt-sub-block-b1") - creates; n != 1 {
							return fmt.Errorf("%d creates of the pool, want 1 (the killed apply's): it was created again", n)
						}
						return nil
					},
				),
			},
			{
				// Another pool of that name, on another sub-block.
				PreConfig: func() {
					removeDiffering = killedPoolCreate(t, "adopt-sub-block-b4", "adopt-policy", "block-b", "sub-block-b3")
				},
				Config: accConfig(adopted + differs[len(policy):]),
				ExpectError: wrapped("Node Pool Name Taken", "Node pool "+poolID("adopt-sub-block-b4")+" already exists",
					`its reservation target is "projects/sandbox-project/reservations/tpu7x-reservation/reservationBlocks/block-b/reservationSubBlocks/sub-block-b3"`,
					`(configuration: "projects/sandbox-project/reservations/tpu7x-reservation/reservationBlocks/block-b/reservationSubBlocks/sub-block-b4")`,
					"terraform import gke_subblock_node_pool.<resource name> "+poolID("adopt-sub-block-b4")),
			},
			{
				// Another pool, still PROVISIONING, holds the sub-block.
				PreConfig: func() {
					accFaults(t, sandbox.Faults{OperationDelayMs: 8000})
					removeSquatter = killedPoolCreate(t, "adopt-squatter", "adopt-policy", "block-b", "sub-block-b2")
				},
				Config:      accConfig(adopted + slicePools("adopt", "tpu7x-reservation", "block-b", "sub-block-b2")[len(policy):]),
				ExpectError: wrapped(`reservation sub-block "sub-block-b2" of block "block-b" is already in use by node pool adopt-squatter (PROVISIONING)`),
			},
			{
				// The pools made out of band use the policy: gone before
				// the destroy.
				PreConfig: func() {
					accSandbox.SetFaults(sandbox.Faults{})
					removeDiffering()
					removeSquatter()
				},
				Config: accConfig(adopted),
			},
		},
	})
}

// A Slice that an apply killed with SIGKILL left outside the state, and
// that matches the configuration (the listed partitions, or partitions
// that satisfy the selector), is adopted by the next apply: the same Slice
// (UID), and an empty plan after it. One that differs fails the create
// with the terraform import command.
func TestAccAdoptSliceLeftByKilledApply(t *testing.T) {
	needSandboxControl(t, "faults that hold the slice while the apply is killed")
	pools := slicePools("adopts", "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2")
	listed := `
resource "gke_tpu_slice" "listed" {
  name          = "adopts-listed"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a1.partition_id]
}
`
	selected := `
resource "gke_tpu_slice" "selected" {
  name     = "adopts-selected"
  topology = "4x4x4"
  partition_selector {
    node_pools = [gke_subblock_node_pool.sub-block-a2.name]
  }
}
`
	differs := `
resource "gke_tpu_slice" "differs" {
  name          = "adopts-differs"
  topology      = "4x4x4"
  partition_ids = ["11111111111111111111111111111111"]
}
`
	i := accSandbox.Info()
	partitionOf := func(pool string) string {
		p, err := accEngine(t).NodePools().Read(context.Background(), fmt.Sprintf("projects/%s/locations/%s/clusters/%s/nodePools/%s", i.Project, i.Region, i.Cluster, pool))
		if err != nil || p.PartitionID == "" {
			t.Fatalf("pool %s: %+v, %v", pool, p, err)
		}
		return p.PartitionID
	}
	uids := map[string]string{}
	// killedSliceCreate leaves the Slice as a killed apply does: created,
	// forming, in no state.
	killedSliceCreate := func(name string, ids ...string) {
		ctx, kill := context.WithCancel(context.Background())
		_, err := accEngine(t).Slices().CreateSlice(ctx, tpuslice.SliceRequest{Name: name, Type: topology.SliceType, Topology: "4x4x4", PartitionIDs: ids}, func([]string) { kill() })
		if ctx.Err() == nil {
			t.Fatalf("the out-of-band create of Slice %s was not cut short: %v", name, err)
		}
		s, err := accEngine(t).Slices().ReadSlice(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		uids[name] = s.UID
	}
	sameSlice := func(name string) tfresource.TestCheckFunc {
		return func(*terraform.State) error {
			s, err := accEngine(t).Slices().ReadSlice(context.Background(), name)
			if err != nil || s.UID != uids[name] || s.State != clusterread.SliceActive {
				return fmt.Errorf("Slice %s is %+v (%v), want the out-of-band one (UID %s) ACTIVE", name, s, err, uids[name])
			}
			return nil
		}
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools)},
			{
				PreConfig: func() {
					accFaults(t, sandbox.Faults{SliceActivationDelayMs: 2000})
					killedSliceCreate("adopts-listed", partitionOf("adopts-sub-block-a1"))
					killedSliceCreate("adopts-selected", partitionOf("adopts-sub-block-a2"))
				},
				Config: accConfig(pools + listed + selected),
				Check: tfresource.ComposeTestCheckFunc(sameSlice("adopts-listed"), sameSlice("adopts-selected"),
					tfresource.TestCheckResourceAttr("gke_tpu_slice.selected", "state", clusterread.SliceActive)),
			},
			{
				PreConfig: func() {
					killedSliceCreate("adopts-differs", "00000000000000000000000000000000")
					t.Cleanup(func() {
						if _, err := accEngine(t).Slices().DeleteSlice(context.Background(), "adopts-differs", true); err != nil {
							t.Errorf("deleting the out-of-band Slice: %v", err)
						}
					})
				},
				Config: accConfig(pools + listed + selected + differs),
				ExpectError: wrapped("Slice Name Taken", "Slice adopts-differs already exists",
					"its partitions are 00000000000000000000000000000000 (configuration: 11111111111111111111111111111111)",
					"terraform import gke_tpu_slice.<resource name> adopts-differs"),
			},
		},
	})
}

// killWhen runs terraform with args and kills it with SIGKILL once ready
// says so, as an apply killed by the OOM killer or a CI runner ends: no
// chance to record anything. It returns the output up to the kill.
func (c *terraformCLI) killWhen(ready func() bool, args ...string) string {
	c.t.Helper()
	r := c.startUntil(ready, "killed", args...)
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		c.t.Fatal(err)
	}
	if err := <-r.done; err == nil {
		c.t.Fatalf("terraform %s was killed, but exited 0:\n%s", args[0], r.out.String())
	}
	return r.out.String()
}

// An apply killed with SIGKILL while GKE provisions a pool leaves the pool
// outside the state; the next apply adopts it, says so, and creates
// nothing again; the plan after it is empty.
func TestAccAdoptNodePoolAfterSIGKILL(t *testing.T) {
	needSandboxControl(t, "faults that hold the node pool operation while terraform is killed")
	policy := "resource \"gke_workload_policy\" \"p\" {\n  name = \"killed-policy\"\n}\n"
	cli := cliWorkspace(t, accSandbox.ProviderConfig(), policy)
	apply := []string{"apply", "-auto-approve", "-input=false", "-no-color"}
	cli.must(apply...)

	accFaults(t, sandbox.Faults{OperationDelayMs: 4000})
	cli.write(accSandbox.ProviderConfig() + slicePools("killed", "tpu7x-reservation-2", "block-c", "sub-block-c1"))
	pool := "nodePools/killed-sub-block-c1"
	before := operations("CREATE_NODE_POOL", pool)
	cli.killWhen(func() bool { return operations("CREATE_NODE_POOL", pool) > before }, apply...)
	if show := cli.must("state", "list"); strings.Contains(show, "gke_subblock_node_pool") {
		t.Fatalf("the killed apply recorded the pool; the test needs one it did not record:\n%s", show)
	}

	// The killed terraform left its state lock behind.
	out := cli.must(append(apply, "-lock=false")...)
	if !strings.Contains(out, "Existing Node Pool Adopted") || !strings.Contains(out, "killed-sub-block-c1") {
		t.Errorf("the apply after the kill did not say it adopted the pool:\n%s", out)
	}
	if n := operations("CREATE_NODE_POOL", pool) - before; n != 1 {
		t.Errorf("%d creates of the pool, want 1 (the killed apply's)", n)
	}
	if out, err := cli.run("plan", "-input=false", "-no-color", "-detailed-exitcode", "-lock=false"); err != nil {
		t.Errorf("the plan after the adoption is not empty: %v\n%s", err, out)
	}
}
