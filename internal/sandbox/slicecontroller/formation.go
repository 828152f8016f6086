package slicecontroller

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// startForming holds the slice in ACTIVATING for the delay: when the
// delay is over (the cloud's AfterActivation), the slice is queued again
// and may finish forming. It is called once ACTIVATING is written (a view
// that trailed an earlier write loses its own, and calls it not), and a
// slice already forming keeps the delay it has.
func (c *Controller) startForming(v View, delay time.Duration) {
	if delay <= 0 {
		return
	}
	key, err := cache.MetaNamespaceKeyFunc(v.Obj)
	if err != nil {
		return
	}
	uid := v.Obj.GetUID()
	c.mu.Lock()
	if c.forming[uid] {
		c.mu.Unlock()
		return
	}
	c.forming[uid] = true
	c.mu.Unlock()
	c.cloud.AfterActivation(v.Name, delay, func() {
		c.mu.Lock()
		delete(c.forming, uid)
		c.mu.Unlock()
		c.queue.Add(key)
	})
}

// stillForming says whether the slice's activation delay is not over.
func (c *Controller) stillForming(v View) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.forming[v.Obj.GetUID()]
}

// checkPrerequisites applies the documented SliceCreationFailed rules: the
// topology matches the number of partitions, which are of the topology's
// partition shape (4x4x4, or the sub-slice's own shape), every partition's
// nodes exist and are Ready, and no other slice uses any of them (a
// partition that overlaps one of another slice is in use). It returns the
// problem, or "".
func (c *Controller) checkPrerequisites(v View) string {
	topo, err := slicerules.ParseTPU7x(v.Topology)
	if err != nil {
		return err.Error()
	}
	if err := topo.CheckPartitionIDs(v.Partitions); err != nil {
		return "the topology does not match the partitions: " + err.Error()
	}
	shape := topo.PartitionShape()
	held := c.heldNodes(v.Name)
	for _, id := range v.Partitions {
		nodes := c.partitionNodes(id)
		if len(nodes) == 0 {
			return fmt.Sprintf("the nodes of partition %s do not exist", id)
		}
		if nodes[0].Labels[slicerules.PartitionIDLabel(shape)] != id {
			return fmt.Sprintf("partition %s is not a %s partition: a %s slice is formed from the %s label of its nodes", id, shape, v.Topology, slicerules.PartitionIDLabel(shape))
		}
		for _, n := range nodes {
			if h, ok := held[n.Name]; ok {
				if h.partition != id {
					return fmt.Sprintf("the nodes of partition %s are used by slice %s (its partition %s overlaps this one)", id, h.slice, h.partition)
				}
				return fmt.Sprintf("the nodes of partition %s are used by slice %s", id, h.slice)
			}
			if other := n.Labels[wellknown.LabelSlice]; other != "" && other != v.Name {
				return fmt.Sprintf("the nodes of partition %s are used by slice %s", id, other)
			}
		}
		state := nodes[0].Labels[slicerules.PartitionStateLabel(shape)]
		if !formable(shape, state) {
			return fmt.Sprintf("partition %s is %s: not all of its nodes are ready (%d of %d exist)", id, state, len(nodes), slicerules.HostsOfShape(shape))
		}
		for _, n := range nodes {
			if !nodeReady(n) {
				return fmt.Sprintf("node %s of partition %s is not Ready", n.Name, id)
			}
		}
	}
	return ""
}

// formable says whether a partition of the shape in this state can join a
// slice: HEALTHY, or DEGRADED for a 4x4x4 (the only shape that has it).
func formable(shape, state string) bool {
	return state == wellknown.PartitionHealthy || (state == wellknown.PartitionDegraded && shape == slicerules.SubBlockShape)
}

// holder is a slice that holds a node, and its partition that does.
type holder struct{ slice, partition string }

// heldNodes maps each node of another live slice (one that is activating
// or formed) to that slice and its partition: a partition of any shape
// overlapping one of those is in use.
func (c *Controller) heldNodes(except string) map[string]holder {
	out := map[string]holder{}
	for _, item := range c.sliceStore.List() {
		stored, ok := item.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		other := ViewOf(stored)
		if other.Name == except || other.Obj.GetDeletionTimestamp() != nil {
			continue
		}
		switch other.State {
		case ReasonActivating, ReasonActive, ReasonActiveDegraded:
			for _, id := range other.Partitions {
				for _, n := range c.partitionNodes(id) {
					out[n.Name] = holder{other.Name, id}
				}
			}
		}
	}
	return out
}

func (c *Controller) creationFailed(ctx context.Context, v View, problem string) (time.Duration, error) {
	if err := c.transition(ctx, v, corev1.EventTypeWarning, ReasonSliceCreationFailed, problem); err != nil {
		return 0, err
	}
	if v.Retry {
		return sliceRetryInterval, nil
	}
	return 0, nil
}

// activate finishes formation: FAILED when the partitions span reservations
// or blocks (or a formation failure is injected), else ACTIVE or
// ACTIVE_DEGRADED with the slice labels on every node.
func (c *Controller) activate(ctx context.Context, v View) (time.Duration, error) {
	var reservations, blocks []string
	seenRes, seenBlock := map[string]bool{}, map[string]bool{}
	for _, id := range v.Partitions {
		if reservation, block, ok := c.cloud.PartitionPlace(id); ok {
			if !seenRes[reservation] {
				seenRes[reservation] = true
				reservations = append(reservations, reservation)
			}
			if !seenBlock[block] {
				seenBlock[block] = true
				blocks = append(blocks, block)
			}
		}
	}
	injected := c.cloud.TakeFormationFailure()

	var failure string
	switch {
	case len(reservations) > 1:
		failure = "the partitions are not in the same reservation: " + strings.Join(reservations, ", ")
	case len(blocks) > 1:
		failure = "the partitions are not in the same reservation block: " + strings.Join(blocks, ", ")
	case injected:
		failure = "the ICI links of the slice could not be formed (sandbox fault)"
	}
	if failure != "" {
		return 0, c.transition(ctx, v, corev1.EventTypeWarning, ReasonFailed, failure)
	}
	if err := c.labelNodes(ctx, v, true); err != nil {
		return 0, err
	}
	state, msg := c.healthState(v)
	if state == ReasonFailed {
		return 0, c.transition(ctx, v, corev1.EventTypeWarning, ReasonFailed, msg)
	}
	return 0, c.transition(ctx, v, corev1.EventTypeNormal, state, msg)
}
