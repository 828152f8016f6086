package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// defaultSelectionSettle bounds how long a slice create waits for the
// partitions of pools created earlier in the same apply to reach the
// inventory's watch before it reports a selection that cannot be met.
const defaultSelectionSettle = 15 * time.Second

// selectionRetry is the pause between selections while they settle.
const selectionRetry = 250 * time.Millisecond

// PartitionSelector chooses a slice's partitions instead of listing them.
type PartitionSelector struct {
	// NodePools, when set, restricts the choice to these pools.
	NodePools []string
	// WorkloadPolicy, when set, restricts the choice to the pools that
	// this workload policy places (their placementPolicy, by name or self
	// link): the pools of one slice stack, without naming each. It needs
	// the engine's cluster. See selection_policy.go.
	WorkloadPolicy string
	// Block, when set, restricts the choice to one block: the physical
	// block's gce-topology-block label, or a reservation block name
	// ("block-a", or "reservation/block-a") that the cluster's node pools
	// target, which is resolved to the physical block of their partitions.
	Block string
	// AllowDegraded lets DEGRADED partitions in, after HEALTHY ones.
	AllowDegraded bool
}

// Check refuses a selector that cannot mean what its author meant: an
// empty list of node pools (a for expression over zero pools, say). A nil
// list selects from every pool of the cluster; an empty one must not, or a
// slice would take partitions of pools that another configuration manages.
func (sel PartitionSelector) Check() error {
	if sel.NodePools != nil && len(sel.NodePools) == 0 {
		return errors.New("partition_selector.node_pools is an empty list: it names no pool to select from. " +
			"Name at least one node pool, or leave node_pools out to select from every pool of the cluster")
	}
	return nil
}

// SliceRequest is a slice as the user declares it: its partitions are
// listed (PartitionIDs) or chosen at create (Selector).
type SliceRequest struct {
	Name, Type, Topology string
	PartitionIDs         []string
	Selector             *PartitionSelector
	RetryOnFailure       bool
	AllowDegraded        bool
	// DeviceAccess is how the workload's pods reach the chips: the slice's
	// partitions must be on nodes that offer it (default DevicePlugin).
	DeviceAccess DeviceAccess
}

// SliceShape is what follows from a slice's topology and name: its size
// and what a workload on it needs.
type SliceShape struct {
	Partitions, Chips, Hosts int
	// AcceleratorType is TPU_ACCELERATOR_TYPE, tpu7x-<chips·2>.
	AcceleratorType string
	// NodeSelector pins a pod to the slice; PodAnnotations are the
	// annotations a pod on it carries.
	NodeSelector, PodAnnotations map[string]string
}

// ShapeOf is the shape of the slice name of topology topo, or the
// topology's error.
func ShapeOf(name, topo string) (SliceShape, error) {
	t, err := topology.ParseTPU7x(topo)
	if err != nil {
		return SliceShape{}, err
	}
	return SliceShape{
		Partitions: t.Partitions(), Chips: t.Chips(), Hosts: t.Hosts(), AcceleratorType: t.AcceleratorType(),
		NodeSelector: t.NodeSelector(name), PodAnnotations: t.PodAnnotations(),
	}, nil
}

// selectRequest is the selection for the slice name of topology t.
func selectQueryOf(name string, t topology.Topology, sel PartitionSelector, access DeviceAccess) selectQuery {
	return selectQuery{Count: t.Partitions(), Shape: t.PartitionShape(), NodePools: sel.NodePools, Block: sel.Block, AllowDegraded: sel.AllowDegraded, Slice: name,
		Access: access.orDefault()}
}

// checkSelection reports, at plan time, a selection for the slice name of
// topology topo that cannot be met by the partitions that exist now. It
// says nothing (nil) when it cannot know yet: no node pools are named (the
// whole cluster is a candidate, and pools of this apply may add
// partitions), some named pools do not exist yet, or the cluster cannot be
// read. The choice itself is made by CreateSlice: Terraform plans a
// resource again during apply, in another process, and a choice made at
// plan could not be reproduced there.
func (e *Engine) checkSelection(ctx context.Context, name string, t topology.Topology, sel PartitionSelector, access DeviceAccess) error {
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
func (e *Engine) knownPartitions(ctx context.Context) ([]Partition, bool, error) {
	inv, known, err := e.knownInventory(ctx)
	if !known {
		return nil, false, err
	}
	parts, err := inv.Partitions(ctx)
	return parts, err == nil, err
}

// knownInventory is the inventory once its nodes and Slices are listed,
// and whether they could be, with knownPartitions' rule for errors; it
// groups no partitions.
func (e *Engine) knownInventory(ctx context.Context) (*clusterCache, bool, error) {
	inv, err := e.inventory(ctx)
	if err == nil {
		if err = inv.startAll(ctx); err == nil {
			return inv, true, nil
		}
	}
	var access *ClusterAccessError
	if errors.As(err, &access) {
		return nil, false, err
	}
	if errors.Is(err, ErrNoAnswer) {
		// The GKE API, asked for the cluster's endpoint, did not answer:
		// not a cluster that is yet to be made, and never passed over.
		return nil, false, &ClusterAccessError{What: "endpoint", Err: err, Advice: "The GKE API did not answer the provider's " +
			"request for the cluster's Kubernetes endpoint"}
	}
	tflog.Debug(ctx, "Partitions unknown at plan", map[string]any{"reason": err.Error()})
	return nil, false, nil //nolint:nilerr // a cluster not made yet, or not reachable yet, does not fail a plan
}

// checkClusterAccess reads the cluster's nodes and Slices (once per
// process; a plan of many slices shares the read) and returns a
// ClusterAccessError when they cannot be read for a reason that waiting
// does not cure. Any other failure (a cluster not made yet) is not
// reported: the plan goes on.
func (e *Engine) checkClusterAccess(ctx context.Context) error {
	_, _, err := e.knownInventory(ctx)
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
func (e *Engine) checkListedPartitions(ctx context.Context, name string, t topology.Topology, ids []string) error {
	inv, known, err := e.knownInventory(ctx)
	if !known {
		return err
	}
	// Partitions by shape, grouped when first needed: the other shapes
	// only for an ID that is not of the slice's own.
	byShape := map[string]map[string]Partition{}
	of := func(shape string) map[string]Partition {
		if m, ok := byShape[shape]; ok {
			return m
		}
		parts, _ := inv.livePartitionsOf(ctx, shape)
		m := make(map[string]Partition, len(parts))
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
		if p.overlapped() {
			problems = append(problems, fmt.Sprintf("%s partition %s (node pool %s) overlaps partition %s, which %s holds",
				want, id, p.NodePool, p.SlicePartition, p.heldBy()))
		} else {
			problems = append(problems, fmt.Sprintf("%s partition %s (node pool %s) is used by %s", want, id, p.NodePool, p.heldBy()))
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
func (e *Engine) checkAndClaim(ctx context.Context, inv *clusterCache, req SliceRequest, t topology.Topology) error {
	if err := e.checkListedRules(ctx, t, req.PartitionIDs); err != nil {
		return err // listed_partition_rules.go
	}
	if inv == nil {
		return e.checkListedPartitions(ctx, req.Name, t, req.PartitionIDs)
	}
	inv.selecting.Lock()
	defer inv.selecting.Unlock()
	if err := e.checkListedPartitions(ctx, req.Name, t, req.PartitionIDs); err != nil {
		return err
	}
	if err := e.checkListedAccess(ctx, t, req.PartitionIDs, req.DeviceAccess); err != nil {
		return err
	}
	inv.claim(req.Name, req.PartitionIDs)
	return nil
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
func (e *Engine) checkVersion(ctx context.Context, t topology.Topology) error {
	cluster := e.reads.name()
	if cluster == "" {
		return nil
	}
	version, err := e.reads.clusterVersion(ctx)
	if errors.Is(err, ErrNoAnswer) {
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

// CreateSlice creates the slice and waits until the slice controller makes
// it ready. With a selector it first chooses the partitions (retrying for
// a short settle time, so that pools created earlier in the same apply
// reach the inventory); chosen or listed, the partitions are claimed in
// this process so that other slices of the run keep off them. created is
// called with the partition IDs as soon as the Slice object exists, before
// the wait, so that Terraform records it. The wait fails fast with the
// controller's reason.
func (e *Engine) CreateSlice(ctx context.Context, req SliceRequest, created func(ids []string)) (*Slice, error) {
	// A cluster that cannot be read fails here, saying what to check,
	// rather than in a create or a wait.
	if err := e.checkClusterAccess(ctx); err != nil {
		return nil, err
	}
	// The topology is parsed here, once, and passed on parsed.
	t, err := topology.ParseTPU7x(req.Topology)
	if err != nil {
		return nil, &NotFormableError{Err: err}
	}
	if err := e.checkVersion(ctx, t); err != nil {
		return nil, &NotFormableError{Err: err}
	}
	ids := req.PartitionIDs
	// A failure leaves inv nil: selection then reads the inventory
	// again, and reports its error.
	inv, _ := e.inventory(ctx)
	if len(ids) > 0 {
		// Refused here, before a Slice exists, rather than by the
		// controller with a Slice left behind; checked and claimed as
		// one step, so that two creates of one apply cannot both pass.
		if err := e.checkAndClaim(ctx, inv, req, t); err != nil {
			return nil, &NotFormableError{Err: err}
		}
	}
	if len(ids) == 0 {
		if req.Selector == nil {
			return nil, &SelectionError{Err: fmt.Errorf("slice %s has neither partition IDs nor a partition selector", req.Name)}
		}
		if err := req.Selector.Check(); err != nil {
			return nil, &SelectionError{Err: err}
		}
		chosen, err := e.selectPartitions(ctx, inv, req, t)
		if err != nil {
			return nil, &SelectionError{Err: err}
		}
		ids = chosen
	}
	spec := sliceSpec{Name: req.Name, Type: req.Type, Topology: req.Topology, PartitionIDs: ids, RetryOnFailure: req.RetryOnFailure, AllowDegraded: req.AllowDegraded}
	var satisfies func([]string) string
	if len(req.PartitionIDs) == 0 && inv != nil {
		satisfies = func(have []string) string { return e.satisfiesSelector(ctx, inv, req, t, have) }
	}
	return e.createSlice(ctx, spec, satisfies, created)
}

// satisfiesSelector says why the partitions have do not satisfy req's
// selector, or "" when they do: selection among them alone (each usable
// by the slice, all in one block, of the selector's pools and block)
// chooses them all.
func (e *Engine) satisfiesSelector(ctx context.Context, inv *clusterCache, req SliceRequest, t topology.Topology, have []string) string {
	sel, err := e.policyPools(ctx, *req.Selector)
	if err != nil {
		return err.Error()
	}
	if sel.WorkloadPolicy != "" && len(sel.NodePools) == 0 {
		return noPolicyPools(e.reads.name(), sel).Error()
	}
	sreq := selectQueryOf(req.Name, t, sel, req.DeviceAccess)
	if parts, err := inv.Partitions(ctx); err == nil {
		if sreq.Block, err = e.resolveBlock(ctx, sel, parts); err != nil {
			return err.Error()
		}
	}
	parts, err := inv.partitionsOf(ctx, sreq.shape())
	if err != nil {
		return err.Error()
	}
	want := setOf(have)
	var theirs []Partition
	for _, p := range parts {
		if want[p.ID] {
			theirs = append(theirs, p)
		}
	}
	if len(theirs) != len(have) {
		return fmt.Sprintf("%d of them are not %s partitions of the cluster", len(have)-len(theirs), sreq.shape())
	}
	got, err := choosePartitions(theirs, sreq)
	if err != nil {
		return err.Error()
	}
	if !sameSet(got, have) {
		return fmt.Sprintf("the topology needs %d partitions, not %d", sreq.Count, len(have))
	}
	return ""
}

// selectPartitions chooses and claims partitions for req. A choice that
// cannot be met is tried again for the settle time only while a node pool
// of the selection is pending (see pendingPools): otherwise the shortage
// is final (partitions held by other slices, unhealthy, too few) and is
// reported at once.
func (e *Engine) selectPartitions(ctx context.Context, inv *clusterCache, req SliceRequest, t topology.Topology) ([]string, error) {
	sreq := selectQueryOf(req.Name, t, *req.Selector, req.DeviceAccess)
	if inv == nil {
		var err error
		if inv, err = e.partitionInventory(ctx); err != nil {
			return nil, err
		}
	}
	settle := time.NewTimer(e.selectionSettle)
	defer settle.Stop()
	var pools poolStatus
	for {
		// The pools of a workload policy, again each round: pools of this
		// apply are listed once their create has started.
		sel, err := e.policyPools(ctx, *req.Selector)
		if err != nil {
			return nil, err
		}
		sreq.NodePools = sel.NodePools
		if parts, err := inv.Partitions(ctx); err == nil {
			if sreq.Block, err = e.resolveBlock(ctx, sel, parts); err != nil {
				return nil, err
			}
		}
		var ids []string
		var parts []Partition
		pending, known := []string(nil), false
		if sel.WorkloadPolicy != "" && len(sel.NodePools) == 0 {
			err = noPolicyPools(e.reads.name(), sel) // none yet: wait for the settle time
		} else {
			ids, parts, err = inv.selectAndClaim(ctx, sreq)
			if parts == nil || err == nil {
				return ids, err
			}
			pending, known = e.pendingPools(ctx, inv, sel, &pools)
		}
		if known && len(pending) == 0 {
			tflog.Info(ctx, "Selection cannot be met and no node pool of it is pending: failing without waiting", map[string]any{"slice": req.Name, "reason": err.Error()})
			return nil, fmt.Errorf("%w; every node pool of the selection is created and its nodes have registered, so waiting would not change this", err)
		}
		tflog.Debug(ctx, "Selection not met yet; waiting for partitions to reach the watch", map[string]any{
			"slice": req.Name, "reason": err.Error(), "pending_node_pools": strings.Join(pending, ","),
		})
		select {
		case <-ctx.Done():
			return nil, err
		case <-settle.C:
			return nil, err
		case <-time.After(selectionRetry):
		}
	}
}

// poolRelist bounds how often a selection that waits for pending node
// pools lists the cluster's node pools again.
const poolRelist = time.Second

// poolStatus is the last list of the cluster's node pools a selection
// made, and whether one of them was still being created then.
type poolStatus struct {
	pools    []*container.NodePool
	at       time.Time
	creating bool
}

// pendingPools names the node pools of the selection whose partitions may
// still change what selection finds: the pools sel names (or, naming
// none, every pool of the bound cluster with a reservation affinity, only those
// on the reservation block sel.Block names when it names one) that GKE
// does not list yet, that it is still creating (PROVISIONING,
// RECONCILING), or whose nodes the inventory's watch has not caught up
// with (a node the API server has that the inventory lacks, or holds with
// other labels or readiness). A pool GKE has finished with fewer nodes
// than it asked for (an unhealthy host has none) is not pending: its
// partition's state is GKE's last word. known is false when that cannot
// be told (no cluster named, a list failed): the caller then waits as
// before. The GKE list is kept in last and read again at most every
// poolRelist, and only while a pool was being created; it comes from the
// engine's shared list when that is younger than poolRelist.
func (e *Engine) pendingPools(ctx context.Context, inv *clusterCache, sel PartitionSelector, last *poolStatus) (pending []string, known bool) {
	if e.reads.name() == "" {
		return nil, false
	}
	if last.pools == nil || last.creating && time.Since(last.at) >= poolRelist {
		// The engine's shared list, if made within poolRelist: the one
		// policyPools just read, or another waiting selection's.
		list, err := e.reads.nodePoolsWithin(ctx, e.reads.name(), poolRelist)
		if err != nil {
			tflog.Debug(ctx, "Cannot list node pools to tell whether a selection may still be met", map[string]any{"error": kernel.APIMessage(err)})
			return nil, false
		}
		*last = poolStatus{pools: list, at: time.Now()}
		if last.pools == nil {
			last.pools = []*container.NodePool{}
		}
	}
	byName := map[string]*container.NodePool{}
	for _, p := range last.pools {
		byName[p.Name] = p
	}
	names := sel.NodePools
	if len(names) == 0 {
		names = reservationPools(last.pools, sel.Block)
	}
	last.creating = false
	var running []string
	for _, name := range names {
		p, listed := byName[name]
		switch {
		case !listed:
			pending = append(pending, name+" (not created yet)")
			last.creating = true
		case p.Status == "PROVISIONING" || p.Status == "RECONCILING" || p.Status == "STATUS_UNSPECIFIED" || p.Status == "":
			pending = append(pending, name+" ("+p.Status+")")
			last.creating = true
		case p.Status == "RUNNING":
			running = append(running, name)
		}
		// ERROR, STOPPING: the pool brings no partition.
	}
	if len(pending) > 0 || len(running) == 0 {
		return pending, true
	}
	behind, err := e.watchBehind(ctx, inv, running)
	if err != nil {
		tflog.Debug(ctx, "Cannot list nodes to tell whether a selection may still be met", map[string]any{"error": err.Error()})
		return nil, false
	}
	return behind, true
}

// reservationPools names the pools with a reservation affinity (those
// that can bring partitions); with block ("block" or "reservation/block")
// only those on that reservation block, when any is.
func reservationPools(pools []*container.NodePool, block string) []string {
	var all, inBlock []string
	for _, p := range pools {
		t := targetOf(p)
		if !t.Set {
			continue
		}
		all = append(all, p.Name)
		if t.inBlock(block) {
			inBlock = append(inBlock, p.Name)
		}
	}
	if block != "" && len(inBlock) > 0 {
		return inBlock
	}
	return all
}

// watchBehind names the pools whose nodes, as the API server lists them
// now (one list for all pools), the inventory does not hold yet, or holds
// with other labels or readiness.
func (e *Engine) watchBehind(ctx context.Context, inv *clusterCache, pools []string) ([]string, error) {
	kube, err := e.cluster(ctx)
	if err != nil {
		return nil, err
	}
	list, err := kube.Nodes().List(ctx, metav1.ListOptions{LabelSelector: fmt.Sprintf("%s in (%s)", wellknown.LabelNodePool, strings.Join(pools, ","))})
	if err != nil {
		return nil, err
	}
	held := map[string]*corev1.Node{}
	for _, pool := range pools {
		nodes, err := inv.Nodes(ctx, map[string]string{wellknown.LabelNodePool: pool})
		if err != nil {
			return nil, err
		}
		for _, n := range nodes {
			held[n.Name] = n
		}
	}
	behind := map[string]bool{}
	for i := range list.Items {
		n := &list.Items[i]
		h, ok := held[n.Name]
		if !ok || !maps.Equal(h.Labels, n.Labels) || nodeReady(h) != nodeReady(n) {
			behind[n.Labels[wellknown.LabelNodePool]] = true
		}
	}
	out := make([]string, 0, len(behind))
	for _, pool := range slices.Sorted(maps.Keys(behind)) {
		out = append(out, pool+" (its nodes have not all reached the watch)")
	}
	return out, nil
}

// setRetryOnFailure sets or clears the slice's retry-on-failure
// annotation, in place.
func (e *Engine) setRetryOnFailure(ctx context.Context, name string, retry bool) error {
	slices, err := e.sliceClient(ctx)
	if err != nil {
		return err
	}
	value := "null"
	if retry {
		value = `"true"`
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%s}}}`, wellknown.AnnotationRetryOnFailure, value)
	tflog.Info(ctx, "Updating Slice", map[string]any{"slice": name, "retry_on_failure": retry})
	if _, err := slices.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("setting %s on Slice %s: the Slice no longer exists; run terraform apply again to create it", wellknown.AnnotationRetryOnFailure, name)
		}
		return fmt.Errorf("setting %s on Slice %s: %w", wellknown.AnnotationRetryOnFailure, name, err)
	}
	return nil
}

// resolveBlock is the physical block (gce-topology-block) that the
// selector's Block names. A Block that is the physical block of a
// partition is returned as is. Otherwise it is taken as a reservation
// block name, "block" or "reservation/block": the node pools of the bound cluster
// that target that reservation block say which partitions are in it, and
// their one physical block is returned. A name that matches no pool is
// returned as is (selection then says which blocks exist).
func (e *Engine) resolveBlock(ctx context.Context, sel PartitionSelector, parts []Partition) (string, error) {
	if sel.Block == "" || e.reads.name() == "" {
		return sel.Block, nil
	}
	for _, p := range parts {
		if p.Block == sel.Block {
			return sel.Block, nil
		}
	}
	// The shared list, if made within poolRelist, as pendingPools reads
	// it: resolution runs in each 250 ms round of a selection's settle
	// loop, and at plan right after policyPools listed. A pool's
	// reservation target never changes, pools this process creates or
	// deletes drop the list, and a pool made elsewhere within poolRelist
	// is found by the next round (a name that matches no pool is returned
	// as is until then).
	pools, err := e.reads.nodePoolsWithin(ctx, e.reads.name(), poolRelist)
	if err != nil {
		tflog.Debug(ctx, "Cannot list node pools to resolve a reservation block name", map[string]any{"block": sel.Block, "error": kernel.APIMessage(err)})
		return sel.Block, nil
	}
	inBlock := map[string]bool{}
	for _, p := range pools {
		if targetOf(p).inBlock(sel.Block) {
			inBlock[p.Name] = true
		}
	}
	physical := map[string]bool{}
	for _, p := range parts {
		if inBlock[p.NodePool] && p.Block != "" {
			physical[p.Block] = true
		}
	}
	switch len(physical) {
	case 0:
		return sel.Block, nil
	case 1:
		for b := range physical {
			tflog.Info(ctx, "partition_selector.block names a reservation block", map[string]any{"block": sel.Block, "physical_block": b})
			return b, nil
		}
	}
	return "", fmt.Errorf("partition_selector.block %q names reservation blocks in %d physical blocks (%s): write \"reservation/block\", "+
		"or the physical block (the cloud.google.com/gce-topology-block node label)", sel.Block, len(physical), strings.Join(slices.Sorted(maps.Keys(physical)), ", "))
}
