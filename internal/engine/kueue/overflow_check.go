package kueue

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// The checks of the overflow flavor, made with the rest of the set-up's
// (checkKueue), at plan and before an apply:
//
//   - every pool of the overflow exists (at plan, only those GKE lists
//     matter: the others may be made by the same apply), was created with
//     flex-start and queued provisioning, and has the overflow's topology;
//   - the overflow's quota holds at least one workload of its topology
//     (its chips), and a whole number of them.

// KueueOverflowError is what is wrong with the overflow's node pools or
// quota.
type KueueOverflowError struct {
	Topology string
	// Missing are pools GKE does not list; NotQueued those made without
	// flex-start or queued provisioning; WrongTopology those of another
	// topology (pool: its topology).
	Missing, NotQueued []string
	WrongTopology      map[string]string
	// Quota is set when the quota does not hold whole workloads of the
	// topology (Chips each).
	Quota, Chips int64
	QuotaProblem bool
}

func (e *KueueOverflowError) Error() string { return e.Detail() }

// Detail says each problem and what to write instead.
func (e *KueueOverflowError) Detail() string {
	var out []string
	if len(e.Missing) > 0 {
		out = append(out, fmt.Sprintf("the cluster has no node pool named %s: create the flex-start pools first (queued provisioning, "+
			"no reservation, autoscaling from 0 nodes), or remove them from overflow.node_pools", strings.Join(e.Missing, ", ")))
	}
	if len(e.NotQueued) > 0 {
		out = append(out, fmt.Sprintf("node pool(s) %s were not created with flex-start and queued provisioning "+
			"(config.flexStart and queuedProvisioning.enabled): the overflow's ProvisioningRequests only get nodes from such pools; "+
			"name flex-start queued pools in overflow.node_pools", strings.Join(e.NotQueued, ", ")))
	}
	for _, p := range slices.Sorted(maps.Keys(e.WrongTopology)) {
		out = append(out, fmt.Sprintf("node pool %s has TPU topology %q, not overflow.topology %q: a flex-start TPU pool is one slice "+
			"of its topology, so the flavor selects nodes of one topology; set overflow.topology to %q or name pools of %q",
			p, e.WrongTopology[p], e.Topology, e.WrongTopology[p], e.Topology))
	}
	if e.QuotaProblem {
		out = append(out, fmt.Sprintf("overflow.tpu_quota %d does not hold a whole number of workloads of overflow.topology %q "+
			"(%d chips each), at least one: set it to a multiple of %d", e.Quota, e.Topology, e.Chips, e.Chips))
	}
	return "the overflow flavor cannot work: " + strings.Join(out, "; ")
}

// overflowProblems checks o against GKE's list of node pools (read here)
// and returns a *KueueOverflowError, or nil. unknown pools (not known at
// plan) are not checked; atApply, every pool must exist.
func (e *Kueue) overflowProblems(ctx context.Context, o *KueueOverflow, atApply bool) []error {
	if o == nil {
		return nil
	}
	problem := overflowQuotaProblem(o)
	if cluster := e.reads.Name(); cluster != "" && len(o.NodePools) > 0 {
		list, err := e.reads.FreshNodePools(ctx, cluster)
		if err != nil {
			tflog.Debug(ctx, "Cannot list node pools to check the overflow", map[string]any{"error": kernel.APIMessage(err)})
		} else {
			judgeOverflowPools(problem, o, list, atApply)
		}
	}
	if len(problem.Missing)+len(problem.NotQueued)+len(problem.WrongTopology) == 0 && !problem.QuotaProblem {
		return nil
	}
	return []error{problem}
}

// overflowQuotaProblem is the overflow's error with its quota judged:
// whole workloads of its topology, at least one.
func overflowQuotaProblem(o *KueueOverflow) *KueueOverflowError {
	problem := &KueueOverflowError{Topology: o.Topology, WrongTopology: map[string]string{}, Quota: o.TPUQuota}
	if t, err := topology.ParseTPU7x(o.Topology); err == nil {
		problem.Chips = int64(t.Chips())
		problem.QuotaProblem = o.TPUQuota < problem.Chips || o.TPUQuota%problem.Chips != 0
	}
	return problem
}

// judgeOverflowPools fills problem from GKE's node pools.
func judgeOverflowPools(problem *KueueOverflowError, o *KueueOverflow, list []*container.NodePool, atApply bool) {
	byName := map[string]*container.NodePool{}
	for _, p := range list {
		byName[p.Name] = p
	}
	for _, name := range o.NodePools {
		p, ok := byName[name]
		switch {
		case !ok:
			if atApply {
				problem.Missing = append(problem.Missing, name)
			}
		case p.Config == nil || !p.Config.FlexStart || p.QueuedProvisioning == nil || !p.QueuedProvisioning.Enabled:
			problem.NotQueued = append(problem.NotQueued, name)
		case p.PlacementPolicy == nil || p.PlacementPolicy.TpuTopology != o.Topology:
			have := ""
			if p.PlacementPolicy != nil {
				have = p.PlacementPolicy.TpuTopology
			}
			problem.WrongTopology[name] = have
		}
	}
}

// reservationTopologies are the workload topologies the reservation's
// checks judge: those of the overflow's topology go to the overflow
// flavor, so they are left out ("", not checked) there.
func reservationTopologies(topologies []string, o *KueueOverflow) []string {
	if o == nil {
		return topologies
	}
	out := make([]string, len(topologies))
	for i, t := range topologies {
		if t != o.Topology {
			out[i] = t
		}
	}
	return out
}
