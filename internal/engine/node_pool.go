package engine

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Wait targets for a new node pool's partition.
const (
	// WaitLabelled waits until every node carries its partition labels.
	WaitLabelled = "LABELLED"
	// WaitHealthy waits for partition state HEALTHY.
	WaitHealthy = "HEALTHY"
	// WaitUsable waits for HEALTHY or DEGRADED, the states a slice can use.
	WaitUsable = "HEALTHY_OR_DEGRADED"
)

// WaitTargets lists the wait targets, for the schema.
var WaitTargets = []string{WaitLabelled, WaitHealthy, WaitUsable}

// Taint is a Kubernetes taint for the pool's nodes.
type Taint struct{ Key, Value, Effect string }

// NodePoolSpec is a sub-block node pool as the user declares it.
type NodePoolSpec struct {
	Project, Location, Cluster, Name string
	// Policy is the workload policy's name or self link.
	Policy      string
	Target      Target
	MachineType string
	NodeCount   int64
	Labels      map[string]string
	Taints      []Taint
	AutoRepair  bool
	AutoUpgrade bool
	// WaitFor is one of WaitTargets.
	WaitFor string
	// ResourceLabels are the GCP labels of the pool's VMs.
	ResourceLabels map[string]string
}

// ClusterName is projects/P/locations/L/clusters/C.
func (s NodePoolSpec) ClusterName() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", s.Project, s.Location, s.Cluster)
}

// ID is the node pool's full GKE name, its Terraform ID.
func (s NodePoolSpec) ID() string { return s.ClusterName() + "/nodePools/" + s.Name }

// NodePool is a node pool as GKE and Kubernetes report it.
type NodePool struct {
	ID, Project, Location, Cluster, Name string
	Status                               string
	MachineType, Policy                  string
	NodeCount                            int64
	Zone                                 string
	Labels                               map[string]string
	ResourceLabels                       map[string]string
	ReservationPath                      string
	Reservation, Block, SubBlock         string
	PartitionID, PartitionState          string
	NodeNames                            []string
	ReadyNodes                           int64
	Taints                               []Taint
	AutoRepair, AutoUpgrade              bool
	// Adopted, set only by CreateNodePool, says why the create adopted a
	// pool that existed (matching the spec) instead of creating it; empty
	// when it created the pool.
	Adopted string
	// UnhealthySummary, set only by a ReadNodePool asked to
	// (SummariseUnhealthy), summarises the cluster's partitions that are
	// not healthy.
	UnhealthySummary string
}

var nodePoolIDRE = regexp.MustCompile(`^projects/([^/]+)/locations/([^/]+)/clusters/([^/]+)/nodePools/([^/]+)$`)

// CanonicalNodePoolID returns the node pool ID as
// projects/P/locations/L/clusters/C/nodePools/N, whatever form (a URL) it
// was given in.
func CanonicalNodePoolID(id string) (string, error) {
	project, location, cluster, name, err := parseNodePoolID(id)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s/nodePools/%s", project, location, cluster, name), nil
}

// parseNodePoolID splits projects/P/locations/L/clusters/C/nodePools/N.
func parseNodePoolID(id string) (project, location, cluster, name string, err error) {
	m := nodePoolIDRE.FindStringSubmatch(strings.TrimPrefix(id, "https://container.googleapis.com/v1/"))
	if m == nil {
		return "", "", "", "", fmt.Errorf("%q is not a GKE node pool ID: use projects/P/locations/L/clusters/C/nodePools/N", id)
	}
	return m[1], m[2], m[3], m[4], nil
}

// CreateNodePool checks the target, creates the pool, reports its ID
// through created as soon as GKE accepted it (so that Terraform records it
// before any wait), waits for the operation and then for the pool's nodes
// and partition labels. A pool of the spec's name that exists already
// (its target is in use, or the create answers 409) is adopted when it
// matches the spec (poolDifferences), as a killed apply or a create whose
// answer was lost leaves it: the result's Adopted says so. Otherwise the
// create fails with an ExistsError. The create is recorded while it works
// (kernel.RecordCreate): one that finds another creator's fresh record fails
// with a CreatorAtWorkError.
func (e *Engine) CreateNodePool(ctx context.Context, s NodePoolSpec, created func(id string)) (*NodePool, error) {
	release, err := kernel.RecordCreate(ctx, e.cluster, "node-pool", "node pool", s.ID())
	if err != nil {
		return nil, err
	}
	defer release()
	block, err := e.checkTarget(ctx, s.Target, s.ClusterName())
	if err != nil {
		// The pool of this name may be what holds the target.
		existing, xerr := e.existingPool(ctx, s)
		if xerr != nil {
			return nil, xerr
		}
		if existing == nil {
			return nil, err
		}
		return e.adoptPool(ctx, s, existing, "holding its reservation target", created)
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
	e.reads.PoolsChanged(s.ID())
	// The create takes the target's sub-block, and a create that fails
	// frees it: neither is served from a cached read after this.
	e.changingTarget(s.Target)
	defer e.changingTarget(s.Target)
	// An interrupt must not cut the create's answer short: GKE may have
	// made the pool, and only the answer lets Terraform record it. The
	// transport bounds each attempt, so this cannot hang.
	op, err := e.gke.CreateNodePool(context.WithoutCancel(ctx), s.ClusterName(), pool)
	if err != nil {
		if kernel.HTTPStatus(err) != http.StatusConflict {
			return nil, fmt.Errorf("creating node pool %s: %s", s.ID(), kernel.APIMessage(err))
		}
		existing, xerr := e.existingPool(ctx, s)
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
		return e.adoptPool(ctx, s, existing, how, created)
	}
	created(s.ID())
	return e.awaitPool(ctx, s, func(early *kernel.EarlyPoll) error {
		return e.waiter.WaitGKE(ctx, e.gke, s.Project, s.Location, op, early)
	})
}

// adoptPool takes an existing pool that matches the spec as the create's
// own: it is reported through created and waited for (its create
// operation is not known here: until GKE has provisioned it), as
// CreateNodePool waits for a pool it created.
func (e *Engine) adoptPool(ctx context.Context, s NodePoolSpec, p *container.NodePool, how string, created func(id string)) (*NodePool, error) {
	reason := fmt.Sprintf(adoptedPoolReason, s.ID(), how+" (status "+p.Status+")")
	tflog.Warn(ctx, "Adopted node pool", map[string]any{"node_pool": s.ID(), "reason": reason})
	created(s.ID())
	out, err := e.awaitPool(ctx, s, func(early *kernel.EarlyPoll) error { return e.waitPoolProvisioned(ctx, s.ID(), early) })
	if out != nil {
		out.Adopted = reason
	}
	return out, err
}

// ResumeNodePool waits for a pool whose create was interrupted (it is in
// the state, not finished): until GKE has provisioned it, then for its
// nodes and partition labels, as CreateNodePool does, recorded as its
// create is.
func (e *Engine) ResumeNodePool(ctx context.Context, s NodePoolSpec) (*NodePool, error) {
	tflog.Info(ctx, "Resuming the wait for an interrupted node pool create", map[string]any{"node_pool": s.ID()})
	release, err := kernel.RecordCreate(ctx, e.cluster, "node-pool", "node pool", s.ID())
	if err != nil {
		return nil, err
	}
	defer release()
	return e.awaitPool(ctx, s, func(early *kernel.EarlyPoll) error { return e.waitPoolProvisioned(ctx, s.ID(), early) })
}

// awaitPool waits with wait for the pool's create to end (cut short when
// its nodes are registered), then for its partition, and reads it.
func (e *Engine) awaitPool(ctx context.Context, s NodePoolSpec, wait func(*kernel.EarlyPoll) error) (*NodePool, error) {
	kube, err := e.cluster(ctx)
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
	return e.readNodePool(ctx, s.ID(), true)
}

// sameNodeSettings reports whether s and o give the nodes the same
// Kubernetes labels and taints.
func (s NodePoolSpec) sameNodeSettings(o NodePoolSpec) bool {
	return maps.Equal(s.Labels, o.Labels) && slices.Equal(s.Taints, o.Taints)
}

// sameManagement reports whether s and o have the same auto-repair and
// auto-upgrade.
func (s NodePoolSpec) sameManagement(o NodePoolSpec) bool {
	return s.AutoRepair == o.AutoRepair && s.AutoUpgrade == o.AutoUpgrade
}

// SameInPlaceSettings reports whether s and o agree on everything
// UpdateNodePool changes: when they do, an update has nothing to send.
func (s NodePoolSpec) SameInPlaceSettings(o NodePoolSpec) bool {
	return s.sameNodeSettings(o) && s.sameManagement(o) && maps.Equal(s.ResourceLabels, o.ResourceLabels)
}

// UpdateNodePool changes in place what GKE changes in place, from the
// pool as it was (from) to the pool as declared (to): the nodes'
// Kubernetes labels and taints (nodePools.update) and auto-repair and
// auto-upgrade (nodePools.setManagement). The pool, its nodes and its
// partition stay; every other change replaces the pool.
func (e *Engine) UpdateNodePool(ctx context.Context, from, to NodePoolSpec) (*NodePool, error) {
	id := to.ID()
	e.reads.PoolsChanged(id)
	if !from.sameNodeSettings(to) {
		labels := map[string]string{}
		maps.Copy(labels, to.Labels)
		taints := []*container.NodeTaint{}
		for _, t := range to.Taints {
			taints = append(taints, &container.NodeTaint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
		tflog.Info(ctx, "Updating the labels and taints of sub-block node pool", map[string]any{"node_pool": id, "labels": len(labels), "taints": len(taints)})
		// Empty lists are sent, not left out: they clear the labels or
		// taints.
		op, err := e.gke.UpdateNodePool(ctx, id, &container.UpdateNodePoolRequest{
			Name:   id,
			Labels: &container.NodeLabels{Labels: labels, ForceSendFields: []string{"Labels"}},
			Taints: &container.NodeTaints{Taints: taints, ForceSendFields: []string{"Taints"}},
		})
		if err != nil {
			return nil, fmt.Errorf("updating node pool %s: %s", id, kernel.APIMessage(err))
		}
		if err := e.waiter.WaitGKE(ctx, e.gke, to.Project, to.Location, op, nil); err != nil {
			return nil, fmt.Errorf("updating node pool %s: %w", id, err)
		}
	}
	if err := e.updateResourceLabels(ctx, from, to); err != nil {
		return nil, err
	}
	if !from.sameManagement(to) {
		tflog.Info(ctx, "Setting the management of sub-block node pool", map[string]any{"node_pool": id, "auto_repair": to.AutoRepair, "auto_upgrade": to.AutoUpgrade})
		op, err := e.gke.SetNodePoolManagement(ctx, id, &container.SetNodePoolManagementRequest{
			Name:       id,
			Management: &container.NodeManagement{AutoRepair: to.AutoRepair, AutoUpgrade: to.AutoUpgrade, ForceSendFields: []string{"AutoRepair", "AutoUpgrade"}},
		})
		if err != nil {
			return nil, fmt.Errorf("setting the management of node pool %s: %s", id, kernel.APIMessage(err))
		}
		if err := e.waiter.WaitGKE(ctx, e.gke, to.Project, to.Location, op, nil); err != nil {
			return nil, fmt.Errorf("setting the management of node pool %s: %w", id, err)
		}
	}
	return e.readNodePool(ctx, id, true)
}

// DeleteNodePool deletes the pool and waits; a pool already gone is not an
// error.
func (e *Engine) DeleteNodePool(ctx context.Context, id string) error {
	id, err := CanonicalNodePoolID(id)
	if err != nil {
		return err
	}
	project, location, _, _, _ := parseNodePoolID(id)
	tflog.Info(ctx, "Deleting sub-block node pool", map[string]any{"node_pool": id})
	e.reads.PoolsChanged(id)
	// The delete frees the pool's sub-block (not read here): no cached
	// read of any block serves a check after it.
	e.changingReservations()
	defer e.changingReservations()
	op, err := e.gke.DeleteNodePool(ctx, id)
	if kernel.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting node pool %s: %s", id, kernel.APIMessage(err))
	}
	if err := e.waiter.WaitGKE(ctx, e.gke, project, location, op, nil); err != nil {
		return fmt.Errorf("deleting node pool %s: %w", id, err)
	}
	return nil
}
