package tpuslice

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// checkSelection reports, at plan time, a selection for the slice name of
// topology topo that cannot be met by the partitions that exist now. It
// says nothing (nil) when it cannot know yet: no node pools are named (the
// whole cluster is a candidate, and pools of this apply may add
// partitions), some named pools do not exist yet, or the cluster cannot be
// read. The choice itself is made by CreateSlice: Terraform plans a
// resource again during apply, in another process, and a choice made at
// plan could not be reproduced there.
func (e *Slices) checkSelection(ctx context.Context, name string, t topology.Topology, sel PartitionSelector, access clusterread.DeviceAccess) error {
	if err := sel.Check(); err != nil {
		return err
	}
	sel, err := e.policyPools(ctx, sel)
	if err != nil {
		return &SelectionNotCheckedError{Err: err}
	}
	if len(sel.NodePools) == 0 {
		// No pool named, or none of the policy yet (pools of this apply
		// may bring them): known at apply.
		return nil
	}
	req := selectQueryOf(name, t, sel, access)
	parts, known, err := e.knownPartitions(ctx)
	if !known {
		return err
	}
	if req.Block, err = e.resolveBlock(ctx, sel, parts); err != nil {
		return err
	}
	if _, err := choosePartitions(parts, req); err != nil {
		existing := map[string]bool{}
		for _, p := range parts {
			existing[p.NodePool] = true
		}
		for _, pool := range sel.NodePools {
			if !existing[pool] {
				return nil // created by this apply
			}
		}
		return err
	}
	return nil
}

// knownPartitions returns the cluster's partitions, and whether they could
// be read. A plan does not fail on a cluster it cannot read yet (one that
// this apply creates); it does fail on one it cannot read for a reason
// that waiting does not cure (a ClusterAccessError, returned).
func (e *Slices) knownPartitions(ctx context.Context) ([]clusterread.Partition, bool, error) {
	inv, known, err := e.reads.Known(ctx)
	if !known {
		return nil, false, err
	}
	parts, err := inv.Partitions(ctx)
	return parts, err == nil, err
}

// checkClusterAccess reads the cluster's nodes and Slices (once per
// process; a plan of many slices shares the read) and returns a
// ClusterAccessError when they cannot be read for a reason that waiting
// does not cure. Any other failure (a cluster not made yet) is not
// reported: the plan goes on.
func (e *Slices) checkClusterAccess(ctx context.Context) error {
	_, _, err := e.reads.Known(ctx)
	return err
}

// checkListedPartitions reports listed partition IDs that the slice name
// of topology t cannot use, from the partitions that exist now: an ID
// of a partition of another shape (a 4x4x4 ID for a sub-slice, say), or a
// partition held by another live slice (not FAILED), directly or through
// a partition that overlaps it (a sub-slice inside a 4x4x4, or the
// super-slice around a sub-partition). IDs not in the cluster yet are not
// reported (pools of this apply may bring them), nor anything when the
// cluster cannot be read yet; a ClusterAccessError is returned.
func (e *Slices) checkListedPartitions(ctx context.Context, name string, t topology.Topology, ids []string) error {
	inv, known, err := e.reads.Known(ctx)
	if !known {
		return err
	}
	// Partitions by shape, grouped when first needed: the other shapes
	// only for an ID that is not of the slice's own.
	byShape := map[string]map[string]clusterread.Partition{}
	of := func(shape string) map[string]clusterread.Partition {
		if m, ok := byShape[shape]; ok {
			return m
		}
		parts, _ := inv.LivePartitionsOf(ctx, shape)
		m := make(map[string]clusterread.Partition, len(parts))
		for _, p := range parts {
			m[p.ID] = p
		}
		byShape[shape] = m
		return m
	}
	want := t.PartitionShape()
	var problems []string
	for _, id := range ids {
		p, ok := of(want)[id]
		if !ok {
			for _, other := range topology.PartitionShapes {
				if o, found := of(other)[id]; found && other != want {
					problems = append(problems, fmt.Sprintf("partition %s is a %s partition (node pool %s), but a %s %s lists %s partitions (the %s label)",
						id, other, o.NodePool, t.String(), t.Family(), want, topology.PartitionIDLabel(want)))
					break
				}
			}
			continue
		}
		if p.Slice == "" || p.Slice == name {
			continue
		}
		if p.Overlapped() {
			problems = append(problems, fmt.Sprintf("%s partition %s (node pool %s) overlaps partition %s, which %s holds",
				want, id, p.NodePool, p.SlicePartition, p.HeldBy()))
		} else {
			problems = append(problems, fmt.Sprintf("%s partition %s (node pool %s) is used by %s", want, id, p.NodePool, p.HeldBy()))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; ") + "; a partition belongs to one slice at a time, and a slice holds every partition that overlaps its own: " +
			"choose free partitions (data source gke_partitions with available_only = true and the shape), or delete the other slice first")
	}
	return nil
}

// checkAndClaim checks the listed partitions of req and claims them for
// it, under the inventory's selection lock.
func (e *Slices) checkAndClaim(ctx context.Context, inv *clusterread.Inventory, req SliceRequest, t topology.Topology) error {
	if err := e.checkListedRules(ctx, t, req.PartitionIDs); err != nil {
		return err // listed_partition_rules.go
	}
	if inv == nil {
		return e.checkListedPartitions(ctx, req.Name, t, req.PartitionIDs)
	}
	return inv.ClaimChecked(req.Name, req.PartitionIDs, func() error {
		if err := e.checkListedPartitions(ctx, req.Name, t, req.PartitionIDs); err != nil {
			return err
		}
		return e.checkListedAccess(ctx, t, req.PartitionIDs, req.DeviceAccess)
	})
}

// ErrVersionUnknown marks a checkVersion error that is not about the
// version: the GKE API did not answer, so the check could not run.
var ErrVersionUnknown = errors.New("the cluster's GKE version could not be read")

// checkVersion reports a cluster whose GKE version cannot form a slice of
// topology topo (sub-slices need 1.36.0-gke.3712000, super-slices
// 1.35.2-gke.1842000), naming both versions. The version is read once
// per process; with no cluster named, or one whose version cannot be read
// (a cluster this apply creates), nothing is reported, except a GKE API
// that did not answer (ErrVersionUnknown).
func (e *Slices) checkVersion(ctx context.Context, t topology.Topology) error {
	cluster := e.reads.Name()
	if cluster == "" {
		return nil
	}
	version, err := e.reads.ClusterVersion(ctx)
	if errors.Is(err, kernel.ErrNoAnswer) {
		// Not a cluster yet to be made: the GKE API did not answer, and
		// the check could not run. Said, never passed over.
		return fmt.Errorf("%w: reading the GKE version of cluster %s: %w", ErrVersionUnknown, cluster, err)
	}
	if err != nil {
		tflog.Debug(ctx, "Cluster version unknown; the version gate is left to GKE", map[string]any{"cluster": cluster, "error": kernel.APIMessage(err)})
		return nil
	}
	return t.CheckGKEVersion(version)
}
