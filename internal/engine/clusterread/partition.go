package clusterread

// Partition is a partition of one shape (a 4x4x4 sub-block, or one of the
// sub-slice shapes inside it) as its nodes' labels describe it.
type Partition struct {
	ID, State string
	// Shape is the partition's shape: 4x4x4, 2x4x4, 2x2x4, 2x2x2 or 2x2x1.
	Shape    string
	NodePool string
	// Block and SubBlock are the nodes' gce-topology labels: opaque IDs
	// of the physical block and sub-block.
	Block, SubBlock string
	// Parent is the 4x4x4 partition (the sub-block) that holds it; a 4x4x4
	// partition is its own parent.
	Parent string
	// Ancestors are the partitions that hold it, from the 4x4x4 down to the
	// shape just larger than its own, and AncestorFree the number of their
	// nodes that no slice holds.
	Ancestors    []string
	AncestorFree []int
	NodeNames    []string
	Nodes, Ready int
	// DRANodes is the number of its nodes on GKE's TPU DRA driver (the
	// node label cloud.google.com/gke-tpu-dra-driver=true).
	DRANodes int
	// Free is the number of its nodes that no slice holds.
	Free int
	// Slice is the slice that holds the partition or one overlapping it:
	// one whose spec lists either, or whose label its nodes carry. Empty
	// when none. SlicePartition is the partition that slice lists (this
	// one, or the overlapping one); empty when only a node label says so.
	Slice, SlicePartition string
	// KueueWorkload is "namespace/name" of the Kueue workload whose
	// admission check made that slice; empty when Kueue does not own it.
	KueueWorkload string
}

// HeldBy describes what holds the partition, for messages: "slice s", or
// "Kueue workload ns/name (slice s)".
func (p Partition) HeldBy() string {
	if p.KueueWorkload != "" {
		return "Kueue workload " + p.KueueWorkload + " (slice " + p.Slice + ")"
	}
	return "slice " + p.Slice
}

// Overlapped says whether the partition is held through another partition
// that overlaps it (a sub-slice inside it, or a larger slice around it).
func (p Partition) Overlapped() bool {
	return p.Slice != "" && p.SlicePartition != "" && p.SlicePartition != p.ID
}
