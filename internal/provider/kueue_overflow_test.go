package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"golang.org/x/oauth2"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/option"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// createFlexPool creates, through the GKE API, a tpu7x node pool of topo
// with flex-start and queued provisioning (no node, autoscaling, no
// reservation), as google-beta's google_container_node_pool with
// queued_provisioning does; deleted when the test ends.
func createFlexPool(t *testing.T, name, topo string, hosts int64) {
	t.Helper()
	ctx := context.Background()
	i := accSandbox.Info()
	gke, err := container.NewService(ctx, option.WithEndpoint(i.GoogleURL),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: i.Token})))
	if err != nil {
		t.Fatal(err)
	}
	cluster := fmt.Sprintf("projects/%s/locations/%s/clusters/%s", i.Project, i.Region, i.Cluster)
	op, err := gke.Projects.Locations.Clusters.NodePools.Create(cluster, &container.CreateNodePoolRequest{NodePool: &container.NodePool{
		Name: name, Locations: []string{i.Zone},
		QueuedProvisioning: &container.QueuedProvisioning{Enabled: true},
		Autoscaling:        &container.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: hosts, LocationPolicy: "ANY"},
		PlacementPolicy:    &container.PlacementPolicy{TpuTopology: topo},
		Config: &container.NodeConfig{MachineType: sandbox.MachineType, FlexStart: true,
			ReservationAffinity: &container.ReservationAffinity{ConsumeReservationType: "NO_RESERVATION"}},
	}}).Context(ctx).Do()
	if err != nil {
		t.Fatalf("creating the flex-start pool %s: %v", name, err)
	}
	opName := fmt.Sprintf("projects/%s/locations/%s/operations/%s", i.Project, i.Region, op.Name)
	testsupport.Poll(t, time.Minute, 200*time.Millisecond, "the create of flex-start pool "+name, func() (bool, string, error) {
		op, err = gke.Projects.Locations.Operations.Get(opName).Context(ctx).Do()
		if err != nil {
			return false, "", err
		}
		return op.Status == "DONE", "operation " + op.Status, nil
	})
	t.Cleanup(func() {
		if err := accEngine(t).NodePools().Delete(context.Background(), cluster+"/nodePools/"+name); err != nil {
			t.Errorf("deleting the flex-start pool %s: %v", name, err)
		}
	})
}

func kueueOverflowConfig(flex, ns string) string {
	return fmt.Sprintf(`
resource "gke_kueue_slicing" "k" {
  name       = %q
  node_pools = [gke_subblock_node_pool.sub-block-a1.name]
  namespaces = [%q]
  workload_topologies = ["4x4x4", "2x2x2"]
  overflow = {
    node_pools       = [%q]
    topology         = "2x2x2"
    tpu_quota        = 8
    max_run_duration = "1h"
    retries          = 3
  }
}

output "slice_4x4x4" { value = provider::gke::kueue_workload("4x4x4", 16, 4) }
output "slice_2x2x2" { value = provider::gke::kueue_workload("2x2x2", 2, 4) }
output "flex_2x2x2" { value = provider::gke::kueue_workload("2x2x2", 2, 4).flex_start }
`, kueueName(), ns, flex)
}

// flavorOf is the flavor Kueue admitted the Job's Workload on ("" when not
// admitted).
func flavorOf(t *testing.T, ns, job string) string {
	t.Helper()
	w := readKueueWorkload(t, ns, job)
	_, dyn, _ := kubeClients(t)
	obj, err := dyn.Resource(sandbox.WorkloadGVR).Namespace(ns).Get(context.Background(), w.Name, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	sets, _, _ := unstructured.NestedSlice(obj.Object, "status", "admission", "podSetAssignments")
	for _, s := range sets {
		f, _, _ := unstructured.NestedString(s.(map[string]any), "flavors", string(wellknown.ResourceTPU))
		return f
	}
	return ""
}

// gke_kueue_slicing with an overflow flavor, with JobSets on one queue
// wired by provider::gke::kueue_workload: slice JobSets get Slices on the
// reservation; a slice JobSet that does not fit waits for the reservation
// with Kueue's words (the flex flavor is no Topology Aware Scheduling
// flavor) and never lands on flex, then gets a Slice when the reservation
// is free again; a JobSet of the flex_start wiring is admitted on the
// flex flavor once its ProvisioningRequest is Provisioned and runs on the
// nodes DWS made, with no Slice; after it, a slice JobSet that fits gets a
// Slice on the reservation; with no DWS capacity a flex JobSet waits with
// Kueue's and GKE's words; no flex flavor with a Topology (over the flex
// nodes' labels, or the reservation's) takes a slice JobSet. Import reads
// the overflow back.
func TestAccKueueOverflow(t *testing.T) {
	needSandboxControl(t, "a flex-start queued node pool made through the sandbox's GKE API, and the DWS capacity fault")
	ns := createNamespace(t, "flex")
	flex := accName("acc-flex")
	createFlexPool(t, flex, "2x2x2", 2)
	pool := slicePools("kqf", "tpu7x-reservation", "block-a", "sub-block-a1")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(s *terraform.State) error {
			for _, r := range []string{"resourceflavors", "provisioningrequestconfigs", "admissionchecks"} {
				if kueueObject(t, r, "", kueueName()+kueue.OverflowSuffix) != nil {
					return fmt.Errorf("%s %s%s is left after destroy", r, kueueName(), kueue.OverflowSuffix)
				}
			}
			return checkKueueGone(t, ns)(s)
		},
		Steps: []resource.TestStep{
			{
				// At plan: the pool's topology and the quota.
				Config: accConfig(pool + strings.NewReplacer(`topology         = "2x2x2"`, `topology         = "2x2x4"`,
					`tpu_quota        = 8`, `tpu_quota        = 12`).Replace(kueueOverflowConfig(flex, ns))),
				PlanOnly: true, ExpectNonEmptyPlan: true,
				ExpectError: regexp.MustCompile(`(?s)Overflow Flavor Cannot Work.*acc-flex has TPU topology "2x2x2".*tpu_quota 12 does not hold`),
			},
			{
				Config: accConfig(pool + kueueOverflowConfig(flex, ns)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_kueue_slicing.k", tfjsonpath.New("tpu_quota"), knownvalue.Int64Exact(64)),
					statecheck.ExpectKnownValue("gke_kueue_slicing.k", tfjsonpath.New("overflow").AtMapKey("tpu_quota"), knownvalue.Int64Exact(8)),
				},
				Check: func(s *terraform.State) error { return runOverflowWorkloads(t, ns, s) },
			},
			{
				ResourceName: "gke_kueue_slicing.k", ImportState: true, ImportStateVerify: true, ImportStateId: kueueName(),
				ImportStateVerifyIgnore: []string{"workload_topologies", "timeouts"},
			},
			{
				// Drift of the overflow's config is shown and restored.
				PreConfig: func() {
					dyn, _ := dynamic.NewForConfig(accRESTConfig(t))
					if err := dyn.Resource(kernel.KueueGVR("provisioningrequestconfigs")).Delete(context.Background(), kueueName()+kueue.OverflowSuffix, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: accConfig(pool + kueueOverflowConfig(flex, ns)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gke_kueue_slicing.k", plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					if kueueObject(t, "provisioningrequestconfigs", "", kueueName()+kueue.OverflowSuffix) == nil {
						return fmt.Errorf("the ProvisioningRequestConfig was not restored")
					}
					return nil
				},
			},
			{Config: accConfig(pool + kueueOverflowConfig(flex, ns)), PlanOnly: true},
		},
	})
}
