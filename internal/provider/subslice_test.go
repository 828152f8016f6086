package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// labelledNodes counts the nodes the slice controller labelled with the slice.
func labelledNodes(t *testing.T, slice string) int {
	t.Helper()
	n, err := accNodeCount(t, wellknown.LabelSlice+"="+slice)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Every sub-slice shape forms ACTIVE in one sub-block, side by side,
// chosen by a selector, with its workload wiring; gke_partitions reports
// the sub-partitions, what holds them and the one 2x2x1 left.
func TestAccTPUSlice_subSlices(t *testing.T) {
	needTarget(t)
	pools := slicePools("subs", "tpu7x-reservation", "block-a", "sub-block-a1")
	config := pools
	for _, shape := range topology.SubSliceShapes {
		config += subSlice("s"+shape, "serve-"+shape, shape, "sub-block-a1")
	}
	withData := config + `
data "gke_partitions" "free" {
  shape          = "2x2x1"
  node_pools     = [gke_subblock_node_pool.sub-block-a1.name]
  available_only = true
}

data "gke_partitions" "whole" {
  node_pools = [gke_subblock_node_pool.sub-block-a1.name]
}

data "gke_partitions" "halves" {
  shape      = "2x4x4"
  node_pools = [gke_subblock_node_pool.sub-block-a1.name]
}
`
	checks := []statecheck.StateCheck{}
	for _, shape := range topology.SubSliceShapes {
		topo, _ := topology.ParseTPU7x(shape)
		r := "gke_tpu_slice.s" + shape
		checks = append(checks,
			statecheck.ExpectKnownValue(r, tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
			statecheck.ExpectKnownValue(r, tfjsonpath.New("hosts"), knownvalue.Int64Exact(int64(topo.Hosts()))),
			statecheck.ExpectKnownValue(r, tfjsonpath.New("accelerator_type"), knownvalue.StringExact(topo.AcceleratorType())),
			statecheck.ExpectKnownValue(r, tfjsonpath.New("partition_ids"), knownvalue.ListSizeExact(1)),
			statecheck.ExpectKnownValue(r, tfjsonpath.New("node_selector").AtMapKey(wellknown.LabelSliceTopology), knownvalue.StringExact(shape)),
			statecheck.ExpectKnownValue(r, tfjsonpath.New("pod_annotations").AtMapKey(wellknown.AnnotationSliceTopology), knownvalue.StringExact(shape)))
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config:            accConfig(config),
				ConfigStateChecks: checks,
				Check: func(*terraform.State) error {
					parent := ""
					for _, shape := range topology.SubSliceShapes {
						name := accName("serve-" + shape)
						p := slicePartition(t, name, shape)
						if parent != "" && p.Parent != parent {
							return fmt.Errorf("%s is in sub-block %s, the others in %s", name, p.Parent, parent)
						}
						parent = p.Parent
						if got, want := labelledNodes(t, name), topology.HostsOfShape(shape); got != want {
							return fmt.Errorf("%d nodes labelled %s, want %d", got, name, want)
						}
					}
					return nil
				},
			},
			{
				Config: accConfig(withData),
				ConfigStateChecks: []statecheck.StateCheck{
					// 1 + 2 + 4 + 8 hosts are held: one 2x2x1 is left.
					statecheck.ExpectKnownValue("data.gke_partitions.free", tfjsonpath.New("ids"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue("data.gke_partitions.whole", tfjsonpath.New("partitions").AtSliceIndex(0).AtMapKey("held"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("data.gke_partitions.halves", tfjsonpath.New("partitions"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue("data.gke_partitions.halves", tfjsonpath.New("partitions").AtSliceIndex(0).AtMapKey("held"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("data.gke_partitions.halves", tfjsonpath.New("partitions").AtSliceIndex(1).AtMapKey("held"), knownvalue.Bool(true)),
				},
				Check: tfresource.ComposeAggregateTestCheckFunc(
					tfresource.TestCheckResourceAttrPair("data.gke_partitions.whole", "partitions.0.parent_partition_id", "gke_subblock_node_pool.sub-block-a1", "partition_id"),
					tfresource.TestCheckResourceAttrPair("data.gke_partitions.halves", "partitions.0.parent_partition_id", "gke_subblock_node_pool.sub-block-a1", "partition_id"),
					tfresource.TestCheckResourceAttr("data.gke_partitions.free", "partitions.0.shape", "2x2x1"),
					tfresource.TestCheckResourceAttr("data.gke_partitions.free", "partitions.0.held", "false"),
					tfresource.TestCheckResourceAttr("data.gke_partitions.free", "partitions.0.nodes", "1"),
				),
			},
		},
	})
}

// A slice over a partition that overlaps a held one is refused. When the
// holder is a slice of the same configuration, at plan ("Partition
// Claimed Twice", naming it); when it is outside the configuration, a plan
// warning, then the create fails before any Slice is made; the slice
// controller refuses it too (when the plan could not know).
func TestAccTPUSlice_subSliceOverlapRefused(t *testing.T) {
	needTarget(t)
	pools := slicePools("ovl", "tpu7x-reservation", "block-a", "sub-block-a2")
	serve := subSlice("serve", "ovl-serve", "2x2x2", "sub-block-a2")
	servName, train, direct := accName("ovl-serve"), accName("ovl-train"), accName("ovl-direct")
	cli := cliWorkspace(t, accProviderConfig(), pools+serve)
	cli.must("apply", "-auto-approve", "-input=false", "-no-color")
	held := slicePartition(t, servName, "2x2x2")
	trainConfig := `
resource "gke_tpu_slice" "train" {
  name          = "` + train + `"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a2.partition_id]
}
`
	// The holder in the same configuration: refused at plan.
	cli.write(accProviderConfig() + accTarget.translate(pools+serve+trainConfig))
	out, err := cli.run("plan", "-input=false", "-no-color")
	out = strings.Join(strings.Fields(out), " ")
	// Whichever of the two is planned second is refused, naming the other.
	if err == nil || !strings.Contains(out, "Error: Partition Claimed Twice") ||
		!strings.Contains(out, "slice \""+servName+"\"") || !strings.Contains(out, "slice \""+train+"\"") {
		t.Fatalf("plan with both slices: %v, want it refused naming %s and %s:\n%s", err, servName, train, out)
	}

	// The holder outside the configuration (as a slice another team's
	// state, kubectl or xpk made): a warning at plan, refused at apply.
	cli.must("state", "rm", "gke_tpu_slice.serve")
	t.Cleanup(func() {
		// Back under Terraform (import by name), for the workspace's
		// destroy, which runs after this.
		cli.write(accProviderConfig() + accTarget.translate(pools+serve))
		if out, err := cli.run("import", "-input=false", "-no-color", "gke_tpu_slice.serve", servName); err != nil {
			t.Errorf("import of %s for the destroy: %v\n%s", servName, err, out)
		}
	})
	cli.write(accProviderConfig() + accTarget.translate(pools+trainConfig))
	// Terraform wraps diagnostics: compare with the spaces folded.
	out = strings.Join(strings.Fields(cli.must("plan", "-input=false", "-no-color")), " ")
	for _, want := range []string{"Warning: Partitions Cannot Be Used", "overlaps partition " + held.ID + ", which slice " + servName + " holds", "Creating this slice will be refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan does not say %q:\n%s", want, out)
		}
	}
	out, err = cli.run("apply", "-auto-approve", "-input=false", "-no-color")
	out = strings.Join(strings.Fields(out), " ")
	if err == nil || !strings.Contains(out, "Error: Slice Cannot Be Formed") || !strings.Contains(out, "which slice "+servName+" holds") {
		t.Fatalf("apply: %v, want it refused:\n%s", err, out)
	}
	if _, err := accEngine(t).Slices().ReadSlice(context.Background(), train); err == nil {
		t.Errorf("Slice %s was created", train)
	}
	if state := cli.must("state", "list"); strings.Contains(state, "gke_tpu_slice.train") {
		t.Errorf("the refused slice is in the state:\n%s", state)
	}
	// The controller refuses the same overlap when it comes to it.
	obj := sliceObject(direct, "4x4x4", held.Parent)
	slices := accKubeSlices(t)
	if _, err := slices.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = slices.Delete(context.Background(), direct, metav1.DeleteOptions{}) })
	awaitSliceState(t, direct, clusterread.SliceCreationFailed)
	s, err := accEngine(t).Slices().ReadSlice(context.Background(), direct)
	if err != nil || !strings.Contains(s.Message, "are used by slice "+servName+" (its partition "+held.ID+" overlaps this one)") {
		t.Errorf("controller message %q, %v", s.Message, err)
	}
}

// Sub-slices pack best-fit: the second goes into the sub-block the first
// broke, and a 4x4x4 slice then still finds a whole sub-block.
func TestAccTPUSlice_subSlicePacking(t *testing.T) {
	needTarget(t)
	pools := slicePools("pack", "tpu7x-reservation", "block-a", "sub-block-a3", "sub-block-a4")
	first := pools + subSlice("first", "pack-first", "2x2x2", "sub-block-a3", "sub-block-a4")
	second := first + subSlice("second", "pack-second", "2x2x1", "sub-block-a3", "sub-block-a4") +
		subSlice("third", "pack-third", "2x4x4", "sub-block-a3", "sub-block-a4")
	whole := second + `
resource "gke_tpu_slice" "train" {
  name     = "` + accName("pack-train") + `"
  topology = "4x4x4"
  partition_selector {
    node_pools = [gke_subblock_node_pool.sub-block-a3.name, gke_subblock_node_pool.sub-block-a4.name]
  }
}
`
	var broken string
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: accConfig(first),
				Check: func(*terraform.State) error {
					broken = slicePartition(t, accName("pack-first"), "2x2x2").Parent
					return nil
				},
			},
			{
				Config: accConfig(second),
				Check: func(*terraform.State) error {
					for _, s := range []struct{ name, shape string }{{accName("pack-second"), "2x2x1"}, {accName("pack-third"), "2x4x4"}} {
						if p := slicePartition(t, s.name, s.shape); p.Parent != broken {
							return fmt.Errorf("%s went to sub-block %s, not to %s which pack-first broke", s.name, p.Parent, broken)
						}
					}
					return nil
				},
			},
			{
				Config: accConfig(whole),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.train", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
				},
				Check: func(*terraform.State) error {
					if p := slicePartition(t, accName("pack-train"), "4x4x4"); p.ID == broken {
						return fmt.Errorf("the 4x4x4 slice got the broken sub-block")
					}
					return nil
				},
			},
			// Stable: the selections are kept, nothing changes.
			{Config: accConfig(whole), PlanOnly: true},
		},
	})
}

// Sub-partitions have their own health: on a sub-block with a missing
// host (its 4x4x4 INCOMPLETE), sub-slices form on the healthy hosts; a
// sub-slice whose host fails is FAILED, planned for replacement, and
// converges once the host is repaired.
func TestAccTPUSlice_subSliceHealth(t *testing.T) {
	needSandboxControl(t, "host health set by the test")
	pools := slicePools("sick", "tpu7x-reservation", "block-b", "sub-block-b3") // host 11 UNHEALTHY: no node
	config := pools + subSlice("half", "sick-half", "2x4x4", "sub-block-b3") + subSlice("quarter", "sick-quarter", "2x2x4", "sub-block-b3") + `
data "gke_partitions" "pairs" {
  shape      = "2x2x2"
  node_pools = [gke_subblock_node_pool.sub-block-b3.name]
}
`
	setHealth := func(host int, health string) {
		if err := accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-b", "sub-block-b3", host, health); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { setHealth(2, sandbox.HostHealthy) })
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: accConfig(config),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_subblock_node_pool.sub-block-b3", tfjsonpath.New("partition_state"), knownvalue.StringExact("INCOMPLETE")),
					statecheck.ExpectKnownValue("gke_tpu_slice.half", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
					statecheck.ExpectKnownValue("gke_tpu_slice.quarter", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
				},
				Check: func(*terraform.State) error {
					// Hosts 0-7 and 12-15: the halves and quarters without host 11.
					half, quarter := slicePartition(t, "sick-half", "2x4x4"), slicePartition(t, "sick-quarter", "2x2x4")
					if half.Nodes != 8 || quarter.Nodes != 4 || half.State != "HEALTHY" || quarter.State != "HEALTHY" {
						return fmt.Errorf("half %+v quarter %+v", half, quarter)
					}
					return nil
				},
			},
			{
				Config: accConfig(config),
				Check: tfresource.ComposeAggregateTestCheckFunc(
					tfresource.TestCheckResourceAttr("data.gke_partitions.pairs", "totals.HEALTHY", "7"),
					tfresource.TestCheckResourceAttr("data.gke_partitions.pairs", "totals.INCOMPLETE", "1"),
				),
			},
			{
				PreConfig: func() {
					setHealth(2, sandbox.HostUnhealthy)
					awaitSliceState(t, "sick-half", clusterread.SliceFailed)
					setHealth(2, sandbox.HostHealthy)
				},
				Config: accConfig(config),
				ConfigPlanChecks: tfresource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("gke_tpu_slice.half", plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectResourceAction("gke_tpu_slice.quarter", plancheck.ResourceActionNoop),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.half", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
				},
			},
		},
	})
}

// A cluster older than a slice family's first version fails the plan,
// naming both versions.
func TestAccTPUSlice_versionGate(t *testing.T) {
	needSandboxControl(t, "the cluster version set by the test")
	t.Cleanup(func() { accSandbox.SetClusterVersion(sandbox.DefaultClusterVersion) })
	pools := slicePools("gate", "tpu7x-reservation", "block-b", "sub-block-b4")
	sub := pools + subSlice("s", "gate-sub", "2x2x2", "sub-block-b4")
	super := pools + subSlice("s", "gate-super", "4x4x4", "sub-block-b4")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				PreConfig:   func() { accSandbox.SetClusterVersion("1.35.4-gke.1000000") },
				Config:      accConfig(sub),
				PlanOnly:    true,
				ExpectError: wrapped("Cluster Version Too Old", "a sub-slice needs GKE 1.36.0-gke.3712000 or later, but the cluster runs 1.35.4-gke.1000000"),
			},
			{
				// A super-slice forms on 1.35.4.
				Config: accConfig(super),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
				},
			},
			{
				PreConfig:   func() { accSandbox.SetClusterVersion("1.35.1-gke.1") },
				Config:      accConfig(sub),
				ExpectError: wrapped("a sub-slice needs GKE 1.36.0-gke.3712000 or later, but the cluster runs 1.35.1-gke.1"),
			},
			{
				PreConfig: func() { accSandbox.SetClusterVersion(sandbox.DefaultClusterVersion) },
				Config:    accConfig(sub),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
				},
			},
		},
	})
}

func sliceObject(name, topo string, ids ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "accelerator.gke.io/v1beta1",
		"kind":       "Slice",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"type": "tpu7x", "topology": topo},
	}}
	_ = unstructured.SetNestedStringSlice(u.Object, ids, "spec", "partitionIds")
	return u
}
