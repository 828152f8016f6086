package gkeapi_test

import (
	"net/http"
	"strings"
	"testing"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Sub-block targeting yields 16 Ready nodes with GKE's labels; delete
// removes them and frees the sub-block.
func TestGKENodePoolSubBlockTargeting(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	spec := poolSpec("np-a1", reservationPath("tpu7x-reservation", "block-a", "sub-block-a1"), 16)
	if err := createPool(t, svc, spec); err != nil {
		t.Fatal(err)
	}
	nodes := e.wantPartitionState(t, "np-a1", 16, wellknown.PartitionHealthy)
	partition := nodes[0].Labels[wellknown.LabelPartitionID]
	if len(partition) != 32 {
		t.Errorf("partition ID %q is not 32 hex characters", partition)
	}
	for _, n := range nodes {
		for label, want := range map[string]string{
			wellknown.LabelPartitionID: partition, wellknown.LabelNodePool: "np-a1", wellknown.LabelAccelerator: "tpu7x",
			wellknown.LabelTopologyMode: "PROVISION_ONLY", wellknown.LabelInstanceType: cloud.MachineType,
		} {
			if n.Labels[label] != want {
				t.Errorf("node %s label %s = %q, want %q", n.Name, label, n.Labels[label], want)
			}
		}
		for _, label := range []string{wellknown.LabelTopologyBlock, wellknown.LabelTopologySubBlock, wellknown.LabelTopologyHost} {
			if n.Labels[label] == "" {
				t.Errorf("node %s has no %s label", n.Name, label)
			}
		}
		if !strings.HasPrefix(n.Annotations[wellknown.AnnotationCreatedByMIG], "projects/735972712744/zones/us-central1-a/") {
			t.Errorf("node %s created-by-mig = %q", n.Name, n.Annotations[wellknown.AnnotationCreatedByMIG])
		}
		if !cloud.NodeReady(&n) {
			t.Errorf("node %s is not Ready", n.Name)
		}
	}
	got, err := svc.Projects.Locations.Clusters.NodePools.Get(clusterName() + "/nodePools/np-a1").Do()
	if err != nil || got.Status != "RUNNING" || got.PlacementPolicy.PolicyName != gkePolicy || got.Config.ReservationAffinity.Values[0] != spec.Config.ReservationAffinity.Values[0] {
		t.Fatalf("get pool: %+v, %v", got, err)
	}
	list, err := svc.Projects.Locations.Clusters.NodePools.List(clusterName()).Do()
	if err != nil || len(list.NodePools) == 0 {
		t.Fatalf("list pools: %v", err)
	}

	// The sub-block is taken while the pool exists.
	err = createPool(t, svc, poolSpec("np-a1-again", spec.Config.ReservationAffinity.Values[0], 16))
	wantGKEError(t, err, http.StatusBadRequest, `reservation sub-block "sub-block-a1" is already used by node pool "np-a1"`)

	deletePool(t, svc, "np-a1")
	if n := len(e.poolNodes(t, "np-a1")); n != 0 {
		t.Errorf("%d nodes left after delete", n)
	}
	if err := createPool(t, svc, poolSpec("np-a1-again", spec.Config.ReservationAffinity.Values[0], 16)); err != nil {
		t.Fatalf("the freed sub-block cannot be used again: %v", err)
	}
}

// Block targeting takes a free sub-block, a different one for each pool,
// and fails clearly when none is left.
func TestGKENodePoolBlockTargeting(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	block := reservationPath("tpu7x-reservation-2", "block-c", "")
	for _, name := range []string{"np-c-1", "np-c-2"} {
		if err := createPool(t, svc, poolSpec(name, block, 16)); err != nil {
			t.Fatal(err)
		}
	}
	a := e.wantPartitionState(t, "np-c-1", 16, wellknown.PartitionHealthy)[0].Labels[wellknown.LabelPartitionID]
	b := e.wantPartitionState(t, "np-c-2", 16, wellknown.PartitionHealthy)[0].Labels[wellknown.LabelPartitionID]
	if a == b {
		t.Fatalf("two pools on one partition %s", a)
	}
	err := createPool(t, svc, poolSpec("np-c-3", block, 16))
	wantGKEError(t, err, http.StatusBadRequest, `reservation block "block-c" of reservation "tpu7x-reservation-2" has no available sub-block: all 2 are in use or unhealthy`)
}

func TestGKENodePoolRejected(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	free := reservationPath("tpu7x-reservation", "block-a", "sub-block-a4")
	cases := map[string]struct {
		spec func() *container.NodePool
		code int
		text string
	}{
		"machine type": {func() *container.NodePool {
			s := poolSpec("np-bad", free, 16)
			s.Config.MachineType = "ct6e-standard-4t"
			return s
		}, 400, `machineType "ct6e-standard-4t"`},
		"missing policy": {func() *container.NodePool {
			s := poolSpec("np-bad", free, 16)
			s.PlacementPolicy.PolicyName = "no-such-policy"
			return s
		}, 400, `workload policy "no-such-policy" was not found`},
		"placement type": {func() *container.NodePool {
			s := poolSpec("np-bad", free, 16)
			s.PlacementPolicy.Type = "COMPACT"
			return s
		}, 400, `placementPolicy.type "COMPACT" cannot be set`},
		"unknown sub-block": {func() *container.NodePool {
			return poolSpec("np-bad", reservationPath("tpu7x-reservation", "block-a", "sub-block-zz"), 16)
		}, 404, `reservation sub-block "sub-block-zz" was not found`},
		"unknown block": {func() *container.NodePool {
			return poolSpec("np-bad", reservationPath("tpu7x-reservation", "block-zz", ""), 16)
		}, 404, `reservation block "block-zz" of reservation "tpu7x-reservation" was not found`},
		"malformed path": {func() *container.NodePool {
			return poolSpec("np-bad", "tpu7x-reservation", 16)
		}, 400, "must be projects/P/reservations/R/reservationBlocks/B"},
		"too many nodes": {func() *container.NodePool {
			return poolSpec("np-bad", free, 17)
		}, 400, "1 to 16 nodes"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			wantGKEError(t, createPool(t, svc, tc.spec()), tc.code, tc.text)
		})
	}
}

// An unhealthy host gives incremental provisioning: 15 nodes and an
// INCOMPLETE partition until the host is repaired.
func TestGKEIncrementalProvisioning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	if err := createPool(t, svc, poolSpec("np-b3", reservationPath("tpu7x-reservation", "block-b", "sub-block-b3"), 16)); err != nil {
		t.Fatal(err)
	}
	e.wantPartitionState(t, "np-b3", 15, wellknown.PartitionIncomplete)
	e.setHostHealth(t, "np-b3", 11, cloud.HostHealthy)
	e.wantPartitionState(t, "np-b3", 16, wellknown.PartitionHealthy)

	// A node vanishing makes the partition INCOMPLETE again.
	vanished := e.poolNodes(t, "np-b3")[3]
	host := hostOf(t, vanished)
	e.vanishNode(t, vanished)
	e.wantPartitionState(t, "np-b3", 15, wellknown.PartitionIncomplete)
	// Repairing the host brings the node back.
	e.setHostHealth(t, "np-b3", host, cloud.HostHealthy)
	e.wantPartitionState(t, "np-b3", 16, wellknown.PartitionHealthy)
}

// Host health at run time: DEGRADED and UNHEALTHY show on the partition.
func TestGKEPartitionStateFollowsHostHealth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	if err := createPool(t, svc, poolSpec("np-b2", reservationPath("tpu7x-reservation", "block-b", "sub-block-b2"), 16)); err != nil {
		t.Fatal(err)
	}
	e.wantPartitionState(t, "np-b2", 16, wellknown.PartitionDegraded)
	e.setHostHealth(t, "np-b2", 0, cloud.HostUnhealthy)
	nodes := e.wantPartitionState(t, "np-b2", 16, wellknown.PartitionUnhealthy)
	notReady := 0
	for _, n := range nodes {
		if !cloud.NodeReady(&n) {
			notReady++
		}
	}
	if notReady != 1 {
		t.Errorf("%d nodes NotReady, want the one on the unhealthy host", notReady)
	}
}

// Fewer than 16 nodes leave the partition UNSET.
func TestGKESmallPoolIsUnset(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	if err := createPool(t, svc, poolSpec("np-b4-small", reservationPath("tpu7x-reservation", "block-b", "sub-block-b4"), 4)); err != nil {
		t.Fatal(err)
	}
	e.wantPartitionState(t, "np-b4-small", 4, wellknown.PartitionUnset)
}
