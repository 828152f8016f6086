package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// TestAccExampleStack applies examples/stacks/sub-block-node-pools with the
// terraform CLI and a development override of this provider, as a user
// would against the sandbox: one policy and a node pool per free sub-block,
// each pool's partition shown, an empty plan afterwards, a clean import,
// and a destroy that leaves nothing. (terraform-plugin-testing cannot read
// for_each resources with string keys, which the example uses.)
func TestAccExampleStack(t *testing.T) {
	needSandboxInventory(t, "the example's defaults: the sandbox's reservation, and a pool on each of block-a's four free sub-blocks")
	work := t.TempDir()
	copyTree(t, "../../examples/stacks/sub-block-node-pools", work)
	cli := initWorkspace(t, work)
	mustTF, emptyPlan := cli.must, cli.emptyPlan

	mustTF("apply", "-auto-approve", "-input=false", "-no-color")
	var partitions map[string]struct {
		SubBlock string `json:"sub_block"`
		ID       string `json:"id"`
		State    string `json:"state"`
		Ready    int    `json:"ready"`
	}
	if err := json.Unmarshal([]byte(mustTF("output", "-json", "partitions")), &partitions); err != nil {
		t.Fatal(err)
	}
	if len(partitions) != 4 {
		t.Fatalf("partitions output has %d pools, want one per free sub-block of block-a (4): %v", len(partitions), partitions)
	}
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for pool, p := range partitions {
		if !hex32.MatchString(p.ID) || p.State != "HEALTHY" || p.Ready != 16 || pool != "train-"+p.SubBlock {
			t.Errorf("pool %s: %+v", pool, p)
		}
	}
	emptyPlan("after apply")

	// Import one pool into a state that forgot it.
	addr := `gke_subblock_node_pool.pool["sub-block-a1"]`
	mustTF("state", "rm", addr)
	mustTF("import", "-input=false", "-no-color", addr, "projects/sandbox-project/locations/us-central1/clusters/ironwood/nodePools/train-sub-block-a1")
	emptyPlan("after import")

	mustTF("destroy", "-auto-approve", "-input=false", "-no-color")
	e := accEngine(t)
	for pool := range partitions {
		if _, err := e.NodePools().Read(context.Background(), "projects/sandbox-project/locations/us-central1/clusters/ironwood/nodePools/"+pool); !errors.Is(err, kernel.ErrNotFound) {
			t.Errorf("pool %s still exists after destroy (%v)", pool, err)
		}
		if n, err := accNodeCount(t, wellknown.LabelNodePool+"="+pool); err != nil || n != 0 {
			t.Errorf("pool %s left %d nodes (%v)", pool, n, err)
		}
	}
	if _, err := e.Policies().Read(context.Background(), "sandbox-project", "us-central1", "train-dynamic-slicing"); !errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("the workload policy still exists after destroy (%v)", err)
	}
}

// TestAccServingAndTrainingStack applies examples/stacks/serving-and-training
// as a user would: four sub-slices of one sub-block (its 4x4x4 partition
// DEGRADED, its sub-partitions HEALTHY) beside a 4x4x8 training slice, all
// ACTIVE, one host of the serving sub-block left, one Job per slice, an
// empty plan afterwards and a destroy that leaves no Slice.
func TestAccServingAndTrainingStack(t *testing.T) {
	needSandboxInventory(t, "the example's defaults: the sandbox's reservation, with a degraded sub-block for serving")
	work := t.TempDir()
	copyTree(t, "../../examples/stacks/serving-and-training", work)
	cli := initWorkspace(t, work)
	cli.must("apply", "-auto-approve", "-input=false", "-no-color")

	var slices map[string]struct {
		State, Topology string
		Hosts           int
		PartitionIDs    []string `json:"partition_ids"`
	}
	if err := json.Unmarshal([]byte(cli.must("output", "-json", "slices")), &slices); err != nil {
		t.Fatal(err)
	}
	var serving string
	if err := json.Unmarshal([]byte(cli.must("output", "-json", "serving_partition")), &serving); err != nil {
		t.Fatal(err)
	}
	if len(slices) != 5 {
		t.Fatalf("%d slices, want 4 serving and 1 training: %v", len(slices), slices)
	}
	e := accEngine(t)
	for name, s := range slices {
		if s.State != "ACTIVE" {
			t.Errorf("slice %s is %s", name, s.State)
		}
		if name == "train" {
			if s.Topology != "4x4x8" || len(s.PartitionIDs) != 2 {
				t.Errorf("train: %+v", s)
			}
			continue
		}
		parts, err := e.Cluster().ListPartitions(context.Background(), clusterread.PartitionFilter{Shape: s.Topology})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if p.ID == s.PartitionIDs[0] && p.Parent != serving {
				t.Errorf("serving slice %s is in sub-block partition %s, not the serving one %s", name, p.Parent, serving)
			}
		}
	}
	var free []string
	if err := json.Unmarshal([]byte(cli.must("output", "-json", "serving_free_hosts")), &free); err != nil || len(free) != 1 {
		t.Errorf("serving_free_hosts %v (%v), want the one host the 15-host fleet leaves", free, err)
	}
	manifests := cli.must("output", "-raw", "workload_manifests")
	if jobs := strings.Count(manifests, `"kind": "Job"`); jobs != 5 {
		t.Errorf("%d Jobs in workload_manifests, want 5", jobs)
	}
	// The Jobs run: the real scheduler binds every pod on its own slice's
	// hosts (one per host), and each Job completes.
	hosts := map[string]int{}
	for name, s := range slices {
		hosts[name] = s.Hosts
	}
	placed := waitPlaced(t, applyWorkloads(t, manifests), 5)
	for job, slice := range checkOnSlices(t, placed, hosts) {
		if job != slice+"-workload" {
			t.Errorf("Job %s ran on slice %s", job, slice)
		}
	}
	cli.emptyPlan("after apply")
	cli.must("destroy", "-auto-approve", "-input=false", "-no-color")
	for name := range slices {
		if _, err := e.Slices().ReadSlice(context.Background(), name); !errors.Is(err, kernel.ErrNotFound) {
			t.Errorf("slice %s still exists after destroy (%v)", name, err)
		}
	}
}

// TestAccKueueMultisliceStack applies examples/stacks/kueue-multislice (a
// pool per free sub-block of block-a, gke_kueue_slicing over them, no
// slices) and runs its JobSet through the real Kueue: it is queued,
// admitted within the ClusterQueue's google.com/tpu quota, the slice
// admission check makes a Slice per Job, the scheduler binds each Job's
// pods on its Slice, and the Slices go when the Jobs are done. Meanwhile a
// second JobSet beyond the quota waits and its Workload says why, and the
// provider sees Kueue's Slices: a slice chosen by partition_selector over
// the stack's pools is warned at plan that none is free while they live
// (naming the workload), and plans cleanly once they are gone. Then a sub-slice Job on the same queue.
func TestAccKueueMultisliceStack(t *testing.T) {
	needSandboxInventory(t, "the example's defaults: the sandbox's reservation, a pool on each of block-a's four free sub-blocks, and kwok's pod timings")
	ns := kueueNamespace(t, "kms")
	root := t.TempDir() // the example names ../../modules/slice-stack
	work := filepath.Join(root, "stacks", "kueue-multislice")
	copyTree(t, "../../examples/stacks/kueue-multislice", work)
	copyTree(t, "../../examples/modules", filepath.Join(root, "modules"))
	if err := os.WriteFile(filepath.Join(work, "terraform.tfvars"), []byte(fmt.Sprintf("namespace = %q\n", ns)), 0o600); err != nil {
		t.Fatal(err)
	}
	cli := initWorkspace(t, work)
	cli.must("apply", "-auto-approve", "-input=false", "-no-color")
	var kueue struct {
		Name     string   `json:"name"`
		TPUQuota int      `json:"tpu_quota"`
		Levels   []string `json:"topology_levels"`
	}
	if err := json.Unmarshal([]byte(cli.must("output", "-json", "kueue")), &kueue); err != nil {
		t.Fatal(err)
	}
	if kueue.Name != "tpu7x" || kueue.TPUQuota != 4*16*4 || len(kueue.Levels) != 7 {
		t.Errorf("kueue output %+v, want tpu7x with 256 chips (4 pools of 16 nodes) and 7 levels", kueue)
	}
	jobset := cli.must("output", "-raw", "jobset_manifest")
	for _, want := range []string{`"kueue.x-k8s.io/queue-name": "tpu7x"`, `"cloud.google.com/gke-tpu-slice-topology": "4x4x8"`,
		`"cloud.google.com/gke-tpu-accelerator": "tpu7x"`, `"parallelism": 32`} {
		if !strings.Contains(jobset, want) {
			t.Errorf("the JobSet lacks %s:\n%s", want, jobset)
		}
	}
	if strings.Contains(jobset, "cloud.google.com/gke-tpu-slice\"") || strings.Contains(jobset, "gke-tpu-topology") {
		t.Errorf("the JobSet selects a slice or topology by node label, which Kueue's path must not:\n%s", jobset)
	}
	cli.emptyPlan("after apply")

	// The JobSet as rendered, its pods told to run 30 s (kwok) so that
	// where they run can be seen.
	submit := func(name string) {
		submitJobSetManifest(t, jobset, name, map[string]string{
			"pod-complete.stage.kwok.x-k8s.io/delay": "30s", "pod-complete.stage.kwok.x-k8s.io/jitter-delay": "30s",
		})
	}
	submit("kueue-multislice")
	first := awaitKueueWorkload(t, ns, "JobSet/kueue-multislice", admittedWith(2))
	checkJobSetOnSlices(t, ns, "kueue-multislice", first.Slices)

	// A second JobSet beyond the quota waits, and says why.
	submit("kueue-multislice-2")
	awaitKueueWorkload(t, ns, "JobSet/kueue-multislice-2", func(w kueueWorkload) string {
		if q := w.Conditions["QuotaReserved"]; !strings.HasPrefix(q, "False") || !strings.Contains(q, "insufficient unused quota for google.com/tpu") {
			return "QuotaReserved is " + q
		}
		return ""
	})
	deleteJobSet(t, ns, "kueue-multislice-2")

	// The provider sees Kueue's Slices: no partition of the stack's pools
	// is free for a slice chosen by selection.
	selected := `
resource "gke_tpu_slice" "selected" {
  name     = "kms-selected"
  topology = "4x4x4"
  partition_selector {
    node_pools = keys(module.stack.node_pools)
  }
}
`
	if err := os.WriteFile(filepath.Join(work, "selected.tf"), []byte(selected), 0o600); err != nil {
		t.Fatal(err)
	}
	// (A warning, not an error: partitions may be freed before the apply.)
	if out, err := cli.run("plan", "-input=false", "-no-color"); err != nil || !strings.Contains(out, "Cannot Select Partitions") ||
		!strings.Contains(out, "used by Kueue workload "+ns+"/"+first.Name) {
		t.Errorf("a slice selected over the stack's pools while Kueue's Slices hold them all: want a plan that warns they are used by Kueue workload %s/%s (%v):\n%s", ns, first.Name, err, out)
	}

	// The Jobs finish; the check deletes the Slices; selection finds the
	// partitions free again.
	awaitKueueWorkload(t, ns, "JobSet/kueue-multislice", func(w kueueWorkload) string {
		if !strings.HasPrefix(w.Conditions["Finished"], "True") {
			return "not finished"
		}
		return slicesGone(w)
	})
	if out, err := cli.run("plan", "-input=false", "-no-color"); err != nil || !strings.Contains(out, "1 to add") {
		t.Errorf("a slice selected over the stack's pools after Kueue's Slices went: %v\n%s", err, out)
	}
	if err := os.Remove(filepath.Join(work, "selected.tf")); err != nil {
		t.Fatal(err)
	}

	// A sub-slice Job on the same queue gets a 2x2x2 Slice.
	submitKueueJob(t, kueueJob(ns, "serve", "tpu7x", "2x2x2", 5*time.Second))
	sub := awaitKueueWorkload(t, ns, "serve", admittedWith(1))
	if s, err := accEngine(t).Slices().ReadSlice(context.Background(), sub.Slices[0]); err != nil || s.Topology != "2x2x2" {
		t.Errorf("the sub-slice Job's Slice %s: %+v, %v", sub.Slices[0], s, err)
	}
	awaitKueueWorkload(t, ns, "serve", slicesGone)

	deleteJobSet(t, ns, "kueue-multislice")
	cli.must("destroy", "-auto-approve", "-input=false", "-no-color")
	if kueueObject(t, "clusterqueues", "", "tpu7x") != nil || kueueObject(t, "localqueues", ns, "tpu7x") != nil {
		t.Error("Kueue objects are left after destroy")
	}
}

// TestAccMultisliceStack applies examples/stacks/multislice (the
// slice-stack module: a pool per free sub-block of block-a, two 4x4x8
// slices) and runs the JobSet it renders: JobSet's own controller and its
// exclusive-topology placement put each of the two Jobs on exactly one
// slice's 32 hosts, a different slice each, and both complete.
func TestAccMultisliceStack(t *testing.T) {
	needSandboxInventory(t, "the example's defaults: the sandbox's reservation, a pool on each of block-a's four free sub-blocks")
	root := t.TempDir()
	work := filepath.Join(root, "stacks", "multislice")
	copyTree(t, "../../examples/stacks/multislice", work)
	copyTree(t, "../../examples/modules", filepath.Join(root, "modules"))
	cli := initWorkspace(t, work)
	cli.must("apply", "-auto-approve", "-input=false", "-no-color")
	var slices map[string]struct {
		State string
		Hosts int
	}
	if err := json.Unmarshal([]byte(cli.must("output", "-json", "slices")), &slices); err != nil {
		t.Fatal(err)
	}
	hosts := map[string]int{}
	for name, s := range slices {
		if s.State != "ACTIVE" {
			t.Errorf("slice %s is %s", name, s.State)
		}
		hosts[name] = s.Hosts
	}
	placed := waitPlaced(t, applyWorkloads(t, cli.must("output", "-raw", "jobset_manifest")), 2)
	used := checkOnSlices(t, placed, hosts)
	if len(used) != 2 {
		t.Errorf("the JobSet's Jobs ran on %v, want one each on the two slices", used)
	}
	for job, slice := range used {
		if _, ok := slices[slice]; !ok {
			t.Errorf("Job %s ran on slice %s, which is not the stack's", job, slice)
		}
	}
	cli.emptyPlan("after apply")
	cli.must("destroy", "-auto-approve", "-input=false", "-no-color")
}

// TestAccDRAStack applies examples/stacks/dra: node pools on GKE's TPU DRA
// driver, a slice with device_access = "dra", and a Job whose pods claim
// their hosts' chips through the slice's ResourceClaimTemplate. The real
// kube-controller-manager makes a claim per pod, the real scheduler
// allocates each on the pod's own node (all four chips), and every pod
// lands on the slice.
func TestAccDRAStack(t *testing.T) {
	needSandboxInventory(t, "the example's defaults: the sandbox's reservation, and the sandbox's TPU DRA driver")
	root := t.TempDir()
	work := filepath.Join(root, "stacks", "dra")
	copyTree(t, "../../examples/stacks/dra", work)
	copyTree(t, "../../examples/modules", filepath.Join(root, "modules"))
	cli := initWorkspace(t, work)
	cli.must("apply", "-auto-approve", "-input=false", "-no-color")
	var slices map[string]struct {
		State        string
		Hosts        int
		DeviceAccess string `json:"device_access"`
	}
	if err := json.Unmarshal([]byte(cli.must("output", "-json", "slices")), &slices); err != nil {
		t.Fatal(err)
	}
	s, ok := slices["dra-slice"]
	if !ok || s.State != "ACTIVE" || s.DeviceAccess != "dra" {
		t.Fatalf("slices output %+v, want dra-slice ACTIVE with device_access dra", slices)
	}
	placed := waitPlaced(t, applyWorkloads(t, cli.must("output", "-raw", "workload_manifests")), 1)
	checkOnSlices(t, placed, map[string]int{"dra-slice": s.Hosts})
	if p := placed["dra-workload"]; p.Claims != s.Hosts {
		t.Errorf("%d of %d pods have their claims allocated on their own node", p.Claims, s.Hosts)
	}
	cli.emptyPlan("after apply")
	cli.must("destroy", "-auto-approve", "-input=false", "-no-color")
}
