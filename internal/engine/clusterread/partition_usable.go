package clusterread

import "github.com/dynslice/terraform-provider-gke/internal/wellknown"

// Unusable says why a new slice named slice could not use p, or "" when
// it can: a usable partition is HEALTHY (or DEGRADED when allowDegraded),
// has every node Ready, and is used by no other slice. It is the one rule
// of selection and of the gke_partitions data source.
func (p Partition) Unusable(slice string, allowDegraded bool) string {
	switch {
	case p.Slice != "" && p.Slice != slice && p.Overlapped():
		return "used by " + p.HeldBy() + " (through an overlapping " + overlapShape(p) + " partition)"
	case p.Slice != "" && p.Slice != slice:
		return "used by " + p.HeldBy()
	case p.State == wellknown.PartitionDegraded && !allowDegraded:
		return "DEGRADED (allow_degraded is false)"
	case p.State == "":
		return "without a state label"
	case p.State != wellknown.PartitionHealthy && p.State != wellknown.PartitionDegraded:
		return p.State
	case p.Ready < p.Nodes:
		return "nodes not Ready"
	}
	return ""
}

// overlapShape names the kind of partition that holds p through overlap:
// one around it (one of its ancestors) or one inside it.
func overlapShape(p Partition) string {
	for _, a := range p.Ancestors {
		if a == p.SlicePartition {
			return "larger"
		}
	}
	return "smaller"
}
