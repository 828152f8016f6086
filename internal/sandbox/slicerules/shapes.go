// Package slicerules is the sandbox's own table of the rules GKE documents
// for Ironwood (TPU7x) dynamic slices, which its emulated slice controller,
// slice admission check, nodes and DRA driver judge Slices by. It is
// written from GKE's documentation, apart from the provider's
// internal/topology, so that a wrong rule in the provider fails the
// acceptance tests instead of being agreed with by the emulator.
//
// GKE's guide "Use dynamic slicing with a custom scheduler" (Create a Slice
// custom resource) says of spec.topology: "Each dimension of the requested
// topology must be a multiple of four", "The three values in the topology
// dimensions, AxBxC, must be in non-decreasing order (A ≤ B ≤ C)" and "The
// product of the three values in the topology dimensions, A × B × C must
// not exceed 9,216"; of spec.partitionIds: "each partition consists of 64
// chips. The number of items in your spec.partitionIds list must exactly
// match the calculated number of partitions ((A × B × C) / 64)"; and "The
// value of the type field must be tpu7x". A sub-slice lies inside one
// sub-block and has one of the fixed shapes 2x2x1, 2x2x2, 2x2x4 and 2x4x4,
// formed from one partition ID of its own shape.
package slicerules

import "github.com/dynslice/terraform-provider-gke/internal/wellknown"

// The tpu7x figures GKE documents, each with the sentence of its guide
// that says it.
const (
	// SliceType is the only spec.type dynamic slicing accepts: "The value
	// of the type field must be tpu7x".
	SliceType = "tpu7x"
	// SubBlockShape is the shape of one partition of a super-slice, one
	// reservation sub-block: "Always set the accelerator-topology field to
	// 4x4x4 to match the total number of chips within a single sub-block".
	SubBlockShape = "4x4x4"
	// DimensionMultiple: "Each dimension of the requested topology must be
	// a multiple of four".
	DimensionMultiple = 4
	// MaxChips: "A × B × C must not exceed 9,216".
	MaxChips = 9216
	// ChipsPerPartition: "each partition consists of 64 chips".
	ChipsPerPartition = 64
	// ChipsPerHost is the chips of one tpu7x-standard-4t VM (the 4t).
	ChipsPerHost = 4
	// HostsPerSubBlock is the VMs of one sub-block: a node pool of
	// "--num-nodes=16" tpu7x-standard-4t machines.
	HostsPerSubBlock = ChipsPerPartition / ChipsPerHost
)

// Shape is one partition shape: every dynamic-slicing node carries the ID
// and state label of its partition of each shape.
type Shape struct {
	// Name is the shape as GKE writes it in labels and in spec.topology.
	Name string
	// Chips is the chips of one partition of the shape.
	Chips int
	// Hosts is the tpu7x-standard-4t VMs (nodes) of one partition.
	Hosts int
	// PerSubBlock is how many partitions of the shape one sub-block holds.
	PerSubBlock int
	// SubSlice says whether a Slice of this topology is a sub-slice (one
	// partition of its own shape) rather than a super-slice of 4x4x4s.
	SubSlice bool
}

// shapes is the table of partition shapes, smallest first: the four
// sub-slice shapes and the 4x4x4 sub-block that holds them.
var shapes = [...]Shape{
	{Name: "2x2x1", Chips: 4, Hosts: 1, PerSubBlock: 16, SubSlice: true},
	{Name: "2x2x2", Chips: 8, Hosts: 2, PerSubBlock: 8, SubSlice: true},
	{Name: "2x2x4", Chips: 16, Hosts: 4, PerSubBlock: 4, SubSlice: true},
	{Name: "2x4x4", Chips: 32, Hosts: 8, PerSubBlock: 2, SubSlice: true},
	{Name: SubBlockShape, Chips: 64, Hosts: 16, PerSubBlock: 1, SubSlice: false},
}

// PartitionShapes are the names of the partition shapes, smallest first.
var PartitionShapes = shapeNames(false)

// SubSliceShapes are the sub-slice topologies, smallest first: exactly
// these strings, no other order of their dimensions.
var SubSliceShapes = shapeNames(true)

func shapeNames(subSlicesOnly bool) []string {
	var out []string
	for _, s := range shapes {
		if s.SubSlice || !subSlicesOnly {
			out = append(out, s.Name)
		}
	}
	return out
}

// ShapeOf returns the table's row for the shape name, and whether there is
// one.
func ShapeOf(name string) (Shape, bool) {
	for _, s := range shapes {
		if s.Name == name {
			return s, true
		}
	}
	return Shape{}, false
}

// HostsOfShape is the nodes of one partition of the shape: 1, 2, 4, 8 or
// 16; 0 for a name that is not a partition shape.
func HostsOfShape(shape string) int {
	s, _ := ShapeOf(shape)
	return s.Hosts
}

// PartitionsPerSubBlock is how many partitions of the shape one sub-block
// holds: 16, 8, 4, 2 or 1; 0 for a name that is not a partition shape.
func PartitionsPerSubBlock(shape string) int {
	s, _ := ShapeOf(shape)
	return s.PerSubBlock
}

// SubPartitionIndex is the index, within its sub-block, of the partition of
// the shape that holds host (0..15), or -1. The sandbox numbers the hosts
// of a sub-block so that each partition is a run of consecutive hosts
// aligned to its size: the two 2x4x4 are hosts 0-7 and 8-15, so every
// partition lies inside one partition of each larger shape.
func SubPartitionIndex(host int, shape string) int {
	s, ok := ShapeOf(shape)
	if !ok || host < 0 || host >= HostsPerSubBlock {
		return -1
	}
	return host / s.Hosts
}

// PartitionIDLabel is the node label that carries the ID of the node's
// partition of the shape.
func PartitionIDLabel(shape string) string { return wellknown.PartitionLabelPrefix + shape + "-id" }

// PartitionStateLabel is the node label that carries the state of the
// node's partition of the shape.
func PartitionStateLabel(shape string) string {
	return wellknown.PartitionLabelPrefix + shape + "-state"
}
