package reservation

import (
	"errors"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	container "google.golang.org/api/container/v1"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
)

func withTopology(s *computepb.ReservationSubBlock, state string, healthy int32) *computepb.ReservationSubBlock {
	s.AcceleratorTopologiesInfo = &computepb.AcceleratorTopologiesInfo{AcceleratorTopologyInfos: []*computepb.AcceleratorTopologiesInfoAcceleratorTopologyInfo{{
		AcceleratorTopology:   proto.String("4x4x4"),
		InfoPerTopologyStates: []*computepb.AcceleratorTopologiesInfoAcceleratorTopologyInfoInfoPerTopologyState{{State: proto.String(state), Count: proto.Int32(1)}},
	}}}
	s.HealthInfo.HealthyHostCount = proto.Int32(healthy)
	s.HealthInfo.DegradedHostCount = proto.Int32(16 - healthy)
	return s
}

// At plan, a sub-block whose topology is AVAILABLE passes; one in use is
// refused naming its pool and the available sub-blocks, unless the pool on
// it is the planned one (adopted) or the pools cannot be listed; a free one
// with no healthy host is refused, one with some UNHEALTHY is a warning,
// one with only degraded hosts passes; an unknown
// sub-block is refused naming the known ones.
func TestPlanTarget(t *testing.T) {
	t.Parallel()
	const cluster = "projects/proj/locations/us-central1/clusters/cluster-1"
	c := enginetest.NewCompute()
	c.SetBlock(
		withTopology(enginetest.SubBlock("sb-a", 0, "phys-a"), "AVAILABLE", 16),
		withTopology(enginetest.SubBlock("sb-b", 16, "phys-b"), "RUNNING", 16),
		withTopology(enginetest.SubBlock("sb-c", 0, "phys-c"), "DEGRADED", 15),
		withTopology(enginetest.SubBlock("sb-d", 0, "phys-d"), "DEGRADED", 0),
		withTopology(enginetest.SubBlock("sb-e", 0, "phys-e"), "DEGRADED", 15),
	)
	c.SubBlocks[enginetest.Project+"/"+enginetest.Zone+"/"+enginetest.Reservation+"/"+enginetest.Block][2].HealthInfo.HealthStatus = proto.String("UNHEALTHY")
	c.SubBlocks[enginetest.Project+"/"+enginetest.Zone+"/"+enginetest.Reservation+"/"+enginetest.Block][4].HealthInfo.HealthStatus = proto.String("DEGRADED")
	onB := &container.NodePool{Name: "pool-b", Status: "PROVISIONING", Config: &container.NodeConfig{ReservationAffinity: &container.ReservationAffinity{
		Values: []string{Target{Project: enginetest.Project, Reservation: enginetest.Reservation, Block: enginetest.Block, SubBlock: "sb-b"}.Path()}}}}
	target := func(sub string) Target {
		return Target{Project: enginetest.Project, Zone: enginetest.Zone, Reservation: enginetest.Reservation, Block: enginetest.Block, SubBlock: sub}
	}
	ctx := t.Context()
	r := New(c, clusterFake{cluster: cluster, pools: []*container.NodePool{onB}})
	for _, tc := range []struct {
		sub, pool, wantErr, wantWarning string
	}{
		{sub: "sb-a", pool: "new"},
		{sub: "", pool: "new"},
		{sub: "sb-b", pool: "new", wantErr: `reservation sub-block "sb-b" of block "block-1" is already in use by node pool pool-b (PROVISIONING) (its topology is 4x4x4 RUNNING`},
		{sub: "sb-b", pool: "pool-b"},
		{sub: "sb-c", pool: "new", wantWarning: `Reservation sub-block "sb-c" of block "block-1" is 4x4x4 DEGRADED: 1 of its 16 hosts are not healthy`},
		{sub: "sb-e", pool: "new"},
		{sub: "sb-d", pool: "new", wantErr: `reservation sub-block "sb-d" of block "block-1" has no healthy host`},
		{sub: "sb-z", pool: "new", wantErr: `its sub-blocks are: sb-a, sb-b, sb-c, sb-d, sb-e`},
	} {
		warning, err := r.PlanTarget(ctx, target(tc.sub), tc.pool)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s for %s: error %v, want one saying %q", tc.sub, tc.pool, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s for %s: error %v", tc.sub, tc.pool, err)
		case !strings.Contains(warning, tc.wantWarning) || (tc.wantWarning == "") != (warning == ""):
			t.Errorf("%s for %s: warning %q, want %q", tc.sub, tc.pool, warning, tc.wantWarning)
		}
		if err != nil && tc.wantErr != "" && strings.Contains(tc.wantErr, "in use") && !strings.Contains(err.Error(), "available sub-blocks of the block: sb-a") {
			t.Errorf("%s: %v does not name the available sub-block sb-a", tc.sub, err)
		}
	}
	// The pools cannot be listed: the create checks it.
	unlisted := New(c, clusterFake{cluster: cluster, poolsErr: errors.New("no cluster")})
	if _, err := unlisted.PlanTarget(ctx, target("sb-b"), "new"); err != nil {
		t.Errorf("pools not listed: %v", err)
	}
	// No cluster: in use is in use.
	noCluster := New(c, clusterFake{poolsErr: errors.New("no cluster")})
	if _, err := noCluster.PlanTarget(ctx, target("sb-b"), "new"); err == nil || !strings.Contains(err.Error(), "is already in use (its topology") {
		t.Errorf("no cluster: %v", err)
	}
	// An unknown block names the known ones (the engine's read of it).
	_, err := r.PlanTarget(ctx, Target{Project: enginetest.Project, Zone: enginetest.Zone, Reservation: enginetest.Reservation, Block: "block-9"}, "new")
	if err == nil || !strings.Contains(err.Error(), `reservation block "block-9" was not found`) {
		t.Errorf("unknown block: %v", err)
	}
}
