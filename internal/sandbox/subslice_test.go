package sandbox

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// subPartitions creates a 16-node pool on the sub-block and returns its
// nodes by host index.
func subPartitions(t *testing.T, pool, block, subBlock string, want int) map[int]corev1.Node {
	t.Helper()
	if err := createPool(t, newGKEService(t), poolSpec(pool, reservationPath("tpu7x-reservation", block, subBlock), 16)); err != nil {
		t.Fatal(err)
	}
	byHost := map[int]corev1.Node{}
	for _, n := range poolNodes(t, pool) {
		h, err := strconv.Atoi(n.Annotations[cloud.AnnotationHostIndex])
		if err != nil {
			t.Fatalf("node %s has no host index", n.Name)
		}
		byHost[h] = n
	}
	if len(byHost) != want {
		t.Fatalf("pool %s has %d nodes, want %d", pool, len(byHost), want)
	}
	return byHost
}

func subID(n corev1.Node, shape string) string { return n.Labels[topology.PartitionIDLabel(shape)] }

func subState(n corev1.Node, shape string) string {
	return n.Labels[topology.PartitionStateLabel(shape)]
}

// Every node carries the ID and state of its partition of each shape;
// the IDs nest, are stable, and the states follow the hosts of each.
func TestSubPartitionLabels(t *testing.T) {
	needSandbox(t)
	nodes := subPartitions(t, "sp-a4", "block-a", "sub-block-a4", 16)
	sb := &cloud.SubBlockState{Reservation: "tpu7x-reservation", Block: "block-a", Name: "sub-block-a4"}
	for _, shape := range topology.PartitionShapes {
		ids := map[string]int{}
		for h, n := range nodes {
			id := subID(n, shape)
			if want := sb.SubPartitionID(shape, topology.SubPartitionIndex(h, shape)); id != want {
				t.Errorf("host %d: %s ID %q, want the stable %q", h, shape, id, want)
			}
			if subState(n, shape) != wellknown.PartitionHealthy {
				t.Errorf("host %d: %s state %q", h, shape, subState(n, shape))
			}
			ids[id]++
		}
		if len(ids) != topology.PartitionsPerSubBlock(shape) {
			t.Errorf("%d distinct %s IDs, want %d", len(ids), shape, topology.PartitionsPerSubBlock(shape))
		}
		for id, n := range ids {
			if n != topology.HostsOfShape(shape) || len(id) != 32 {
				t.Errorf("%s partition %q has %d nodes, want %d", shape, id, n, topology.HostsOfShape(shape))
			}
		}
	}
	if subID(nodes[0], "4x4x4") != nodes[0].Labels[wellknown.LabelPartitionID] || subID(nodes[0], "4x4x4") != sb.PartitionID() {
		t.Error("the 4x4x4 ID is the sub-block's partition ID")
	}
	// Nodes that share a partition share every larger one.
	for h := range HostsPerSubBlock {
		for _, other := range []int{h ^ 1, h ^ 3, h ^ 7} {
			for i, small := range topology.PartitionShapes {
				if subID(nodes[h], small) != subID(nodes[other], small) {
					continue
				}
				for _, large := range topology.PartitionShapes[i:] {
					if subID(nodes[h], large) != subID(nodes[other], large) {
						t.Errorf("hosts %d and %d share a %s but not a %s", h, other, small, large)
					}
				}
			}
		}
	}

	// A degraded host degrades the 4x4x4 only; an unhealthy host (no node
	// yet: incremental provisioning) leaves its partitions INCOMPLETE.
	b2 := subPartitions(t, "sp-b2", "block-b", "sub-block-b2", 16) // host 5 DEGRADED
	if subState(b2[5], "4x4x4") != wellknown.PartitionDegraded {
		t.Errorf("4x4x4 with a degraded host: %s", subState(b2[5], "4x4x4"))
	}
	for _, shape := range topology.SubSliceShapes {
		if subState(b2[5], shape) != wellknown.PartitionHealthy {
			t.Errorf("%s on a degraded host: %s, want HEALTHY (DEGRADED exists only for 4x4x4)", shape, subState(b2[5], shape))
		}
	}
	b3 := subPartitions(t, "sp-b3", "block-b", "sub-block-b3", 15) // host 11 UNHEALTHY
	for shape, want := range map[string]string{"2x2x1": wellknown.PartitionHealthy, "2x2x2": wellknown.PartitionIncomplete, "2x2x4": wellknown.PartitionIncomplete, "2x4x4": wellknown.PartitionIncomplete, "4x4x4": wellknown.PartitionIncomplete} {
		if got := subState(b3[10], shape); got != want {
			t.Errorf("host 10 beside the missing host 11: %s %s, want %s", shape, got, want)
		}
	}
	if got := subState(b3[0], "2x4x4"); got != wellknown.PartitionHealthy {
		t.Errorf("the other 2x4x4 half: %s, want HEALTHY", got)
	}
}

// Each sub-slice shape forms from one partition ID of its shape, all four
// side by side in one sub-block, and labels only its own nodes; a slice
// that overlaps one of them, or lists an ID of another shape, fails.
func TestSubSlices(t *testing.T) {
	needSandbox(t)
	nodes := subPartitions(t, "sp-a3", "block-a", "sub-block-a3", 16)
	subs := []struct {
		name, shape string
		host        int // the first host of the partition
	}{
		{"sub-one", "2x2x1", 0}, {"sub-two", "2x2x2", 2}, {"sub-four", "2x2x4", 4}, {"sub-eight", "2x4x4", 8},
	}
	for _, s := range subs {
		createSlice(t, s.name, s.shape, []string{subID(nodes[s.host], s.shape)}, nil)
	}
	for _, s := range subs {
		waitSliceState(t, s.name, ReasonActive)
		if got, want := sliceLabelledNodes(t, s.name), topology.HostsOfShape(s.shape); got != want {
			t.Errorf("%s: %d nodes labelled, want %d", s.name, got, want)
		}
	}
	for _, node := range poolNodes(t, "sp-a3") {
		if node.Annotations[cloud.AnnotationHostIndex] == "1" && node.Labels[wellknown.LabelSlice] != "" {
			t.Errorf("host 1 belongs to no sub-slice but is labelled %q", node.Labels[wellknown.LabelSlice])
		}
	}

	cases := []struct {
		name, topo string
		ids        []string
		text       string
	}{
		{"over-super", "4x4x4", []string{subID(nodes[0], "4x4x4")}, "are used by slice sub-one (its partition " + subID(nodes[0], "2x2x1") + " overlaps this one)"},
		{"over-inside", "2x2x1", []string{subID(nodes[5], "2x2x1")}, "are used by slice sub-four (its partition " + subID(nodes[4], "2x2x4") + " overlaps this one)"},
		{"over-around", "2x2x2", []string{subID(nodes[0], "2x2x2")}, "are used by slice sub-one"},
		{"wrong-shape", "2x2x2", []string{subID(nodes[0], "2x2x4")}, "is not a 2x2x2 partition: a 2x2x2 slice is formed from the cloud.google.com/gke-tpu-partition-2x2x2-id label"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			createSlice(t, tc.name, tc.topo, tc.ids, nil)
			obj := waitSliceState(t, tc.name, ReasonSliceCreationFailed)
			if _, msg := slicecontroller.ReadyReason(obj); !strings.Contains(msg, tc.text) {
				t.Errorf("message %q, want %q", msg, tc.text)
			}
		})
	}
	// The free 2x2x1 on host 1 still forms.
	createSlice(t, "sub-last", "2x2x1", []string{subID(nodes[1], "2x2x1")}, nil)
	waitSliceState(t, "sub-last", ReasonActive)
}

// A sub-slice follows the health of its own hosts: a degraded host leaves
// it ACTIVE, an unhealthy one fails it; the other sub-slices stay ACTIVE.
func TestSubSliceFollowsHealth(t *testing.T) {
	needSandbox(t)
	nodes := subPartitions(t, "sp-a2", "block-a", "sub-block-a2", 16)
	createSlice(t, "serve-0", "2x2x2", []string{subID(nodes[6], "2x2x2")}, nil)
	createSlice(t, "serve-1", "2x2x2", []string{subID(nodes[8], "2x2x2")}, nil)
	waitSliceState(t, "serve-0", ReasonActive)
	waitSliceState(t, "serve-1", ReasonActive)
	ctx := testContext(t)
	set := func(health string) {
		if err := testSandbox.SetHostHealth(ctx, "tpu7x-reservation", "block-a", "sub-block-a2", 7, health); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { set(HostHealthy) })
	set(HostDegraded)
	waitPartitionState(t, "sp-a2", 16, wellknown.PartitionDegraded)
	waitSliceState(t, "serve-0", ReasonActive)
	set(HostUnhealthy)
	obj := waitSliceState(t, "serve-0", ReasonFailed)
	if _, msg := slicecontroller.ReadyReason(obj); !strings.Contains(msg, "became UNHEALTHY") {
		t.Errorf("message %q", msg)
	}
	waitSliceState(t, "serve-1", ReasonActive)
}

// clusters.get reports the GKE version, which the control endpoint sets.
func TestClusterVersion(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	c, err := svc.Projects.Locations.Clusters.Get(clusterName()).Context(testContext(t)).Do()
	if err != nil || c.CurrentMasterVersion != DefaultClusterVersion {
		t.Fatalf("currentMasterVersion %q, %v; want %s", c.CurrentMasterVersion, err, DefaultClusterVersion)
	}
	if code, body := control(t, http.MethodPut, "sandbox/cluster/version", testSandbox.Token, map[string]string{"version": "1.35.4-gke.1000000"}); code != http.StatusOK {
		t.Fatalf("PUT version: %d %s", code, body)
	}
	t.Cleanup(func() { testSandbox.SetClusterVersion(DefaultClusterVersion) })
	if c, err = svc.Projects.Locations.Clusters.Get(clusterName()).Context(context.Background()).Do(); err != nil || c.CurrentMasterVersion != "1.35.4-gke.1000000" {
		t.Errorf("after the change: %q, %v", c.CurrentMasterVersion, err)
	}
}
