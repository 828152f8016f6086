package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// On a cluster whose slice controller is missing (a sandbox that leaves
// the slice admission check to an outside controller, and none runs),
// Kueue never reports the ClusterQueue Active: the apply waits for it
// within the create timeout, then fails with Kueue's reason and what to
// check, instead of reporting success for a queue that admits nothing.
// The objects are in the state, tainted, and the error says so (issue 56):
// once a slice controller runs (the test plays it), the next apply
// replaces them and the queue is Active; destroy deletes them.
func TestAccKueueSlicing_inactiveQueue(t *testing.T) {
	needSandboxControl(t, "a second sandbox of its own, with no slice admission check")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Options{SliceCheck: sandbox.SliceCheckExternal})
	if err != nil {
		t.Fatalf("a sandbox with no slice admission check: %v", err)
	}
	t.Cleanup(sb.Stop)
	// Before the sandbox stops: the provider's watches of it end first.
	t.Cleanup(closeTestClients)
	config := sb.ProviderConfig() + slicePools("kqi", "tpu7x-reservation", "block-a", "sub-block-a1") + `
resource "gke_kueue_slicing" "k" {
  name       = "acc-inactive"
  node_pools = [gke_subblock_node_pool.sub-block-a1.name]
  namespaces = ["default"]
  timeouts {
    create = "15s"
  }
}
`
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkDestroyedIn(sb),
		Steps: []tfresource.TestStep{
			{
				Config: config,
				ExpectError: wrapped("Kueue ClusterQueue Not Active", "ClusterQueue acc-inactive is not Active (Kueue reports AdmissionCheckInactive",
					"references inactive AdmissionCheck(s): acc-inactive", "the slice controller (controller accelerator.gke.io/slice, namespace slice-controller-system on GKE)",
					"is missing or not ready", "The objects were applied",
					`The create did not finish within its timeout (timeouts.create = "15s").`,
					"The Kueue objects of acc-inactive exist (the ClusterQueue is not Active) and are recorded in the state, tainted:",
					"`terraform destroy` deletes them, and the next apply replaces them (deletes them and creates them again).",
					"To keep them instead, run `terraform untaint` on this resource"),
			},
			{
				PreConfig:        func() { standInSliceController(t, sb) },
				Config:           config,
				ConfigPlanChecks: replaced("gke_kueue_slicing.k"),
				Check: func(*terraform.State) error {
					if !queueActive(t, sb, "acc-inactive") {
						return errors.New("ClusterQueue acc-inactive is not Active after the apply")
					}
					return nil
				},
			},
		},
	})
}

// standInSliceController plays, until the test ends, the slice controller
// a sandbox without one lacks, as far as Kueue sees it: it marks each
// AdmissionCheck of accelerator.gke.io/slice Active, as the controller
// does.
func standInSliceController(t *testing.T, sb *sandbox.Sandbox) {
	dyn, err := dynamic.NewForConfig(sb.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	checks := dyn.Resource(sandbox.AdmissionCheckGVR)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := checks.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			ac, ok := ev.Object.(*unstructured.Unstructured)
			if !ok || (ev.Type != watch.Added && ev.Type != watch.Modified) {
				continue
			}
			if ctrl, _, _ := unstructured.NestedString(ac.Object, "spec", "controllerName"); ctrl != sandbox.KueueSliceController || conditionTrue(ac, "Active") {
				continue
			}
			patch, _ := json.Marshal(map[string]any{
				"apiVersion": ac.GetAPIVersion(), "kind": "AdmissionCheck", "metadata": map[string]any{"name": ac.GetName()},
				"status": map[string]any{"conditions": []any{map[string]any{
					"type": "Active", "status": "True", "reason": "Active", "message": "The admission check is active (the test's stand-in controller)",
					"observedGeneration": ac.GetGeneration(), "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
				}}},
			})
			force := true
			if _, err := checks.Patch(ctx, ac.GetName(), types.ApplyPatchType, patch,
				metav1.PatchOptions{FieldManager: "test-slice-controller", Force: &force}, "status"); err != nil && ctx.Err() == nil && !apierrors.IsNotFound(err) {
				t.Errorf("marking AdmissionCheck %s Active: %v", ac.GetName(), err)
			}
		}
	}()
}

// conditionTrue says whether obj's status has condition typ True.
func conditionTrue(obj *unstructured.Unstructured, typ string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m["status"] == "True"
		}
	}
	return false
}

// queueActive says whether Kueue reports ClusterQueue name of sb Active.
func queueActive(t *testing.T, sb *sandbox.Sandbox, name string) bool {
	dyn, err := dynamic.NewForConfig(sb.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	cq, err := dyn.Resource(kernel.KueueGVR("clusterqueues")).Get(context.Background(), name, metav1.GetOptions{})
	return err == nil && conditionTrue(cq, "Active")
}

// checkDestroyedIn checks that nothing of the state is left in sb: its
// Kueue objects, node pools and workload policies.
func checkDestroyedIn(sb *sandbox.Sandbox) func(*terraform.State) error {
	return func(s *terraform.State) error {
		i := sb.Info()
		set, err := clients.New(context.Background(), clients.Config{Project: i.Project, Location: i.Region, Cluster: i.Cluster, AccessToken: i.Token,
			ComputeEndpoint: i.GoogleURL, ContainerEndpoint: i.GoogleURL}, clients.Options{})
		if err != nil {
			return err
		}
		c := configure(set, engine.Options{})
		testEngines.add(c)
		e, err := c.Engine()
		if err != nil {
			return err
		}
		dyn, err := dynamic.NewForConfig(sb.RESTConfig())
		if err != nil {
			return err
		}
		ctx := context.Background()
		for _, rs := range s.RootModule().Resources {
			a := rs.Primary.Attributes
			switch rs.Type {
			case "gke_kueue_slicing":
				for _, r := range []string{"topologies", "resourceflavors", "admissionchecks", "clusterqueues"} {
					if _, err := dyn.Resource(kernel.KueueGVR(r)).Get(ctx, a["name"], metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("%s %s is left after destroy (%v)", r, a["name"], err)
					}
				}
			case "gke_subblock_node_pool":
				if _, err := e.NodePools().Read(ctx, rs.Primary.ID); !errors.Is(err, kernel.ErrNotFound) {
					return fmt.Errorf("node pool %s still exists (%v)", rs.Primary.ID, err)
				}
			case "gke_workload_policy":
				if _, err := e.Policies().Read(ctx, a["project"], a["region"], a["name"]); !errors.Is(err, kernel.ErrNotFound) {
					return fmt.Errorf("workload policy %s still exists (%v)", rs.Primary.ID, err)
				}
			}
		}
		return nil
	}
}
