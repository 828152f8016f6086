package slicecontroller

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// healthState is the state a formed slice has from its partitions' health,
// each read from the state label of the slice's partition shape.
func (c *Controller) healthState(v View) (string, string) {
	shape := slicerules.SubBlockShape
	if topo, err := slicerules.ParseTPU7x(v.Topology); err == nil {
		shape = topo.PartitionShape()
	}
	degraded := []string{}
	for _, id := range v.Partitions {
		nodes := c.partitionNodes(id)
		state := wellknown.PartitionIncomplete
		if len(nodes) > 0 {
			state = nodes[0].Labels[slicerules.PartitionStateLabel(shape)]
		}
		switch state {
		case wellknown.PartitionHealthy:
		case wellknown.PartitionDegraded:
			degraded = append(degraded, id)
		default:
			return ReasonFailed, fmt.Sprintf("partition %s became %s (%d of %d nodes exist)", id, state, len(nodes), slicerules.HostsOfShape(shape))
		}
	}
	if len(degraded) > 0 {
		return ReasonActiveDegraded, "The slice is usable; degraded partitions: " + strings.Join(degraded, ", ")
	}
	return ReasonActive, "The slice is formed and healthy."
}

func (c *Controller) followHealth(ctx context.Context, v View) error {
	state, msg := c.healthState(v)
	if state == v.State {
		return nil
	}
	if state == ReasonFailed {
		return c.startDismantling(ctx, v, msg)
	}
	eventType := corev1.EventTypeNormal
	if state != ReasonActive {
		eventType = corev1.EventTypeWarning
	}
	return c.transition(ctx, v, eventType, state, msg)
}
