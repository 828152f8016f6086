package tpuslice

import (
	"errors"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// DefaultSelectionSettle bounds how long a slice create waits for the
// partitions of pools created earlier in the same apply to reach the
// inventory's watch before it reports a selection that cannot be met.
const DefaultSelectionSettle = 15 * time.Second

// selectionRetry is the pause between selections while they settle.
const selectionRetry = 250 * time.Millisecond

// PartitionSelector chooses a slice's partitions instead of listing them.
type PartitionSelector struct {
	// NodePools, when set, restricts the choice to these pools.
	NodePools []string
	// WorkloadPolicy, when set, restricts the choice to the pools that
	// this workload policy places (their placementPolicy, by name or self
	// link): the pools of one slice stack, without naming each. It needs
	// the engine's cluster. See selection_policy.go.
	WorkloadPolicy string
	// Block, when set, restricts the choice to one block: the physical
	// block's gce-topology-block label, or a reservation block name
	// ("block-a", or "reservation/block-a") that the cluster's node pools
	// target, which is resolved to the physical block of their partitions.
	Block string
	// AllowDegraded lets DEGRADED partitions in, after HEALTHY ones.
	AllowDegraded bool
}

// Check refuses a selector that cannot mean what its author meant: an
// empty list of node pools (a for expression over zero pools, say). A nil
// list selects from every pool of the cluster; an empty one must not, or a
// slice would take partitions of pools that another configuration manages.
func (sel PartitionSelector) Check() error {
	if sel.NodePools != nil && len(sel.NodePools) == 0 {
		return errors.New("partition_selector.node_pools is an empty list: it names no pool to select from. " +
			"Name at least one node pool, or leave node_pools out to select from every pool of the cluster")
	}
	return nil
}

// SliceRequest is a slice as the user declares it: its partitions are
// listed (PartitionIDs) or chosen at create (Selector).
type SliceRequest struct {
	Name, Type, Topology string
	PartitionIDs         []string
	Selector             *PartitionSelector
	RetryOnFailure       bool
	AllowDegraded        bool
	// DeviceAccess is how the workload's pods reach the chips: the slice's
	// partitions must be on nodes that offer it (default DevicePlugin).
	DeviceAccess clusterread.DeviceAccess
}

// SliceShape is what follows from a slice's topology and name: its size
// and what a workload on it needs.
type SliceShape struct {
	Partitions, Chips, Hosts int
	// AcceleratorType is TPU_ACCELERATOR_TYPE, tpu7x-<chips·2>.
	AcceleratorType string
	// NodeSelector pins a pod to the slice; PodAnnotations are the
	// annotations a pod on it carries.
	NodeSelector, PodAnnotations map[string]string
}

// ShapeOf is the shape of the slice name of topology topo, or the
// topology's error.
func ShapeOf(name, topo string) (SliceShape, error) {
	t, err := topology.ParseTPU7x(topo)
	if err != nil {
		return SliceShape{}, err
	}
	return SliceShape{
		Partitions: t.Partitions(), Chips: t.Chips(), Hosts: t.Hosts(), AcceleratorType: t.AcceleratorType(),
		NodeSelector: t.NodeSelector(name), PodAnnotations: t.PodAnnotations(),
	}, nil
}

// selectRequest is the selection for the slice name of topology t.
func selectQueryOf(name string, t topology.Topology, sel PartitionSelector, access clusterread.DeviceAccess) selectQuery {
	return selectQuery{Count: t.Partitions(), Shape: t.PartitionShape(), NodePools: sel.NodePools, Block: sel.Block, AllowDegraded: sel.AllowDegraded, Slice: name,
		Access: access.OrDefault()}
}
