package reservation

import (
	"context"
	"errors"
	"fmt"
	"sync"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// NodeGroup is the nodes of one node pool on one physical sub-block: a
// partition's, as HostsOf tells their hosts.
type NodeGroup struct {
	// NodePool is the nodes' pool; PhysicalSubBlock their
	// cloud.google.com/gce-topology-subblock label.
	NodePool, PhysicalSubBlock string
	Nodes                      []string
}

// Host is a node's host.
type Host struct {
	// Node is the node's name, PhysicalHost its host's opaque ID (the
	// node's cloud.google.com/gce-topology-host label; "" when it has
	// none).
	Node, PhysicalHost string
	// Slot is the name of the host's reservation slot and SlotState its
	// state (ACTIVE, CREATING, DELETING, or UNAVAILABLE while the host is
	// faulty or in maintenance); "" when the slots were not read, or
	// Compute Engine lists no slot of the host.
	Slot, SlotState string
}

// SlotReadError is a read of reservation slots that failed after the
// hosts were told from the nodes: the hosts are there, without the slots
// of the sub-blocks it names.
type SlotReadError struct{ Err error }

func (e *SlotReadError) Error() string { return e.Err.Error() }
func (e *SlotReadError) Unwrap() error { return e.Err }

// slotListers bounds how many sub-blocks' slots HostsOf lists at once.
const slotListers = 8

// HostsOf tells the hosts of each group's nodes, in the order of its
// nodes, from the nodes' cloud.google.com/gce-topology-host labels (the
// engine's node inventory). With slots, it reads from Compute Engine the
// reservation slots of the groups' sub-blocks, once each, and tells each
// host's slot and its state: a group's sub-block is its pool's reservation
// target (the pool's reservation affinity names the reservation, the
// block and the sub-block, or the block only: then the block's sub-block
// whose physical ID the nodes carry), in the pool's zone. Slots that
// cannot be read are a SlotReadError beside the hosts; nodes that cannot
// be read, a NodeReadError.
func (r *Reservations) HostsOf(ctx context.Context, groups []NodeGroup, slots bool) ([][]Host, error) {
	nodes, err := r.reads.Nodes(ctx, map[string]string{wellknown.LabelTopologyHost: ""})
	if err != nil {
		return nil, &NodeReadError{Err: fmt.Errorf("reading the cluster's nodes to tell their hosts: %w", err)}
	}
	hostOf := make(map[string]string, len(nodes))
	for _, n := range nodes {
		hostOf[n.Name] = n.Labels[wellknown.LabelTopologyHost]
	}
	out := make([][]Host, len(groups))
	for i, g := range groups {
		out[i] = make([]Host, len(g.Nodes))
		for j, n := range g.Nodes {
			out[i][j] = Host{Node: n, PhysicalHost: hostOf[n]}
		}
	}
	if !slots || len(groups) == 0 {
		return out, nil
	}
	byHost, err := r.slotsOfGroups(ctx, groups)
	for _, hosts := range out {
		for j := range hosts {
			if s, ok := byHost[hosts[j].PhysicalHost]; ok && hosts[j].PhysicalHost != "" {
				hosts[j].Slot, hosts[j].SlotState = s.Name, s.State
			}
		}
	}
	if err != nil {
		return out, &SlotReadError{Err: err}
	}
	return out, nil
}

// slotsOfGroups reads the slots of the groups' sub-blocks, each once (at
// most slotListers at a time), by physical host; the error joins what
// could not be read, each naming its pool or sub-block.
func (r *Reservations) slotsOfGroups(ctx context.Context, groups []NodeGroup) (map[string]Slot, error) {
	subs, errs := r.subBlocksOfGroups(ctx, groups)
	var (
		mu     sync.Mutex
		wg     sync.WaitGroup
		byHost = map[string]Slot{}
		limit  = make(chan struct{}, slotListers)
	)
	for _, t := range subs {
		wg.Add(1)
		limit <- struct{}{}
		go func() {
			defer func() { <-limit; wg.Done() }()
			listed, err := r.compute.ListReservationSlots(ctx, t.Project, t.Zone, t.Reservation, t.Block, t.SubBlock)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("listing the reservation slots of sub-block %s/%s/%s: %s", t.Reservation, t.Block, t.SubBlock, kernel.APIMessage(err)))
				return
			}
			for _, sl := range listed {
				s := slotOf(sl, t.SubBlock, "")
				byHost[s.PhysicalHost] = s
			}
		}()
	}
	wg.Wait()
	return byHost, errors.Join(errs...)
}

// subBlocksOfGroups is the distinct reservation sub-blocks the groups are
// on, in the order met, from their pools' reservation targets; errs say
// which groups' could not be told.
func (r *Reservations) subBlocksOfGroups(ctx context.Context, groups []NodeGroup) (subs []Target, errs []error) {
	pools, err := r.reads.NodePools(ctx, r.reads.Name())
	if err != nil {
		return nil, []error{fmt.Errorf("listing the cluster's node pools to find their reservation sub-blocks: %s", kernel.APIMessage(err))}
	}
	byName := make(map[string]*container.NodePool, len(pools))
	for _, p := range pools {
		byName[p.Name] = p
	}
	seen := map[Target]bool{}
	for _, g := range groups {
		t, err := r.subBlockOfGroup(ctx, byName[g.NodePool], g)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !seen[t] {
			seen[t] = true
			subs = append(subs, t)
		}
	}
	return subs, errs
}

// subBlockOfGroup is the reservation sub-block of the group's nodes, of
// their pool p (nil when the cluster has none of the name).
func (r *Reservations) subBlockOfGroup(ctx context.Context, p *container.NodePool, g NodeGroup) (Target, error) {
	if p == nil {
		return Target{}, fmt.Errorf("node pool %s is not among the cluster's node pools", g.NodePool)
	}
	pt := TargetOf(p)
	if !pt.Parsed || len(p.Locations) == 0 {
		return Target{}, fmt.Errorf("node pool %s targets no reservation block in a zone (its reservation affinity: %q, its zones: %v)", g.NodePool, pt.Path, p.Locations)
	}
	t := Target{Project: pt.Project, Zone: p.Locations[0], Reservation: pt.Reservation, Block: pt.Block, SubBlock: pt.SubBlock}
	if t.SubBlock != "" {
		return t, nil
	}
	b, _, err := r.CachedBlock(ctx, t, NeedLayout)
	if err != nil {
		return Target{}, err
	}
	for _, s := range b.SubBlocks {
		if s.PhysicalSubBlock != "" && s.PhysicalSubBlock == g.PhysicalSubBlock {
			t.SubBlock = s.Name
			return t, nil
		}
	}
	return Target{}, fmt.Errorf("no sub-block of reservation block %s/%s has the physical ID %q that the nodes of node pool %s carry (%s)",
		t.Reservation, t.Block, g.PhysicalSubBlock, g.NodePool, wellknown.LabelTopologySubBlock)
}
