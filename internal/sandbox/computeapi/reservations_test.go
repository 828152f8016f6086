package computeapi_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

func TestComputeReservationGet(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewReservationsRESTClient)
	r, err := c.Get(ctx, &computepb.GetReservationRequest{Project: inv.Project, Zone: inv.Zone, Reservation: testReservation})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if r.GetKind() != "compute#reservation" || r.GetName() != testReservation || r.GetStatus() != "READY" ||
		r.GetZone() != testZoneLink || r.GetSelfLink() != testZoneLink+"/reservations/"+testReservation ||
		!r.GetSpecificReservationRequired() || r.GetDeploymentType() != "DENSE" || r.GetId() == 0 {
		t.Errorf("reservation %v", r)
	}
	sr := r.GetSpecificReservation()
	if sr.GetCount() != 8*16 || sr.GetInUseCount() != 0 || sr.GetInstanceProperties().GetMachineType() != "tpu7x-standard-4t" {
		t.Errorf("specificReservation count %d, inUseCount %d, machineType %q; want 128, 0, tpu7x-standard-4t",
			sr.GetCount(), sr.GetInUseCount(), sr.GetInstanceProperties().GetMachineType())
	}

	_, err = c.Get(ctx, &computepb.GetReservationRequest{Project: inv.Project, Zone: inv.Zone, Reservation: "other"})
	wantAPIError(t, err, http.StatusNotFound, "reservations/other' was not found")
	_, err = c.Get(ctx, &computepb.GetReservationRequest{Project: inv.Project, Zone: "us-central1-b", Reservation: testReservation})
	wantAPIError(t, err, http.StatusNotFound, `the sandbox zone is "us-central1-a"`)
}

func TestComputeReservationBlocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewReservationBlocksRESTClient)
	var blocks []*computepb.ReservationBlock
	it := c.List(ctx, &computepb.ListReservationBlocksRequest{Project: inv.Project, Zone: inv.Zone, Reservation: testReservation})
	for {
		b, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		blocks = append(blocks, b)
	}
	if len(blocks) != 2 || blocks[0].GetName() != "block-a" || blocks[1].GetName() != "block-b" {
		t.Fatalf("blocks %v; want block-a and block-b", blocks)
	}
	type want struct {
		health            string
		healthy, degraded int32
	}
	for i, w := range []want{{"HEALTHY", 4, 0}, {"DEGRADED", 2, 2}} {
		b := blocks[i]
		if b.GetKind() != "compute#reservationBlock" || b.GetStatus() != "READY" || b.GetZone() != testZoneLink ||
			b.GetSelfLink() != testZoneLink+"/reservations/"+testReservation+"/reservationBlocks/"+b.GetName() || b.GetId() == 0 {
			t.Errorf("%s: %v", b.GetName(), b)
		}
		if b.GetCount() != 64 || b.GetInUseCount() != 0 || b.GetReservationSubBlockCount() != 4 || b.GetReservationSubBlockInUseCount() != 0 {
			t.Errorf("%s: count %d, inUseCount %d, reservationSubBlockCount %d, reservationSubBlockInUseCount %d; want 64, 0, 4, 0",
				b.GetName(), b.GetCount(), b.GetInUseCount(), b.GetReservationSubBlockCount(), b.GetReservationSubBlockInUseCount())
		}
		h := b.GetHealthInfo()
		if h.GetHealthStatus() != w.health || h.GetHealthySubBlockCount() != w.healthy || h.GetDegradedSubBlockCount() != w.degraded {
			t.Errorf("%s: health %s, healthy %d, degraded %d; want %s, %d, %d", b.GetName(),
				h.GetHealthStatus(), h.GetHealthySubBlockCount(), h.GetDegradedSubBlockCount(), w.health, w.healthy, w.degraded)
		}
		key := &cloud.SubBlockState{Reservation: testReservation, Block: b.GetName()}
		if pt := b.GetPhysicalTopology(); pt.GetCluster() != cloud.ClusterTopologyID(testReservation) || pt.GetBlock() != cloud.BlockTopologyID(key) {
			t.Errorf("%s: physicalTopology %v; want cluster %s, block %s", b.GetName(), pt, cloud.ClusterTopologyID(testReservation), cloud.BlockTopologyID(key))
		}
	}
	if blocks[0].GetPhysicalTopology().GetBlock() == blocks[1].GetPhysicalTopology().GetBlock() {
		t.Error("both blocks have the same physicalTopology.block")
	}

	got, err := c.Get(ctx, &computepb.GetReservationBlockRequest{Project: inv.Project, Zone: inv.Zone,
		Reservation: testReservation, ReservationBlock: "block-b"})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if !proto.Equal(got.GetResource(), blocks[1]) {
		t.Errorf("get block-b = %v; want %v as listed", got.GetResource(), blocks[1])
	}
	_, err = c.Get(ctx, &computepb.GetReservationBlockRequest{Project: inv.Project, Zone: inv.Zone,
		Reservation: testReservation, ReservationBlock: "block-z"})
	wantAPIError(t, err, http.StatusNotFound, "reservationBlocks/block-z' was not found")
}

func listSubBlocks(ctx context.Context, t *testing.T, c *compute.ReservationSubBlocksClient, block string) []*computepb.ReservationSubBlock {
	t.Helper()
	var out []*computepb.ReservationSubBlock
	it := c.List(ctx, &computepb.ListReservationSubBlocksRequest{Project: inv.Project, Zone: inv.Zone,
		ParentName: "reservations/" + testReservation + "/reservationBlocks/" + block})
	for {
		s, err := it.Next()
		if err == iterator.Done {
			return out
		}
		if err != nil {
			t.Fatalf("list sub-blocks of %s: %v", block, err)
		}
		out = append(out, s)
	}
}

func TestComputeReservationSubBlocks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewReservationSubBlocksRESTClient)
	subs := listSubBlocks(ctx, t, c, "block-b")
	type want struct {
		name              string
		health            string
		healthy, degraded int32
	}
	wants := []want{{"sub-block-b1", "HEALTHY", 16, 0}, {"sub-block-b2", "DEGRADED", 15, 1}, {"sub-block-b3", "UNHEALTHY", 15, 1}, {"sub-block-b4", "HEALTHY", 16, 0}}
	if len(subs) != len(wants) {
		t.Fatalf("%d sub-blocks; want %d", len(subs), len(wants))
	}
	seen := map[string]bool{}
	for i, w := range wants {
		s := subs[i]
		if s.GetName() != w.name || s.GetKind() != "compute#reservationSubBlock" || s.GetStatus() != "READY" || s.GetZone() != testZoneLink ||
			s.GetSelfLink() != testZoneLink+"/reservations/"+testReservation+"/reservationBlocks/block-b/reservationSubBlocks/"+w.name || s.GetId() == 0 {
			t.Errorf("sub-block %d: %v; want %s", i, s, w.name)
		}
		if s.GetCount() != 16 || s.GetInUseCount() != 0 {
			t.Errorf("%s: count %d, inUseCount %d; want 16, 0", w.name, s.GetCount(), s.GetInUseCount())
		}
		h := s.GetHealthInfo()
		if h.GetHealthStatus() != w.health || h.GetHealthyHostCount() != w.healthy || h.GetDegradedHostCount() != w.degraded {
			t.Errorf("%s: health %s, healthy hosts %d, degraded hosts %d; want %s, %d, %d", w.name,
				h.GetHealthStatus(), h.GetHealthyHostCount(), h.GetDegradedHostCount(), w.health, w.healthy, w.degraded)
		}
		st := e.w.FindSubBlock(testReservation, "block-b", w.name)
		pt := s.GetPhysicalTopology()
		if pt.GetCluster() != cloud.ClusterTopologyID(testReservation) || pt.GetBlock() != cloud.BlockTopologyID(st) || pt.GetSubBlock() != cloud.SubBlockTopologyID(st) {
			t.Errorf("%s: physicalTopology %v; want cluster %s, block %s, subBlock %s", w.name, pt,
				cloud.ClusterTopologyID(testReservation), cloud.BlockTopologyID(st), cloud.SubBlockTopologyID(st))
		}
		if len(pt.GetSubBlock()) != 16 || seen[pt.GetSubBlock()] {
			t.Errorf("%s: physicalTopology.subBlock %q is not a new 16-character ID", w.name, pt.GetSubBlock())
		}
		seen[pt.GetSubBlock()] = true
	}

	got, err := c.Get(ctx, &computepb.GetReservationSubBlockRequest{Project: inv.Project, Zone: inv.Zone,
		ParentName: "reservations/" + testReservation + "/reservationBlocks/block-b", ReservationSubBlock: "sub-block-b3"})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if !proto.Equal(got.GetResource(), subs[2]) {
		t.Errorf("get sub-block-b3 = %v; want %v as listed", got.GetResource(), subs[2])
	}
	_, err = c.Get(ctx, &computepb.GetReservationSubBlockRequest{Project: inv.Project, Zone: inv.Zone,
		ParentName: "reservations/" + testReservation + "/reservationBlocks/block-b", ReservationSubBlock: "sub-block-a1"})
	wantAPIError(t, err, http.StatusNotFound, "reservationBlocks/block-b/reservationSubBlocks/sub-block-a1' was not found")
}

func TestComputeSubBlockPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewReservationSubBlocksRESTClient)
	it := c.List(ctx, &computepb.ListReservationSubBlocksRequest{Project: inv.Project, Zone: inv.Zone,
		ParentName: "reservations/" + testReservation + "/reservationBlocks/block-a"})
	pager := iterator.NewPager(it, 3, "")
	var sizes []int
	var names []string
	for {
		var page []*computepb.ReservationSubBlock
		next, err := pager.NextPage(&page)
		if err != nil {
			t.Fatalf("page: %v", err)
		}
		sizes = append(sizes, len(page))
		for _, s := range page {
			names = append(names, s.GetName())
		}
		if next == "" {
			break
		}
	}
	if !slices.Equal(sizes, []int{3, 1}) || !slices.Equal(names, []string{"sub-block-a1", "sub-block-a2", "sub-block-a3", "sub-block-a4"}) {
		t.Errorf("pages of %v holding %v; want pages of [3 1] holding sub-block-a1..a4", sizes, names)
	}
}

func TestComputeInUseCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	reservations := newComputeClient(t, e, compute.NewReservationsRESTClient)
	blocks := newComputeClient(t, e, compute.NewReservationBlocksRESTClient)
	subBlocks := newComputeClient(t, e, compute.NewReservationSubBlocksRESTClient)
	read := func() (res int64, block, blockSubs, sub int32) {
		t.Helper()
		r, err := reservations.Get(ctx, &computepb.GetReservationRequest{Project: inv.Project, Zone: inv.Zone, Reservation: testReservation})
		if err != nil {
			t.Fatalf("reservation: %v", err)
		}
		b, err := blocks.Get(ctx, &computepb.GetReservationBlockRequest{Project: inv.Project, Zone: inv.Zone,
			Reservation: testReservation, ReservationBlock: "block-a"})
		if err != nil {
			t.Fatalf("block: %v", err)
		}
		s, err := subBlocks.Get(ctx, &computepb.GetReservationSubBlockRequest{Project: inv.Project, Zone: inv.Zone,
			ParentName: "reservations/" + testReservation + "/reservationBlocks/block-a", ReservationSubBlock: "sub-block-a2"})
		if err != nil {
			t.Fatalf("sub-block: %v", err)
		}
		return r.GetSpecificReservation().GetInUseCount(), b.GetResource().GetInUseCount(), b.GetResource().GetReservationSubBlockInUseCount(), s.GetResource().GetInUseCount()
	}

	w := e.w
	sub := w.FindSubBlock(testReservation, "block-a", "sub-block-a2")
	w.Mu.Lock()
	if sub.NodePool != "" {
		w.Mu.Unlock()
		t.Fatalf("sub-block-a2 is already used by %q", sub.NodePool)
	}
	w.Mu.Unlock()
	res0, block0, blockSubs0, sub0 := read()
	if sub0 != 0 {
		t.Fatalf("free sub-block-a2 has inUseCount %d; want 0", sub0)
	}

	w.Mu.Lock()
	sub.NodePool = "pool-in-use-test"
	w.Mu.Unlock()
	res1, block1, blockSubs1, sub1 := read()
	if sub1 != 16 || block1-block0 != 16 || blockSubs1-blockSubs0 != 1 || res1-res0 != 16 {
		t.Errorf("after occupying sub-block-a2: sub-block inUseCount %d (want 16), block inUseCount +%d (want +16), "+
			"reservationSubBlockInUseCount +%d (want +1), reservation inUseCount +%d (want +16)", sub1, block1-block0, blockSubs1-blockSubs0, res1-res0)
	}
}
