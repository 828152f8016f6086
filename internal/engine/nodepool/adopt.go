package nodepool

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// adoptedPoolReason is the warning of a pool that a create found existing
// and matching, as an apply killed before it recorded its pool leaves it.
const adoptedPoolReason = "Node pool %s already existed, %s, and matches the configuration (cluster, reservation target, placement " +
	"policy, machine type, node count, node labels and resource labels): it was adopted instead of created again. An apply that was killed before it recorded " +
	"the pool leaves it so."

// poolDifferences lists how the GKE pool p differs from the spec, in what
// decides adoption: the reservation target, the placement policy, the
// machine type, the node count, the nodes' Kubernetes labels and the
// pool's resource labels (the name and cluster are its ID). An adopted
// pool is recorded as GKE reads it, so any of them that differed would
// end the apply in an inconsistent result.
func poolDifferences(p *container.NodePool, s Spec) []string {
	var target, policy, machine string
	if c := p.Config; c != nil {
		machine = c.MachineType
		target = reservation.TargetOf(p).Path
	}
	if p.PlacementPolicy != nil {
		policy = p.PlacementPolicy.PolicyName
	}
	var out []string
	differ := func(what, have, want string) {
		if have != want {
			out = append(out, fmt.Sprintf("its %s is %q (configuration: %q)", what, have, want))
		}
	}
	differ("reservation target", target, s.Target.Path())
	differ("placement policy", policy, kernel.LastSegment(s.Policy))
	differ("machine type", machine, s.MachineType)
	if p.InitialNodeCount != s.NodeCount {
		out = append(out, fmt.Sprintf("its node count is %d (configuration: %d)", p.InitialNodeCount, s.NodeCount))
	}
	var labels, resourceLabels map[string]string
	if c := p.Config; c != nil {
		labels, resourceLabels = c.Labels, c.ResourceLabels
	}
	if !maps.Equal(labels, s.Labels) {
		out = append(out, fmt.Sprintf("its node labels are %s (configuration: %s)", labelList(labels), labelList(s.Labels)))
	}
	if !maps.Equal(resourceLabels, s.ResourceLabels) {
		out = append(out, fmt.Sprintf("its resource labels are %s (configuration: %s)", labelList(resourceLabels), labelList(s.ResourceLabels)))
	}
	return out
}

// labelList writes labels as {k1=v1, k2=v2}, by key.
func labelList(labels map[string]string) string {
	keys := slices.Sorted(maps.Keys(labels))
	for i, k := range keys {
		keys[i] = k + "=" + labels[k]
	}
	return "{" + strings.Join(keys, ", ") + "}"
}

// existingPool reads the pool of the spec's name, when a create found the
// name taken (or its target in use): nil when there is none; an
// ExistsError when it is not the pool the spec declares.
func (ps *Pools) existingPool(ctx context.Context, s Spec) (*container.NodePool, error) {
	p, err := ps.gke.GetNodePool(ctx, s.ID())
	if kernel.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("creating node pool %s: a node pool of that name may exist, but reading it failed: %s", s.ID(), kernel.APIMessage(err))
	}
	if diff := poolDifferences(p, s); len(diff) > 0 {
		return nil, &kernel.ExistsError{Kind: "node pool", ID: s.ID(), Differences: diff, ImportID: s.ID()}
	}
	return p, nil
}
