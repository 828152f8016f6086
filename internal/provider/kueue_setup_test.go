package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// poolsOnSubBlocks is a workload policy and a pool on each sub-block of
// tpu7x-reservation ("sub-block-a1" is in block-a), named
// poolName(prefix, sub-block), each the resource
// gke_subblock_node_pool.<sub-block>.
func poolsOnSubBlocks(prefix string, subBlocks ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "resource \"gke_workload_policy\" \"p\" {\n  name = %q\n}\n", accName(prefix)+"-policy")
	for _, s := range subBlocks {
		block := "block-" + strings.TrimPrefix(s, "sub-block-")[:1]
		fmt.Fprintf(&b, `
resource "gke_subblock_node_pool" %q {
  name                  = %q
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation"
  reservation_block     = %q
  reservation_sub_block = %q
}
`, s, poolName(prefix, s), block, s)
	}
	return b.String()
}

// kueueSetUp is gke_kueue_slicing.k named kueueName() over the pools of
// the sub-blocks, with the namespaces and more attributes (body).
func kueueSetUp(subBlocks, namespaces []string, body string) string {
	refs := make([]string, len(subBlocks))
	for i, s := range subBlocks {
		refs[i] = fmt.Sprintf("gke_subblock_node_pool.%s.name", s)
	}
	ns, _ := json.Marshal(namespaces)
	return fmt.Sprintf(`
resource "gke_kueue_slicing" "k" {
  name       = %q
  node_pools = [%s]
  namespaces = %s
  %s
}
`, kueueName(), strings.Join(refs, ", "), ns, body)
}

// stripNodeLabel removes a label from every node of a pool, as a node pool
// whose nodes GKE did not label for topology would lack it.
func stripNodeLabel(t *testing.T, pool, label string) {
	t.Helper()
	kube, err := kubernetes.NewForConfig(accRESTConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + pool})
	if err != nil || len(nodes.Items) == 0 {
		t.Fatalf("nodes of %s: %d, %v", pool, len(nodes.Items), err)
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, label)
	for _, n := range nodes.Items {
		if _, err := kube.CoreV1().Nodes().Patch(context.Background(), n.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// Wrong Kueue set-ups fail at plan, naming the rule, the numbers and what
// to write: workload topologies that the pools (two in block-a, one in
// block-b) cannot hold, a sub-slice without sub-slicing, a namespace that
// does not exist, and a pool whose nodes lack a level of the Topology. A
// good set-up applies, with a ResourceFlavor that tolerates the TPU
// taint. A problem that the cluster made under an unchanged configuration
// does not fail the plan (nor the destroy after it).
func TestAccKueueSlicing_wrongSetUpAtPlan(t *testing.T) {
	needSandboxInventory(t, "pools in two blocks of one reservation, block-a and block-b")
	teamS := createNamespace(t, "team-s")
	subBlocks := []string{"sub-block-a1", "sub-block-a2", "sub-block-b1"}
	pools := poolsOnSubBlocks("kqs", subBlocks...)
	team := []string{teamS}
	good := accConfig(pools + kueueSetUp(subBlocks, team, `workload_topologies = ["4x4x8", "2x2x2"]`))
	planError := func(config string, texts ...string) tfresource.TestStep {
		return tfresource.TestStep{Config: accConfig(pools + config), PlanOnly: true, ExpectError: wrapped(texts...)}
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkKueueGone(t, teamS),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools)},
			planError(kueueSetUp(subBlocks, team, `workload_topologies = ["4x4x12"]`),
				"Workload Topology Does Not Fit in One Block", `workload topology "4x4x12" is a super-slice of 3 partitions`,
				"must all be in one reservation block, but the node pools have at most 2 partition(s) in one block",
				poolName("kqs", "sub-block-a1")+", "+poolName("kqs", "sub-block-a2"), "Add node pools on 1 more sub-block(s)", `such as "4x4x8"`),
			planError(kueueSetUp(subBlocks, team, `workload_topologies = ["4x4x8", "8x8x8"]`),
				"Workload Topology Exceeds the Queue's Quota", `workload topology "8x8x8" needs 512 chips (8×8×8), but the ClusterQueue's google.com/tpu quota is 192 chips`,
				"Add 5 more sub-block node pool(s)"),
			planError(kueueSetUp(subBlocks, team, "sub_slicing = false\n  workload_topologies = [\"2x2x2\"]"),
				"Sub-Slice Topology Without Sub-Slicing", `workload topology "2x2x2" is a sub-slice`, "Set sub_slicing = true"),
			planError(kueueSetUp(subBlocks, team, `workload_topologies = ["4x8x4"]`),
				"Invalid Topology", `write the same shape as "4x4x8"`),
			planError(kueueSetUp(subBlocks, []string{teamS, "no-such-namespace"}, ""),
				"Namespace Does Not Exist", "namespace no-such-namespace does not exist",
				"create it (for example with a kubernetes_namespace resource)", "depends_on does not change that",
				"namespaces = [kubernetes_namespace.team.id]"),
			{
				Config: good,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_kueue_slicing.k", tfjsonpath.New("workload_topologies"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("4x4x8"), knownvalue.StringExact("2x2x2")})),
					statecheck.ExpectKnownValue("gke_kueue_slicing.k", tfjsonpath.New("tpu_quota"), knownvalue.Int64Exact(192)),
				},
				Check: func(*terraform.State) error {
					rf := kueueObject(t, "resourceflavors", "", kueueName())
					tolerations, _, _ := unstructured.NestedSlice(rf.Object, "spec", "tolerations")
					want := []any{map[string]any{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}}
					if !reflect.DeepEqual(tolerations, want) {
						return fmt.Errorf("ResourceFlavor tolerations %v, want %v", tolerations, want)
					}
					return nil
				},
			},
			{
				// The nodes of one pool lose a level of the Topology; the
				// configuration changes (a namespace is added): the plan fails.
				PreConfig: func() { stripNodeLabel(t, poolName("kqs", "sub-block-b1"), wellknown.LabelTopologyBlock) },
				Config:    accConfig(pools + kueueSetUp(subBlocks, []string{teamS, "default"}, `workload_topologies = ["4x4x8", "2x2x2"]`)),
				PlanOnly:  true,
				ExpectError: wrapped("Node Pools Kueue Cannot Use",
					"node pool "+poolName("kqs", "sub-block-b1")+": 16 of its 16 nodes lack the label cloud.google.com/gce-topology-block",
					"List only tpu7x sub-block node pools"),
			},
			{
				// The same problem under the applied configuration: a
				// warning, and an empty plan.
				Config:   good,
				PlanOnly: true,
			},
		},
	})
}

// A namespace that another resource makes in the same apply: written as a
// value known only after apply, the plan skips it and the apply, after
// the namespace exists, makes the LocalQueue. Not made at all, the apply
// fails before any Kueue object is applied, saying what to do.
func TestAccKueueSlicing_namespaceKnownAfterApply(t *testing.T) {
	needSandboxControl(t, "kubectl with the sandbox's admin kubeconfig, in a local-exec provisioner")
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("needs kubectl on PATH to make a namespace in the apply")
	}
	const ns = "acc-late-ns"
	t.Cleanup(func() {
		kube, err := kubernetes.NewForConfig(accRESTConfig(t))
		if err == nil {
			_ = kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
		}
	})
	pools := poolsOnSubBlocks("kql", "sub-block-a3")
	kueue := func(data string) string {
		return accConfig(pools + data + `
resource "gke_kueue_slicing" "k" {
  name       = "` + kueueName() + `"
  node_pools = [gke_subblock_node_pool.sub-block-a3.name]
  namespaces = [terraform_data.ns.output]
}
`)
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkKueueGone(t, ns),
		Steps: []tfresource.TestStep{
			{
				// Known only after apply, and never made.
				Config: kueue(fmt.Sprintf(`resource "terraform_data" "ns" { input = %q }`, ns)),
				ExpectError: wrapped("Namespace Does Not Exist", "namespace acc-late-ns does not exist",
					"create it (for example with a kubernetes_namespace resource)"),
			},
			{
				// Made by the apply (a new terraform_data whose output is
				// unknown at plan). The refused apply made nothing.
				PreConfig: func() {
					if kueueObject(t, "topologies", "", kueueName()) != nil {
						t.Error("the refused apply made a Topology")
					}
				},
				Config: kueue(fmt.Sprintf(`
resource "terraform_data" "ns" {
  input            = %q
  triggers_replace = ["made"]
  provisioner "local-exec" {
    command = "%s --kubeconfig %s create namespace %s"
  }
}
`, ns, kubectl, accSandbox.Kubeconfig, ns)),
				Check: func(*terraform.State) error {
					if kueueObject(t, "localqueues", ns, kueueName()) == nil {
						return fmt.Errorf("no LocalQueue in %s", ns)
					}
					return nil
				},
			},
		},
	})
}

// A problem that the cluster made under an applied, unchanged
// configuration (here a pool's nodes lost the partition label) is a
// warning at plan, saying the apply would fail, and terraform destroy
// (which plans the configuration first) is not stopped by it.
func TestAccKueueSlicing_unchangedConfigWarns(t *testing.T) {
	needTarget(t)
	teamD := createNamespace(t, "team-d")
	cli := cliWorkspace(t, accProviderConfig(), poolsOnSubBlocks("kqd", "sub-block-a4")+
		kueueSetUp([]string{"sub-block-a4"}, []string{teamD}, `workload_topologies = ["4x4x4"]`))
	cli.must("apply", "-auto-approve", "-input=false", "-no-color")
	stripNodeLabel(t, inv(poolName("kqd", "sub-block-a4")), wellknown.LabelPartitionID)
	out := cli.must("plan", "-input=false", "-no-color")
	for _, want := range []string{"Warning: Node Pools Kueue Cannot Use",
		"node pool " + poolName("kqd", "sub-block-a4") + ": 16 of its 16 nodes lack the label cloud.google.com/gke-tpu-partition-4x4x4-id",
		"This configuration has not changed", "No changes."} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
	out = cli.must("destroy", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(out, "Destroy complete! Resources: 3 destroyed.") || strings.Contains(out, "Error") {
		t.Errorf("destroy:\n%s", out)
	}
	if kueueObject(t, "clusterqueues", "", kueueName()) != nil {
		t.Error("the ClusterQueue is left after destroy")
	}
}
