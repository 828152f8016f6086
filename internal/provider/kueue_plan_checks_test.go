package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// A node pool of node_pools that the cluster does not have, and that no
// resource of the configuration makes, is an error at plan that names it
// and what to write instead; no Kueue object is made (it used to pass the
// plan, then fail the apply with the resource tainted in the state).
func TestAccKueueSlicing_missingPoolAtPlan(t *testing.T) {
	needTarget(t)
	ns := createNamespace(t, "team-m")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkKueueGone(t, ns),
		Steps: []tfresource.TestStep{{
			Config: accConfig(`
resource "gke_kueue_slicing" "k" {
  name       = "` + kueueName() + `"
  node_pools = ["no-such-pool"]
  namespaces = ["` + ns + `"]
}
`),
			ExpectError: wrapped("Node Pools Kueue Cannot Use", "node pool no-such-pool does not exist in cluster",
				"every pool of node_pools must exist", "node_pools = [gke_subblock_node_pool.NAME.name]"),
		}},
	})
}

// terraform destroy of a gke_kueue_slicing whose ClusterQueue has an
// admitted workload: plan -destroy warns, naming it, and the destroy
// refuses before deleting anything (it used to delete the LocalQueue,
// then leave the ClusterQueue Terminating). Once the workload is gone the
// destroy goes through.
func TestAccKueueSlicing_destroyWhileAdmitted(t *testing.T) {
	needTarget(t)
	ns := createNamespace(t, "team-h")
	cli := cliWorkspace(t, accProviderConfig(), poolsOnSubBlocks("kqh", "sub-block-a4")+kueueSetUp([]string{"sub-block-a4"}, []string{ns}, ""))
	cli.must("apply", "-auto-approve", "-input=false", "-no-color")
	submitKueueJob(t, kueueJob(ns, "held", kueueName(), "4x4x4", 10*time.Minute))
	w := awaitKueueWorkload(t, ns, "held", admittedWith(1))
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	out := cli.must("plan", "-destroy", "-input=false", "-no-color")
	for _, want := range []string{"Warning: Queue Has Admitted Workloads", "ClusterQueue " + kueueName() + " has 1 admitted workload(s): " + ns + "/" + w.Name,
		"Applying this plan will refuse to delete these objects"} {
		if !strings.Contains(flat(out), want) {
			t.Errorf("plan -destroy does not say %q:\n%s", want, out)
		}
	}
	out, err := cli.run("destroy", "-auto-approve", "-input=false", "-no-color")
	if err == nil {
		t.Fatalf("destroy went through with an admitted workload:\n%s", out)
	}
	for _, want := range []string{"Error: Queue Has Admitted Workloads", ns + "/" + w.Name, "Nothing was deleted"} {
		if !strings.Contains(flat(out), want) {
			t.Errorf("destroy does not say %q:\n%s", want, out)
		}
	}
	if kueueObject(t, "localqueues", ns, kueueName()) == nil {
		t.Errorf("the LocalQueue was deleted")
	}
	if cq := kueueObject(t, "clusterqueues", "", kueueName()); cq == nil || cq.GetDeletionTimestamp() != nil {
		t.Errorf("the ClusterQueue was deleted or is Terminating")
	}
	kube, _, _ := kubeClients(t)
	bg := metav1.DeletePropagationBackground
	if err := kube.BatchV1().Jobs(ns).Delete(context.Background(), "held", metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		t.Fatal(err)
	}
	testsupport.Poll(t, 2*time.Minute, 250*time.Millisecond, "the Workload of the deleted Job to be gone", func() (bool, string, error) {
		got := readKueueWorkload(t, ns, "held")
		return got.Name == "", "Workload " + got.Name + " is still there", nil
	})
	out = cli.must("destroy", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(out, "Destroy complete!") {
		t.Errorf("destroy after the workload:\n%s", out)
	}
}
