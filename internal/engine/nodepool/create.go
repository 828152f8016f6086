package nodepool

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Create checks the target, creates the pool, reports its ID
// through created as soon as GKE accepted it (so that Terraform records it
// before any wait), waits for the operation and then for the pool's nodes
// and partition labels. A pool of the spec's name that exists already
// (its target is in use, or the create answers 409) is adopted when it
// matches the spec (poolDifferences), as a killed apply or a create whose
// answer was lost leaves it: the result's Adopted says so. Otherwise the
// create fails with an ExistsError. The create is recorded while it works
// (kernel.CreateRecords): one that finds another creator's fresh record fails
// with a CreatorAtWorkError.
func (ps *Pools) Create(ctx context.Context, s Spec, created func(id string)) (*Pool, error) {
	release, err := ps.records.Record(ctx, ps.cluster, "node-pool", "node pool", s.ID())
	if err != nil {
		return nil, err
	}
	defer release()
	block, err := ps.res.CheckTarget(ctx, s.Target, s.ClusterName())
	if err != nil {
		// The pool of this name may be what holds the target.
		existing, xerr := ps.existingPool(ctx, s)
		if xerr != nil {
			return nil, xerr
		}
		if existing == nil {
			return nil, err
		}
		return ps.adoptPool(ctx, s, existing, "holding its reservation target", created)
	}
	policy := kernel.LastSegment(s.Policy)
	pool := &container.NodePool{
		Name:             s.Name,
		InitialNodeCount: s.NodeCount,
		Locations:        []string{s.Target.Zone},
		PlacementPolicy:  &container.PlacementPolicy{PolicyName: policy},
		Management:       &container.NodeManagement{AutoRepair: s.AutoRepair, AutoUpgrade: s.AutoUpgrade, ForceSendFields: []string{"AutoRepair", "AutoUpgrade"}},
		Config: &container.NodeConfig{
			MachineType: s.MachineType,
			Labels:      s.Labels,
			ReservationAffinity: &container.ReservationAffinity{
				ConsumeReservationType: "SPECIFIC_RESERVATION",
				Key:                    "compute.googleapis.com/reservation-name",
				Values:                 []string{s.Target.Path()},
			},
			ResourceLabels: s.ResourceLabels,
		},
	}
	for _, t := range s.Taints {
		pool.Config.Taints = append(pool.Config.Taints, &container.NodeTaint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	tflog.Info(ctx, "Creating sub-block node pool", map[string]any{
		"node_pool": s.ID(), "reservation": s.Target.Path(), "policy": policy, "nodes": s.NodeCount,
		"free_sub_blocks": strings.Join(block.FreeSubBlocks(), ","),
	})
	ps.reads.PoolsChanged(s.ID())
	// The create takes the target's sub-block, and a create that fails
	// frees it: neither is served from a cached read after this.
	ps.res.ChangingTarget(s.Target)
	defer ps.res.ChangingTarget(s.Target)
	// An interrupt must not cut the create's answer short: GKE may have
	// made the pool, and only the answer lets Terraform record it. The
	// transport bounds each attempt, so this cannot hang.
	op, err := ps.gke.CreateNodePool(context.WithoutCancel(ctx), s.ClusterName(), pool)
	if err != nil {
		if kernel.HTTPStatus(err) != http.StatusConflict {
			return nil, fmt.Errorf("creating node pool %s: %s", s.ID(), kernel.APIMessage(err))
		}
		existing, xerr := ps.existingPool(ctx, s)
		if xerr != nil {
			return nil, xerr
		}
		if existing == nil {
			return nil, fmt.Errorf("creating node pool %s: %s", s.ID(), kernel.APIMessage(err))
		}
		how := "found by a create that GKE answered with 409 (already exists)"
		if kernel.ConflictAfterRetry(err) {
			// The first attempt was applied and its answer lost.
			how = "created by this apply's first attempt, whose answer was lost, and found by its retry"
		}
		return ps.adoptPool(ctx, s, existing, how, created)
	}
	created(s.ID())
	return ps.awaitPool(ctx, s, func(early *kernel.EarlyPoll) error {
		return ps.waiter.WaitGKE(ctx, ps.gke, s.Project, s.Location, op, early)
	})
}

// adoptPool takes an existing pool that matches the spec as the create's
// own: it is reported through created and waited for (its create
// operation is not known here: until GKE has provisioned it), as
// Create waits for a pool it created.
func (ps *Pools) adoptPool(ctx context.Context, s Spec, p *container.NodePool, how string, created func(id string)) (*Pool, error) {
	reason := fmt.Sprintf(adoptedPoolReason, s.ID(), how+" (status "+p.Status+")")
	tflog.Warn(ctx, "Adopted node pool", map[string]any{"node_pool": s.ID(), "reason": reason})
	created(s.ID())
	out, err := ps.awaitPool(ctx, s, func(early *kernel.EarlyPoll) error { return ps.waitPoolProvisioned(ctx, s.ID(), early) })
	if out != nil {
		out.Adopted = reason
	}
	return out, err
}

// Resume waits for a pool whose create was interrupted (it is in
// the state, not finished): until GKE has provisioned it, then for its
// nodes and partition labels, as Create does, recorded as its
// create is.
func (ps *Pools) Resume(ctx context.Context, s Spec) (*Pool, error) {
	tflog.Info(ctx, "Resuming the wait for an interrupted node pool create", map[string]any{"node_pool": s.ID()})
	release, err := ps.records.Record(ctx, ps.cluster, "node-pool", "node pool", s.ID())
	if err != nil {
		return nil, err
	}
	defer release()
	return ps.awaitPool(ctx, s, func(early *kernel.EarlyPoll) error { return ps.waitPoolProvisioned(ctx, s.ID(), early) })
}

// awaitPool waits with wait for the pool's create to end (cut short when
// its nodes are registered), then for its partition, and reads it.
func (ps *Pools) awaitPool(ctx context.Context, s Spec, wait func(*kernel.EarlyPoll) error) (*Pool, error) {
	kube, err := ps.cluster(ctx)
	if err != nil {
		// Let the operation end, so that the pool is whole, then say why
		// its nodes could not be checked.
		if werr := wait(nil); werr != nil {
			return nil, fmt.Errorf("creating node pool %s: %w", s.ID(), werr)
		}
		return nil, fmt.Errorf("node pool %s was created, but %w", s.ID(), err)
	}
	// Watch the pool's nodes from now: GKE registers them before it ends
	// the operation, so their arrival is the cue to poll again soon.
	nodes := clusterread.WatchNodes(kube, wellknown.LabelNodePool+"="+s.Name)
	defer nodes.Stop()
	registered := &kernel.EarlyPoll{Changed: nodes.Changed(), Ready: func() bool {
		v := viewNodes(nodes.List())
		return s.NodeCount > 0 && int64(v.nodes) >= s.NodeCount && v.ready == v.nodes
	}}
	if err := wait(registered); err != nil {
		return nil, fmt.Errorf("creating node pool %s: %w", s.ID(), err)
	}
	if err := waitPartition(ctx, s.Name, s.WaitFor, nodes); err != nil {
		return nil, fmt.Errorf("node pool %s was created, but %w", s.ID(), err)
	}
	return ps.read(ctx, s.ID(), true)
}
