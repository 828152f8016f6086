package reservation

import (
	"context"
	"fmt"
	"path"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Slot is one host of a sub-block, as Compute Engine's reservation slots
// show it.
type Slot struct {
	// SubBlock is the sub-block's name, Name the slot's.
	SubBlock, Name string
	// State is ACTIVE, CREATING, DELETING or UNAVAILABLE (its host is
	// faulty or in maintenance).
	State string
	// PhysicalHost is the host's opaque ID (physicalTopology.host), which
	// GKE also puts on the node's cloud.google.com/gce-topology-host
	// label; PhysicalSubBlock is the sub-block's.
	PhysicalHost, PhysicalSubBlock string
	// Instance is the name of the VM that runs on the host, "" when none
	// does.
	Instance string
	// Node is the name of the cluster's node on the host, when the nodes
	// were read and one is there.
	Node string
}

// NodeReadError is a read of the cluster's nodes that failed after the
// slots were read; the slots are there, without their nodes.
type NodeReadError struct{ Err error }

func (e *NodeReadError) Error() string { return e.Err.Error() }
func (e *NodeReadError) Unwrap() error { return e.Err }

// ReadSlots reads the slots of a sub-block, or of every sub-block of the
// block when subBlock is "" (in the order of the sub-blocks' names). An
// unknown block or sub-block is an error naming the known ones. With
// nodes, the cluster's nodes tell each host's node (by their
// gce-topology-host label); a failure of that read is a NodeReadError
// beside the slots.
func (r *Reservations) ReadSlots(ctx context.Context, project, zone, reservation, block, subBlock string, nodes bool) ([]Slot, error) {
	b, _, err := r.CachedBlock(ctx, Target{Project: project, Zone: zone, Reservation: reservation, Block: block, SubBlock: subBlock}, NeedAll)
	if err != nil {
		return nil, err
	}
	var subs []SubBlock
	for _, s := range b.SubBlocks {
		if subBlock == "" || s.Name == subBlock {
			subs = append(subs, s)
		}
	}
	if len(subs) == 0 {
		return nil, fmt.Errorf("reservation sub-block %q was not found in block %q of reservation %q; its sub-blocks are: %s",
			subBlock, block, reservation, joinOrNone(subBlockNames(b)))
	}
	var out []Slot
	for _, s := range subs {
		slots, err := r.compute.ListReservationSlots(ctx, project, zone, reservation, block, s.Name)
		if err != nil {
			return nil, fmt.Errorf("listing the reservation slots of sub-block %s/%s/%s: %s", reservation, block, s.Name, kernel.APIMessage(err))
		}
		for _, sl := range slots {
			out = append(out, slotOf(sl, s.Name, s.PhysicalSubBlock))
		}
	}
	if !nodes {
		return out, nil
	}
	ns, err := r.reads.Nodes(ctx, map[string]string{wellknown.LabelTopologyHost: ""})
	if err != nil {
		return out, &NodeReadError{Err: fmt.Errorf("reading the cluster's nodes to name the nodes on the hosts: %w", err)}
	}
	onHost := map[string]string{}
	for _, n := range ns {
		onHost[n.Labels[wellknown.LabelTopologyHost]] = n.Name
	}
	for i := range out {
		if out[i].PhysicalHost != "" {
			out[i].Node = onHost[out[i].PhysicalHost]
		}
	}
	return out, nil
}

// slotOf is the slot sl of the sub-block named subBlock, whose physical ID
// is physical.
func slotOf(sl *computepb.ReservationSlot, subBlock, physical string) Slot {
	slot := Slot{SubBlock: subBlock, Name: sl.GetName(), State: sl.GetState(), PhysicalSubBlock: physical}
	if pt := sl.GetPhysicalTopology(); pt != nil {
		slot.PhysicalHost = pt.GetHost()
	}
	if pt := sl.GetStatus().GetPhysicalTopology(); slot.PhysicalHost == "" && pt != nil {
		slot.PhysicalHost = pt.GetHost()
	}
	if vms := sl.GetStatus().GetRunningInstances(); len(vms) > 0 {
		slot.Instance = path.Base(vms[0])
	}
	return slot
}

func subBlockNames(b *Block) []string {
	names := make([]string, len(b.SubBlocks))
	for i, s := range b.SubBlocks {
		names[i] = s.Name
	}
	return names
}

// joinOrNone joins names with commas, "none" when there are none.
func joinOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
