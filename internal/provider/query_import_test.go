package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"golang.org/x/oauth2"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/option"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// A stack made by hand, as gcloud and kubectl make it (the Compute and GKE
// REST APIs through Google's Go clients, the Slice through the Kubernetes
// API), is found by terraform query, imported with the configuration
// terraform query -generate-config-out writes, and then planned without
// changes.
func TestAccQueryGenerateConfigImportsHandMadeStack(t *testing.T) {
	skipUnlessTerraform(t, "1.14", "terraform query -generate-config-out")
	needSandboxControl(t, "the sandbox's Google API endpoint and token, for the hand-made stack's REST calls")
	policy, slice := accName("hand-policy"), accName("hand-slice")
	pools := []string{accName("hand-a1"), accName("hand-a2")}
	stack := makeHandStack(t, policy, slice, pools, []string{"sub-block-a1", "sub-block-a2"})

	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("main.tf", requiredProviders+accProviderConfig())
	write("existing.tfquery.hcl", `
list "gke_workload_policy" "all" {
  provider         = gke
  include_resource = true
}

list "gke_subblock_node_pool" "all" {
  provider         = gke
  include_resource = true
}

list "gke_tpu_slice" "all" {
  provider         = gke
  include_resource = true
}
`)
	useTestTerraform(t)
	cli := initWorkspace(t, dir)

	out := cli.must("query", "-no-color")
	for _, want := range append([]string{stack.policyPath, slice}, stack.poolIDs...) {
		if !strings.Contains(out, want) {
			t.Errorf("terraform query does not list %s:\n%s", want, out)
		}
	}
	cli.must("query", "-no-color", "-generate-config-out=generated.tf")
	generated, err := os.ReadFile(filepath.Join(dir, "generated.tf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated.tf:\n%s", generated)
	for _, want := range []string{
		`resource "gke_workload_policy"`, `name                      = "` + policy + `"`,
		`resource "gke_subblock_node_pool"`, `reservation_sub_block = "` + inv("sub-block-a1") + `"`,
		`resource "gke_tpu_slice"`, `name                   = "` + slice + `"`, `topology               = "4x4x8"`,
		`identity = {`,
	} {
		if !strings.Contains(string(generated), want) {
			t.Errorf("generated.tf has no %q", want)
		}
	}
	for _, computedOnly := range []string{"self_link", "partition_id ", "status", "node_names", "ready_node_count", "chips", "conditions", "tpu_resources"} {
		if strings.Contains(string(generated), "  "+computedOnly) {
			t.Errorf("generated.tf sets the computed-only attribute %s", computedOnly)
		}
	}
	applied := cli.must("apply", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(applied, "imported, 0 added, 0 changed, 0 destroyed") {
		t.Errorf("the apply of the generated configuration did more than import:\n%s", applied)
	}
	cli.emptyPlan("after importing the generated configuration")

	// The generated configuration has values, not references: Terraform
	// does not know that the pools use the policy and the slice the pools'
	// partitions, and a destroy would delete the policy first. As the
	// guide says, replace them with references: the plan stays empty, and
	// the destroy when the test ends goes in order.
	linked := linkGenerated(t, string(generated), stack, pools)
	if err := os.WriteFile(filepath.Join(dir, "generated.tf"), []byte(linked), 0o600); err != nil {
		t.Fatal(err)
	}
	cli.emptyPlan("after replacing the generated values with references")
}

// linkGenerated replaces, in generated configuration, the pools'
// workload_policy and the slice's partition_ids with references to the
// generated policy and pools.
func linkGenerated(t *testing.T, generated string, stack handStack, pools []string) string {
	t.Helper()
	address := func(resourceType, name string) string {
		re := regexp.MustCompile(`resource "` + resourceType + `" "(\w+)" \{[^}]*?\n\s*name\s*= "` + regexp.QuoteMeta(name) + `"`)
		m := re.FindStringSubmatch(generated)
		if m == nil {
			t.Fatalf("generated.tf has no %s named %s", resourceType, name)
		}
		return resourceType + "." + m[1]
	}
	policy := address("gke_workload_policy", stack.policy)
	refs := make([]string, len(pools))
	for i, p := range pools {
		refs[i] = address("gke_subblock_node_pool", p) + ".partition_id"
	}
	out := regexp.MustCompile(`(?m)^(\s*workload_policy\s*= )"`+regexp.QuoteMeta(stack.policy)+`"$`).ReplaceAllString(generated, "${1}"+policy+".name")
	out = regexp.MustCompile(`(?m)^(\s*partition_ids\s*= )\[.*\]$`).ReplaceAllString(out, "${1}["+strings.Join(refs, ", ")+"]")
	if !strings.Contains(out, policy+".name") || !strings.Contains(out, refs[0]) {
		t.Fatalf("the references were not written into generated.tf:\n%s", out)
	}
	return out
}

// useTestTerraform makes the test's CLI runs (terraformCLI, which runs
// `terraform` from PATH) use the Terraform of the acceptance tests
// (TF_ACC_TERRAFORM_PATH) for the rest of the test.
func useTestTerraform(t *testing.T) {
	t.Helper()
	bin := t.TempDir()
	if err := os.Symlink(testTerraformCLI(t).Path, filepath.Join(bin, "terraform")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// handStack is what makeHandStack made.
type handStack struct {
	policy     string
	policyPath string
	poolIDs    []string
}

// makeHandStack makes, behind Terraform's back, a workload policy, one
// node pool per sub-block of block-a, and a Slice of their partitions,
// ACTIVE; what is left of it is deleted when the test ends.
func makeHandStack(t *testing.T, policy, slice string, pools, subBlocks []string) handStack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	i := accSandbox.Info()
	opts := []option.ClientOption{
		option.WithEndpoint(i.GoogleURL), option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: i.Token})),
	}
	e := accEngine(t)
	stack := handStack{policy: policy, policyPath: fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", i.Project, i.Region, policy)}
	t.Cleanup(func() {
		ctx := context.Background()
		if _, err := e.Slices().DeleteSlice(ctx, slice, false); err != nil {
			t.Errorf("deleting the hand-made Slice %s: %v", slice, err)
		}
		for _, id := range stack.poolIDs {
			if err := e.NodePools().Delete(ctx, id); err != nil {
				t.Errorf("deleting the hand-made node pool %s: %v", id, err)
			}
		}
		if err := e.Policies().Delete(ctx, i.Project, i.Region, policy); err != nil {
			t.Errorf("deleting the hand-made workload policy %s: %v", policy, err)
		}
	})

	// gcloud compute resource-policies create workload-policy
	policies, err := compute.NewResourcePoliciesRESTClient(ctx, append(opts, option.WithEndpoint(strings.TrimSuffix(i.GoogleURL, "/")))...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = policies.Close() }()
	op, err := policies.Insert(ctx, &computepb.InsertResourcePolicyRequest{Project: i.Project, Region: i.Region, ResourcePolicyResource: &computepb.ResourcePolicy{
		Name: proto.String(policy),
		WorkloadPolicy: &computepb.ResourcePolicyWorkloadPolicy{
			Type: proto.String("HIGH_THROUGHPUT"), AcceleratorTopology: proto.String("4x4x4"), AcceleratorTopologyMode: proto.String("PROVISION_ONLY"),
		},
	}})
	if err == nil {
		err = op.Wait(ctx)
	}
	if err != nil {
		t.Fatalf("creating workload policy %s: %v", policy, err)
	}

	// gcloud container node-pools create, one per sub-block
	gke, err := container.NewService(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	clusterName := fmt.Sprintf("projects/%s/locations/%s/clusters/%s", i.Project, i.Region, i.Cluster)
	for n, pool := range pools {
		op, err := gke.Projects.Locations.Clusters.NodePools.Create(clusterName, &container.CreateNodePoolRequest{NodePool: &container.NodePool{
			Name: pool, InitialNodeCount: topology.HostsPerPartition, Locations: []string{i.Zone},
			PlacementPolicy: &container.PlacementPolicy{PolicyName: policy},
			Config: &container.NodeConfig{MachineType: topology.MachineType, ReservationAffinity: &container.ReservationAffinity{
				ConsumeReservationType: "SPECIFIC_RESERVATION", Key: "compute.googleapis.com/reservation-name",
				Values: []string{fmt.Sprintf("projects/%s/reservations/tpu7x-reservation/reservationBlocks/block-a/reservationSubBlocks/%s", i.Project, subBlocks[n])},
			}},
			Management: &container.NodeManagement{AutoRepair: true},
		}}).Context(ctx).Do()
		if err != nil {
			t.Fatalf("creating node pool %s: %v", pool, err)
		}
		stack.poolIDs = append(stack.poolIDs, clusterName+"/nodePools/"+pool)
		for op.Status != "DONE" {
			time.Sleep(200 * time.Millisecond)
			if op, err = gke.Projects.Locations.Operations.Get(fmt.Sprintf("projects/%s/locations/%s/operations/%s", i.Project, i.Region, op.Name)).Context(ctx).Do(); err != nil {
				t.Fatalf("waiting for the create of node pool %s: %v", pool, err)
			}
		}
	}

	// kubectl apply -f slice.yaml, of the pools' partitions
	core, err := kubernetes.NewForConfig(accRESTConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	var ids []any
	for _, pool := range pools {
		for {
			nodes, err := core.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + pool})
			if err != nil {
				t.Fatal(err)
			}
			if len(nodes.Items) > 0 && nodes.Items[0].Labels[wellknown.LabelPartitionID] != "" {
				ids = append(ids, nodes.Items[0].Labels[wellknown.LabelPartitionID])
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("the nodes of node pool %s carry no partition ID: %v", pool, ctx.Err())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kernel.SliceGVR.GroupVersion().String(), "kind": "Slice",
		"metadata": map[string]any{"name": slice},
		"spec":     map[string]any{"type": topology.SliceType, "topology": "4x4x8", "partitionIds": ids},
	}}
	if _, err := accKubeSlices(t).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating Slice %s: %v", slice, err)
	}
	awaitSliceState(t, slice, clusterread.SliceActive)
	return stack
}
