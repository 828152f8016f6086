package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// createNamespace makes the namespace accName(base) unless it exists, and
// returns its name. Against an external target the namespace is the
// run's own, and is deleted when the test ends.
func createNamespace(t *testing.T, base string) string {
	t.Helper()
	name := accName(base)
	kube, err := kubernetes.NewForConfig(accRESTConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if accTarget.external() {
		t.Cleanup(func() {
			if err := kube.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting namespace %s: %v", name, err)
			}
		})
	}
	return name
}

// kueueName is the name of the Kueue objects of gke_kueue_slicing in
// these tests.
func kueueName() string { return accName("acc-tpu7x") }

func kueueConfig(pools []string, namespaces ...string) string {
	refs := make([]string, len(pools))
	for i, p := range pools {
		refs[i] = fmt.Sprintf("gke_subblock_node_pool.%s.name", p)
	}
	return fmt.Sprintf(`
resource "gke_kueue_slicing" "k" {
  name       = %q
  node_pools = [%s]
  namespaces = [%q]
}
`, kueueName(), strings.Join(refs, ", "), strings.Join(namespaces, `", "`))
}

// checkKueueGone checks that the Kueue objects (kueueName(), with the
// LocalQueues of the namespaces) are deleted, and the Slices, node pools
// and policies of the state.
func checkKueueGone(t *testing.T, namespaces ...string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		for _, r := range []string{"topologies", "resourceflavors", "admissionchecks", "clusterqueues"} {
			if kueueObject(t, r, "", kueueName()) != nil {
				return fmt.Errorf("%s %s is left after destroy", r, kueueName())
			}
		}
		for _, ns := range namespaces {
			if kueueObject(t, "localqueues", ns, kueueName()) != nil {
				return fmt.Errorf("LocalQueue %s/%s is left after destroy", ns, kueueName())
			}
		}
		return checkSlicesDestroyed(t)(s)
	}
}

// gke_kueue_slicing makes the Kueue objects (validated by the real API
// server from Kueue's own CRDs), follows the node pools with the quota,
// shows and repairs drift, moves LocalQueues between namespaces, and
// deletes everything.
func TestAccKueueSlicing(t *testing.T) {
	needTarget(t)
	teamA, teamB := createNamespace(t, "team-a"), createNamespace(t, "team-b")
	one := slicePools("kq", "tpu7x-reservation", "block-a", "sub-block-a1")
	two := slicePools("kq", "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkKueueGone(t, teamA, teamB),
		Steps: []tfresource.TestStep{
			{
				Config: accConfig(one + kueueConfig([]string{"sub-block-a1"}, teamA)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_kueue_slicing.k", tfjsonpath.New("tpu_quota"), knownvalue.Int64Exact(64)),
					statecheck.ExpectKnownValue("gke_kueue_slicing.k", tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("gke_kueue_slicing.k", tfjsonpath.New("topology_levels"), knownvalue.ListSizeExact(7)),
					statecheck.ExpectKnownValue("gke_kueue_slicing.k", tfjsonpath.New("queue_labels"),
						knownvalue.MapExact(map[string]knownvalue.Check{"kueue.x-k8s.io/queue-name": knownvalue.StringExact(kueueName())})),
				},
				Check: func(*terraform.State) error {
					topo := kueueObject(t, "topologies", "", kueueName())
					levels, _, _ := unstructured.NestedSlice(topo.Object, "spec", "levels")
					if len(levels) != 7 || levels[6].(map[string]any)["nodeLabel"] != "kubernetes.io/hostname" {
						return fmt.Errorf("Topology levels %v", levels)
					}
					ac := kueueObject(t, "admissionchecks", "", kueueName())
					if c, _, _ := unstructured.NestedString(ac.Object, "spec", "controllerName"); c != "accelerator.gke.io/slice" {
						return fmt.Errorf("AdmissionCheck controllerName %q", c)
					}
					if rf := kueueObject(t, "resourceflavors", "", kueueName()); rf == nil {
						return fmt.Errorf("no ResourceFlavor")
					}
					if lq := kueueObject(t, "localqueues", teamA, kueueName()); lq == nil {
						return fmt.Errorf("no LocalQueue in %s", teamA)
					}
					return quotaIs(t, "64")
				},
			},
			{
				// The quota follows the pools.
				Config: accConfig(two + kueueConfig([]string{"sub-block-a1", "sub-block-a2"}, teamA)),
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gke_kueue_slicing.k", plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue("gke_kueue_slicing.k", tfjsonpath.New("tpu_quota")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_kueue_slicing.k", tfjsonpath.New("tpu_quota"), knownvalue.Int64Exact(128)),
				},
				Check: func(*terraform.State) error { return quotaIs(t, "128") },
			},
			{
				// Drift: the quota changed and the AdmissionCheck deleted out
				// of band; the plan shows it, the apply restores both.
				PreConfig: func() {
					dyn, _ := dynamic.NewForConfig(accRESTConfig(t))
					cq := kueueObject(t, "clusterqueues", "", kueueName())
					groups, _, _ := unstructured.NestedSlice(cq.Object, "spec", "resourceGroups")
					groups[0].(map[string]any)["flavors"].([]any)[0].(map[string]any)["resources"].([]any)[0].(map[string]any)["nominalQuota"] = "8"
					_ = unstructured.SetNestedSlice(cq.Object, groups, "spec", "resourceGroups")
					if _, err := dyn.Resource(kernel.KueueGVR("clusterqueues")).Update(context.Background(), cq, metav1.UpdateOptions{}); err != nil {
						t.Fatal(err)
					}
					if err := dyn.Resource(kernel.KueueGVR("admissionchecks")).Delete(context.Background(), kueueName(), metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: accConfig(two + kueueConfig([]string{"sub-block-a1", "sub-block-a2"}, teamA)),
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gke_kueue_slicing.k", plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					if kueueObject(t, "admissionchecks", "", kueueName()) == nil {
						return fmt.Errorf("the AdmissionCheck was not restored")
					}
					return quotaIs(t, "128")
				},
			},
			{
				// LocalQueues move with the namespaces.
				Config: accConfig(two + kueueConfig([]string{"sub-block-a1", "sub-block-a2"}, teamB)),
				Check: func(*terraform.State) error {
					if kueueObject(t, "localqueues", teamA, kueueName()) != nil {
						return fmt.Errorf("the LocalQueue of %s is left", teamA)
					}
					if kueueObject(t, "localqueues", teamB, kueueName()) == nil {
						return fmt.Errorf("no LocalQueue in %s", teamB)
					}
					return nil
				},
			},
			{Config: accConfig(two + kueueConfig([]string{"sub-block-a1", "sub-block-a2"}, teamB)), PlanOnly: true},
		},
	})
}

func quotaIs(t *testing.T, want string) error {
	cq := kueueObject(t, "clusterqueues", "", kueueName())
	groups, _, _ := unstructured.NestedSlice(cq.Object, "spec", "resourceGroups")
	got := fmt.Sprint(groups[0].(map[string]any)["flavors"].([]any)[0].(map[string]any)["resources"].([]any)[0].(map[string]any)["nominalQuota"])
	if got != want {
		return fmt.Errorf("ClusterQueue google.com/tpu quota %s, want %s", got, want)
	}
	checks, _, _ := unstructured.NestedSlice(cq.Object, "spec", "admissionChecksStrategy", "admissionChecks")
	if len(checks) != 1 || checks[0].(map[string]any)["name"] != kueueName() {
		return fmt.Errorf("ClusterQueue admission checks %v", checks)
	}
	return nil
}

// Plan-time validation of gke_kueue_slicing, and a namespace that does
// not exist, said clearly at plan.
func TestAccKueueSlicing_rejected(t *testing.T) {
	needTarget(t)
	pools := slicePools("kqbad", "tpu7x-reservation", "block-a", "sub-block-a2")
	cases := map[string]struct{ body, text string }{
		"name":      {`name = "Bad_Name"` + "\n  node_pools = [\"p\"]\n  namespaces = [\"default\"]", "must be a DNS label"},
		"no pools":  {`name = "ok"` + "\n  node_pools = []\n  namespaces = [\"default\"]", "list must contain at least 1 elements"},
		"namespace": {`name = "ok"` + "\n  node_pools = [\"p\"]\n  namespaces = [\"Not_A_Namespace\"]", "must be a namespace name"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tfresource.Test(t, tfresource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []tfresource.TestStep{{
					Config:      accConfig("resource \"gke_kueue_slicing\" \"k\" {\n  " + tc.body + "\n}\n"),
					PlanOnly:    true,
					ExpectError: wrapped(tc.text),
				}},
			})
		})
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkKueueGone(t),
		Steps: []tfresource.TestStep{{
			Config:      accConfig(pools + kueueConfig([]string{"sub-block-a2"}, "no-such-namespace")),
			ExpectError: wrapped("Namespace Does Not Exist", "namespace no-such-namespace does not exist"),
		}},
	})
}

// Slices that Kueue's admission check makes hold their partitions: a Job
// queued in the LocalQueue of gke_kueue_slicing is admitted by the real
// Kueue, topology-aware scheduling picks a partition of one of the two
// pools and the check makes its Slice; the data source names the workload,
// selection keeps off its partition, a slice that lists it is refused,
// import of Kueue's Slice is refused, and once the Job is deleted the check
// deletes the Slice (Terraform never does).
func TestAccKueueSlicesCoexist(t *testing.T) {
	needTarget(t)
	ns := kueueNamespace(t, "kco")
	pools := slicePools("kco", "tpu7x-reservation", "block-a", "sub-block-a3", "sub-block-a4")
	ctx := context.Background()
	var wl kueueWorkload
	admit := func() {
		submitKueueJob(t, kueueJob(ns, "train", kueueName(), "4x4x4", 10*time.Minute))
		wl = awaitKueueWorkload(t, ns, "train", admittedWith(1))
	}
	withData := pools + kueueConfig([]string{"sub-block-a3"}, ns) + `
data "gke_partitions" "kco" {
  node_pools = [gke_subblock_node_pool.sub-block-a3.name, gke_subblock_node_pool.sub-block-a4.name]
}
locals {
  kueues = [for p in data.gke_partitions.kco.partitions : p if p.kueue_workload != ""]
}
output "kueue_workload" {
  value = local.kueues[0].kueue_workload
}
`
	mine := subSlice("mine", "kco-mine", "4x4x4", "sub-block-a3", "sub-block-a4")
	mineName := accName("kco-mine")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkAllDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools + kueueConfig([]string{"sub-block-a3"}, ns))},
			{
				PreConfig: admit,
				Config:    accConfig(withData + mine),
				Check: func(*terraform.State) error {
					// The data source saw the workload on the partition of
					// Kueue's Slice, and selection took the other.
					kueues, err := accEngine(t).Slices().ReadSlice(ctx, wl.Slices[0])
					if err != nil {
						return err
					}
					if kueues.KueueWorkload != ns+"/"+wl.Name {
						return fmt.Errorf("Kueue's Slice %s: workload %q, want %s/%s", wl.Slices[0], kueues.KueueWorkload, ns, wl.Name)
					}
					if p := slicePartition(t, mineName, "4x4x4"); slices.Contains(kueues.PartitionIDs, p.ID) {
						return fmt.Errorf("%s took the partition of Kueue's Slice %s", mineName, wl.Slices[0])
					}
					return nil
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("kueue_workload", knownvalue.StringFunc(func(v string) error {
						if v != ns+"/"+wl.Name {
							return fmt.Errorf("kueue_workload %q, want %s/%s", v, ns, wl.Name)
						}
						return nil
					})),
				},
			},
			{
				// A slice that lists the partition Kueue's Slice holds.
				Config: accConfig(withData + mine + `
resource "gke_tpu_slice" "listed" {
  name          = "` + accName("kco-listed") + `"
  topology      = "4x4x4"
  partition_ids = [local.kueues[0].id]
}
`),
				ExpectError: wrapped("Slice Cannot Be Formed", "is used by Kueue workload "+ns+"/"),
			},
			{
				// Import of Kueue's Slice is refused.
				Config: accConfig(withData + mine + `
resource "gke_tpu_slice" "theirs" {
  name          = "` + accName("kco-theirs") + `"
  topology      = "4x4x4"
  partition_ids = [local.kueues[0].id]
}
`),
				ResourceName:      "gke_tpu_slice.theirs",
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return wl.Slices[0], nil },
				ExpectError:       wrapped("Cannot Import a Slice Kueue Manages", "was created by Kueue's slice admission check for workload "+ns+"/"),
			},
			{
				// The Job is deleted: the check deletes its Slice, the data
				// source sees the partition free.
				PreConfig: func() {
					kube, _, _ := kubeClients(t)
					bg := metav1.DeletePropagationBackground
					if err := kube.BatchV1().Jobs(ns).Delete(ctx, "train", metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
						t.Fatal(err)
					}
					awaitSliceGone(t, wl.Slices[0])
				},
				Config: accConfig(pools + kueueConfig([]string{"sub-block-a3"}, ns) + mine + `
data "gke_partitions" "kco" {
  node_pools = [gke_subblock_node_pool.sub-block-a3.name, gke_subblock_node_pool.sub-block-a4.name]
}
output "kueue_workloads" {
  value = [for p in data.gke_partitions.kco.partitions : p.kueue_workload if p.kueue_workload != ""]
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("kueue_workloads", knownvalue.ListExact([]knownvalue.Check{})),
				},
			},
		},
	})
}

// A gke_tpu_slice whose Slice was deleted out of band and whose name a
// Kueue-made Slice then took: the refresh drops it from the state (with a
// warning) instead of adopting Kueue's, the create says the name is taken,
// and no destroy deletes Kueue's Slice.
func TestAccKueueSliceTakesTheName(t *testing.T) {
	needTarget(t)
	pools := slicePools("ktn", "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2")
	config := accConfig(pools + subSlice("s", "ktn-named", "4x4x4", "sub-block-a1"))
	named, other := accName("ktn-named"), poolName("ktn", "sub-block-a2")
	ctx := context.Background()
	t.Cleanup(func() { _ = accKubeSlices(t).Delete(context.Background(), named, metav1.DeleteOptions{}) })
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					slices := accKubeSlices(t)
					if err := slices.Delete(ctx, named, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
					awaitSliceGone(t, named)
					parts, err := accEngine(t).Cluster().ListPartitions(ctx, clusterread.PartitionFilter{NodePools: []string{other}})
					if err != nil || len(parts) != 1 {
						t.Fatalf("partitions of %s: %v %v", other, parts, err)
					}
					// A Slice as Kueue's slice admission check makes them, with
					// its owner annotations (its Workload need not exist: the
					// provider reads the annotations only).
					if _, err := slices.Create(ctx, kueueMadeSlice(named, "default", "wl", "main", "4x4x4", parts[0].ID), metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config,
				ExpectError: wrapped("Slice Name Taken by Kueue", "Slice "+named+" was created by Kueue's slice admission check for workload default/wl"),
			},
		},
	})
	s, err := accEngine(t).Slices().ReadSlice(ctx, named)
	if err != nil || s.Deleting || s.KueueWorkload != "default/wl" {
		t.Errorf("Kueue's Slice after the test's destroy: %+v, %v", s, err)
	}
}

// kueueMadeSlice is a Slice as Kueue's slice admission check makes it.
func kueueMadeSlice(name, namespace, workload, podSet, topo string, partitions ...string) *unstructured.Unstructured {
	ids := make([]any, len(partitions))
	for i, p := range partitions {
		ids[i] = p
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kernel.SliceGVR.GroupVersion().String(),
		"kind":       "Slice",
		"metadata": map[string]any{"name": name, "annotations": map[string]any{
			wellknown.AnnotationOwnerWorkloadNamespace: namespace,
			wellknown.AnnotationOwnerWorkloadName:      workload,
			wellknown.AnnotationOwnerPodSet:            podSet,
		}},
		"spec": map[string]any{"type": "tpu7x", "topology": topo, "partitionIds": ids},
	}}
}
