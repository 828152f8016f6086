package reservation

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// SubBlock is one reservation sub-block: 16 hosts, one 4x4x4 partition.
type SubBlock struct {
	Name              string
	Count             int64
	InUseCount        int64
	Health            string
	HealthyHostCount  int64
	DegradedHostCount int64
	// PhysicalSubBlock is the opaque ID GKE also puts on the nodes'
	// cloud.google.com/gce-topology-subblock label.
	PhysicalSubBlock string
	Status           string
	// Path is the reservation path that targets this sub-block.
	Path string
	// NodePool is the GKE node pool whose nodes are on the sub-block, as
	// the nodes' labels tell; "" when none is.
	NodePool string
	// Maintenance is the sub-block's pending or ongoing maintenance.
	Maintenance SubBlockMaintenance
	// InUseHostCount is how many of its hosts run a VM (inUseHostCount).
	InUseHostCount int64
	// Topology is the sub-block's accelerator topology (4x4x4 for TPU7x)
	// and TopologyState its state, as Compute Engine reports them
	// (acceleratorTopologiesInfo): AVAILABLE, RUNNING, DEGRADED (or the
	// deprecated UNHEALTHY); "" when Compute Engine reports none.
	Topology, TopologyState string
}

// The states of a sub-block's accelerator topology.
const (
	TopologyAvailable = "AVAILABLE"
	TopologyRunning   = "RUNNING"
	TopologyDegraded  = "DEGRADED"
	TopologyUnhealthy = "UNHEALTHY"
)

// Available says whether Compute Engine reports the sub-block's topology
// AVAILABLE: no VM runs on it and its hosts are healthy. A sub-block whose
// topology Compute Engine does not report is told by its use alone.
func (s SubBlock) Available() bool {
	if s.TopologyState == "" {
		return s.Free()
	}
	return s.TopologyState == TopologyAvailable
}

// topologyOf is the first accelerator topology of a sub-block and the
// state most of it is in (for TPU7x there is one, in one state).
func topologyOf(s *computepb.ReservationSubBlock) (topology, state string) {
	infos := s.GetAcceleratorTopologiesInfo().GetAcceleratorTopologyInfos()
	if len(infos) == 0 {
		return "", ""
	}
	var most int32 = -1
	for _, st := range infos[0].GetInfoPerTopologyStates() {
		if st.GetCount() > most {
			most, state = st.GetCount(), st.GetState()
		}
	}
	return infos[0].GetAcceleratorTopology(), state
}

// Free reports whether no VM of the reservation uses the sub-block.
func (s SubBlock) Free() bool { return s.InUseCount == 0 }

// Block is a reservation block with its sub-blocks, sorted by name.
type Block struct {
	Project, Zone, Reservation, Name  string
	SubBlockCount, SubBlockInUseCount int64
	SubBlocks                         []SubBlock
}

// FreeSubBlocks lists the names of the sub-blocks no VM uses.
func (b *Block) FreeSubBlocks() []string {
	var out []string
	for _, s := range b.SubBlocks {
		if s.Free() {
			out = append(out, s.Name)
		}
	}
	return out
}

// AvailableSubBlocks lists the names of the sub-blocks whose topology is
// AVAILABLE (SubBlock.Available).
func (b *Block) AvailableSubBlocks() []string {
	var out []string
	for _, s := range b.SubBlocks {
		if s.Available() {
			out = append(out, s.Name)
		}
	}
	return out
}

// Target says where a node pool goes: a block, or one of its sub-blocks.
type Target struct {
	Project, Zone, Reservation, Block, SubBlock string
}

// Path is the reservation path GKE takes in the node pool's reservation
// affinity: projects/P/reservations/R/reservationBlocks/B[/reservationSubBlocks/S].
func (t Target) Path() string {
	p := fmt.Sprintf("projects/%s/reservations/%s/reservationBlocks/%s", t.Project, t.Reservation, t.Block)
	if t.SubBlock != "" {
		p += "/reservationSubBlocks/" + t.SubBlock
	}
	return p
}

// Block reads a block and its sub-blocks, with errors that say
// which of the reservation or the block does not exist.
func (r *Reservations) Block(ctx context.Context, project, zone, reservation, block string) (*Block, error) {
	shared, err := r.readReservation(ctx, project, zone, reservation)
	if err != nil {
		return nil, err
	}
	b, err := r.compute.GetReservationBlock(ctx, project, zone, reservation, block)
	if err != nil {
		if kernel.IsNotFound(err) {
			if shared {
				// The reservation was found earlier: is it still there?
				r.blocks.forgetReservation(reservationKey{project, zone, reservation})
				if _, err := r.readReservation(ctx, project, zone, reservation); err != nil {
					return nil, err
				}
			}
			return nil, fmt.Errorf("reservation block %q was not found in reservation %q (projects/%s/zones/%s)%s", block, reservation, project, zone,
				r.existingBlocks(ctx, project, zone, reservation))
		}
		return nil, fmt.Errorf("reading reservation block %s/%s: %s", reservation, block, kernel.APIMessage(err))
	}
	subs, err := r.compute.ListReservationSubBlocks(ctx, project, zone, reservation, block)
	if err != nil {
		return nil, fmt.Errorf("listing the sub-blocks of reservation block %s/%s: %s", reservation, block, kernel.APIMessage(err))
	}
	out := &Block{
		Project: project, Zone: zone, Reservation: reservation, Name: block,
		SubBlockCount: int64(b.GetReservationSubBlockCount()), SubBlockInUseCount: int64(b.GetReservationSubBlockInUseCount()),
	}
	for _, s := range subs {
		sb := SubBlock{
			Name:       s.GetName(),
			Count:      int64(s.GetCount()),
			InUseCount: int64(s.GetInUseCount()),
			Status:     s.GetStatus(),
			Path:       Target{Project: project, Zone: zone, Reservation: reservation, Block: block, SubBlock: s.GetName()}.Path(),
		}
		if h := s.GetHealthInfo(); h != nil {
			sb.Health = h.GetHealthStatus()
			sb.HealthyHostCount = int64(h.GetHealthyHostCount())
			sb.DegradedHostCount = int64(h.GetDegradedHostCount())
		}
		if pt := s.GetPhysicalTopology(); pt != nil {
			sb.PhysicalSubBlock = pt.GetSubBlock()
		}
		sb.Maintenance = maintenanceOf(s)
		sb.InUseHostCount = int64(s.GetInUseHostCount())
		sb.Topology, sb.TopologyState = topologyOf(s)
		out.SubBlocks = append(out.SubBlocks, sb)
	}
	sort.Slice(out.SubBlocks, func(i, j int) bool { return out.SubBlocks[i].Name < out.SubBlocks[j].Name })
	return out, nil
}

// readReservation checks that the reservation exists, with an error that
// says so when it does not: one read per reservation for the engine's
// life (blockCache.reservationFound), so that the blocks of a fleet
// of pods in one reservation do not each read it; shared says whether an
// earlier read answered.
func (r *Reservations) readReservation(ctx context.Context, project, zone, reservation string) (shared bool, err error) {
	read := func(ctx context.Context) error {
		_, err := r.compute.GetReservation(ctx, project, zone, reservation)
		return err
	}
	shared, err = r.blocks.reservationFound(ctx, reservationKey{project, zone, reservation}, read)
	if kernel.IsNotFound(err) {
		return shared, fmt.Errorf("reservation %q was not found in projects/%s/zones/%s; check the name and the zone (reservations are zonal)", reservation, project, zone)
	}
	if err != nil {
		return shared, fmt.Errorf("reading reservation %s: %s", reservation, kernel.APIMessage(err))
	}
	return shared, nil
}

// CachedBlock is Block from the reservation cache,
// when it has one, for a caller that needs need (of t's sub-block)
// current; shared says whether the read is one that started before the
// caller asked.
func (r *Reservations) CachedBlock(ctx context.Context, t Target, need Freshness) (b *Block, shared bool, err error) {
	read := func(ctx context.Context) (*Block, error) {
		return r.Block(ctx, t.Project, t.Zone, t.Reservation, t.Block)
	}
	b, own, err := r.blocks.get(ctx, t.blockKey(), need, t.SubBlock, read)
	return b, !own, err
}

// ChangingTarget records, before and after a create on t, that this
// engine changes the use of t's sub-block (of some sub-block of t's block,
// when t is a block).
func (r *Reservations) ChangingTarget(t Target) {
	r.blocks.changedSubBlock(t.blockKey(), t.SubBlock)
}

// ChangingAll records that this engine changes the use of
// sub-blocks it cannot name (a pool delete).
func (r *Reservations) ChangingAll() {
	r.blocks.changedAll()
}

// CheckTarget checks, before a node pool is created, that the target
// exists and has room: the named sub-block is free, or the block has a
// free sub-block. It returns the block as read. A sub-block in use is said
// to be held by the pool of cluster (projects/P/locations/L/clusters/C,
// when set) that targets it, as GKE lists it (even while PROVISIONING,
// before its nodes exist), or else by the pool whose nodes are on it.
//
// The block may come from the reservation cache (see
// TTL); a target that a shared read says is taken or missing
// is checked again on a read of its own, so that a refusal is never made
// on a shared read.
func (r *Reservations) CheckTarget(ctx context.Context, t Target, cluster string) (*Block, error) {
	need := NeedSubBlock
	if t.SubBlock == "" {
		need = NeedAll
	}
	block, shared, err := r.CachedBlock(ctx, t, need)
	if err != nil {
		return nil, err
	}
	if shared && !targetFits(block, t) {
		if block, err = r.Block(ctx, t.Project, t.Zone, t.Reservation, t.Block); err != nil {
			return nil, err
		}
	}
	free := block.FreeSubBlocks()
	freeText := "none"
	if len(free) > 0 {
		freeText = strings.Join(free, ", ")
	}
	if t.SubBlock == "" {
		if len(free) == 0 {
			return nil, fmt.Errorf("reservation block %q of reservation %q has no free sub-block: all %d are in use; "+
				"delete a node pool in it, or target another block", t.Block, t.Reservation, len(block.SubBlocks))
		}
		return block, nil
	}
	for _, s := range block.SubBlocks {
		if s.Name != t.SubBlock {
			continue
		}
		if !s.Free() {
			holder := r.targetHolder(ctx, cluster, s.Path)
			if holder == "" && s.PhysicalSubBlock != "" {
				// Name the pool on it, when the cluster's nodes say.
				if nodes, err := r.reads.Nodes(ctx, map[string]string{wellknown.LabelTopologySubBlock: s.PhysicalSubBlock, wellknown.LabelNodePool: ""}); err == nil && len(nodes) > 0 {
					holder = fmt.Sprintf(" by node pool %s", nodes[0].Labels[wellknown.LabelNodePool])
				}
			}
			return nil, fmt.Errorf("reservation sub-block %q of block %q is already in use%s (%d of %d hosts); free sub-blocks: %s",
				t.SubBlock, t.Block, holder, s.InUseCount, s.Count, freeText)
		}
		return block, nil
	}
	names := make([]string, len(block.SubBlocks))
	for i, s := range block.SubBlocks {
		names[i] = s.Name
	}
	return nil, fmt.Errorf("reservation sub-block %q was not found in block %q of reservation %q; its sub-blocks are: %s",
		t.SubBlock, t.Block, t.Reservation, strings.Join(names, ", "))
}

// targetFits says whether block has room for t: t's sub-block exists and
// is free, or (t a block) one of its sub-blocks is.
func targetFits(block *Block, t Target) bool {
	if t.SubBlock == "" {
		return len(block.FreeSubBlocks()) > 0
	}
	for _, s := range block.SubBlocks {
		if s.Name == t.SubBlock {
			return s.Free()
		}
	}
	return false
}

// targetHolder is " by node pool N" for the pool of cluster whose
// reservation affinity is path, with its status when it is not RUNNING
// (" by node pool N (PROVISIONING)"), or "" when there is none or the
// pools cannot be listed.
func (r *Reservations) targetHolder(ctx context.Context, cluster, path string) string {
	if cluster == "" {
		return ""
	}
	pools, err := r.reads.FreshNodePools(ctx, cluster)
	if err != nil {
		return ""
	}
	return holderText(poolTargeting(pools, path))
}

// poolTargeting is the pool whose reservation affinity is path, or nil.
func poolTargeting(pools []*container.NodePool, path string) *container.NodePool {
	for _, p := range pools {
		if slices.Contains(affinityValues(p), path) {
			return p
		}
	}
	return nil
}

// holderText is " by node pool N", with its status when it is not
// RUNNING (" by node pool N (PROVISIONING)"), or "" for no pool.
func holderText(p *container.NodePool) string {
	switch {
	case p == nil:
		return ""
	case p.Status == "RUNNING":
		return " by node pool " + p.Name
	default:
		return fmt.Sprintf(" by node pool %s (%s)", p.Name, p.Status)
	}
}
