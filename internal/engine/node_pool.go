package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
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
}

var nodePoolIDRE = regexp.MustCompile(`^projects/([^/]+)/locations/([^/]+)/clusters/([^/]+)/nodePools/([^/]+)$`)

// CanonicalNodePoolID returns the node pool ID as
// projects/P/locations/L/clusters/C/nodePools/N, whatever form (a URL) it
// was given in.
func CanonicalNodePoolID(id string) (string, error) {
	project, location, cluster, name, err := ParseNodePoolID(id)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s/nodePools/%s", project, location, cluster, name), nil
}

// ParseNodePoolID splits projects/P/locations/L/clusters/C/nodePools/N.
func ParseNodePoolID(id string) (project, location, cluster, name string, err error) {
	m := nodePoolIDRE.FindStringSubmatch(strings.TrimPrefix(id, "https://container.googleapis.com/v1/"))
	if m == nil {
		return "", "", "", "", fmt.Errorf("%q is not a GKE node pool ID: use projects/P/locations/L/clusters/C/nodePools/N", id)
	}
	return m[1], m[2], m[3], m[4], nil
}

var reservationPathRE = regexp.MustCompile(`^projects/([^/]+)/reservations/([^/]+)/reservationBlocks/([^/]+)(?:/reservationSubBlocks/([^/]+))?$`)

// CreateNodePool checks the target, creates the pool, reports its ID
// through created as soon as GKE accepted it (so that Terraform records it
// before any wait), waits for the operation and then for the pool's nodes
// and partition labels. A pool of the spec's name that exists already
// (its target is in use, or the create answers 409) is adopted when it
// matches the spec (poolDifferences), as a killed apply or a create whose
// answer was lost leaves it: the result's Adopted says so. Otherwise the
// create fails with an ExistsError.
func (e *Engine) CreateNodePool(ctx context.Context, s NodePoolSpec, created func(id string)) (*NodePool, error) {
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
	policy := s.Policy[strings.LastIndex(s.Policy, "/")+1:]
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
		},
	}
	for _, t := range s.Taints {
		pool.Config.Taints = append(pool.Config.Taints, &container.NodeTaint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	tflog.Info(ctx, "Creating sub-block node pool", map[string]any{
		"node_pool": s.ID(), "reservation": s.Target.Path(), "policy": policy, "nodes": s.NodeCount,
		"free_sub_blocks": strings.Join(block.FreeSubBlocks(), ","),
	})
	if e.nodePools != nil {
		e.nodePools.invalidate(s.ID())
	}
	op, err := e.gke.CreateNodePool(ctx, s.ClusterName(), pool)
	if err != nil {
		if httpStatus(err) != http.StatusConflict {
			return nil, fmt.Errorf("creating node pool %s: %s", s.ID(), apiMessage(err))
		}
		existing, xerr := e.existingPool(ctx, s)
		if xerr != nil {
			return nil, xerr
		}
		if existing == nil {
			return nil, fmt.Errorf("creating node pool %s: %s", s.ID(), apiMessage(err))
		}
		how := "found by a create that GKE answered with 409 (already exists)"
		if conflictAfterRetry(err) {
			// The first attempt was applied and its answer lost.
			how = "created by this apply's first attempt, whose answer was lost, and found by its retry"
		}
		return e.adoptPool(ctx, s, existing, how, created)
	}
	created(s.ID())
	return e.awaitPool(ctx, s, func(early *earlyPoll) error { return e.waitOperation(ctx, s.Project, s.Location, op, early) })
}

// adoptPool takes an existing pool that matches the spec as the create's
// own: it is reported through created and waited for (its create
// operation is not known here: until GKE has provisioned it), as
// CreateNodePool waits for a pool it created.
func (e *Engine) adoptPool(ctx context.Context, s NodePoolSpec, p *container.NodePool, how string, created func(id string)) (*NodePool, error) {
	reason := fmt.Sprintf(adoptedPoolReason, s.ID(), how+" (status "+p.Status+")")
	tflog.Warn(ctx, "Adopted node pool", map[string]any{"node_pool": s.ID(), "reason": reason})
	created(s.ID())
	out, err := e.awaitPool(ctx, s, func(early *earlyPoll) error { return e.waitPoolProvisioned(ctx, s.ID(), early) })
	if out != nil {
		out.Adopted = reason
	}
	return out, err
}

// ResumeNodePool waits for a pool whose create was interrupted (it is in
// the state, not finished): until GKE has provisioned it, then for its
// nodes and partition labels, as CreateNodePool does.
func (e *Engine) ResumeNodePool(ctx context.Context, s NodePoolSpec) (*NodePool, error) {
	tflog.Info(ctx, "Resuming the wait for an interrupted node pool create", map[string]any{"node_pool": s.ID()})
	return e.awaitPool(ctx, s, func(early *earlyPoll) error { return e.waitPoolProvisioned(ctx, s.ID(), early) })
}

// awaitPool waits with wait for the pool's create to end (cut short when
// its nodes are registered), then for its partition, and reads it.
func (e *Engine) awaitPool(ctx context.Context, s NodePoolSpec, wait func(*earlyPoll) error) (*NodePool, error) {
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
	nodes, stop, changed, listed := watchNodes(kube, LabelNodePool+"="+s.Name)
	defer close(stop)
	registered := &earlyPoll{changed: changed, ready: func() bool {
		v := viewNodes(nodes.List())
		return s.NodeCount > 0 && int64(v.nodes) >= s.NodeCount && v.ready == v.nodes
	}}
	if err := wait(registered); err != nil {
		return nil, fmt.Errorf("creating node pool %s: %w", s.ID(), err)
	}
	if err := waitPartition(ctx, s.Name, s.WaitFor, nodes, changed, listed); err != nil {
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
	return s.sameNodeSettings(o) && s.sameManagement(o)
}

// UpdateNodePool changes in place what GKE changes in place, from the
// pool as it was (from) to the pool as declared (to): the nodes'
// Kubernetes labels and taints (nodePools.update) and auto-repair and
// auto-upgrade (nodePools.setManagement). The pool, its nodes and its
// partition stay; every other change replaces the pool.
func (e *Engine) UpdateNodePool(ctx context.Context, from, to NodePoolSpec) (*NodePool, error) {
	id := to.ID()
	if e.nodePools != nil {
		e.nodePools.invalidate(id)
	}
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
			return nil, fmt.Errorf("updating node pool %s: %s", id, apiMessage(err))
		}
		if err := e.waitOperation(ctx, to.Project, to.Location, op, nil); err != nil {
			return nil, fmt.Errorf("updating node pool %s: %w", id, err)
		}
	}
	if !from.sameManagement(to) {
		tflog.Info(ctx, "Setting the management of sub-block node pool", map[string]any{"node_pool": id, "auto_repair": to.AutoRepair, "auto_upgrade": to.AutoUpgrade})
		op, err := e.gke.SetNodePoolManagement(ctx, id, &container.SetNodePoolManagementRequest{
			Name:       id,
			Management: &container.NodeManagement{AutoRepair: to.AutoRepair, AutoUpgrade: to.AutoUpgrade, ForceSendFields: []string{"AutoRepair", "AutoUpgrade"}},
		})
		if err != nil {
			return nil, fmt.Errorf("setting the management of node pool %s: %s", id, apiMessage(err))
		}
		if err := e.waitOperation(ctx, to.Project, to.Location, op, nil); err != nil {
			return nil, fmt.Errorf("setting the management of node pool %s: %w", id, err)
		}
	}
	return e.readNodePool(ctx, id, true)
}

// earlyPoll cuts a wait between operation polls short, once: when changed
// signals and ready holds, the operation is polled at once and the backoff
// starts again from the initial interval.
type earlyPoll struct {
	changed <-chan struct{}
	ready   func() bool
}

// waitOperation polls a GKE operation until it is DONE, with backoff, and
// returns the operation's own error. early, when not nil, may cut one wait
// short (see earlyPoll).
func (e *Engine) waitOperation(ctx context.Context, project, location string, op *container.Operation, early *earlyPoll) error {
	name := fmt.Sprintf("projects/%s/locations/%s/operations/%s", project, location, op.Name)
	return e.pollUntil(ctx, early, func() string {
		return fmt.Sprintf("operation %s (%s), which was %s", op.Name, op.OperationType, op.Status)
	}, func(first bool) (bool, error) {
		if !first {
			next, err := e.gke.GetOperation(ctx, name)
			if err != nil {
				return false, fmt.Errorf("reading operation %s: %s", op.Name, apiMessage(err))
			}
			if next.Status != op.Status {
				tflog.Debug(ctx, "GKE operation progress", map[string]any{"operation": op.Name, "type": next.OperationType, "status": next.Status})
			}
			op = next
		}
		if op.Status != "DONE" {
			return false, nil
		}
		if op.Error != nil && (op.Error.Code != 0 || op.Error.Message != "") {
			return true, fmt.Errorf("operation %s failed: %s", op.Name, op.Error.Message)
		}
		return true, nil
	})
}

// waitPoolProvisioned polls a node pool whose create operation is not
// known (the pool was adopted) until it leaves PROVISIONING.
func (e *Engine) waitPoolProvisioned(ctx context.Context, id string, early *earlyPoll) error {
	status := "PROVISIONING"
	return e.pollUntil(ctx, early, func() string {
		return fmt.Sprintf("node pool %s, which was %s", id, status)
	}, func(bool) (bool, error) {
		p, err := e.gke.GetNodePool(ctx, id)
		if err != nil {
			return false, fmt.Errorf("reading node pool %s: %s", id, apiMessage(err))
		}
		status = p.Status
		switch status {
		case "RUNNING":
			return true, nil
		case "PROVISIONING", "RECONCILING", "STATUS_UNSPECIFIED", "":
			return false, nil
		}
		return true, fmt.Errorf("node pool %s is %s: %s", id, status, p.StatusMessage)
	})
}

// pollUntil calls check (first with true, at once) and then with backoff
// until it says done, or ctx ends. early, when not nil, may cut one wait
// short (see earlyPoll). what describes the wait for the error when ctx
// ends.
func (e *Engine) pollUntil(ctx context.Context, early *earlyPoll, what func() string, check func(first bool) (bool, error)) error {
	initial, ceiling := e.pollBounds()
	interval := initial
	started := time.Now()
	var cue <-chan struct{}
	if early != nil {
		cue = early.changed
	}
	for first := true; ; first = false {
		done, err := check(first)
		if done || err != nil {
			return err
		}
		timer := time.NewTimer(interval)
		interval = min(interval*2, ceiling)
	wait:
		for {
			select {
			case <-ctx.Done():
				timer.Stop()
				return fmt.Errorf("gave up after %s waiting for %s: %w", time.Since(started).Round(time.Second), what(), ctx.Err())
			case <-timer.C:
				break wait
			case <-cue:
				if early.ready() {
					tflog.Debug(ctx, "Nodes registered: polling GKE now", map[string]any{"wait": what()})
					timer.Stop()
					cue, interval = nil, initial
					break wait
				}
			}
		}
	}
}

// partitionView summarizes a pool's nodes.
type partitionView struct {
	nodes, ready, labelled int
	id, state              string
	names                  []string
}

func viewNodes(objs []any) partitionView {
	var v partitionView
	for _, o := range objs {
		n, ok := o.(*corev1.Node)
		if !ok {
			continue
		}
		v.nodes++
		v.names = append(v.names, n.Name)
		if NodeReady(n) {
			v.ready++
		}
		if PartitionID(n) != "" && PartitionState(n) != "" {
			v.labelled++
			v.id = PartitionID(n)
			if s := PartitionState(n); v.state == "" || worse(s, v.state) {
				v.state = s // the worst state any node reports
			}
		}
	}
	sort.Strings(v.names)
	return v
}

func (v partitionView) done(waitFor string) bool {
	if v.nodes == 0 || v.labelled != v.nodes || v.ready == 0 {
		return false
	}
	switch waitFor {
	case WaitHealthy:
		return v.state == PartitionHealthy
	case WaitUsable:
		return v.state == PartitionHealthy || v.state == PartitionDegraded
	}
	return true
}

// waitPartition follows the pool's nodes in store (kept by watchNodes: a
// list, then a watch, no polling) until they satisfy waitFor, or ctx ends
// with an error that says where the pool got to. A first list that the
// API server did not answer (listed) ends it at once, with that cause.
func waitPartition(ctx context.Context, pool, waitFor string, store cache.Store, changed <-chan struct{}, listed *informerSync) error {
	started := time.Now()
	last := ""
	for {
		if _, err := listed.lastError(); err != nil && !listed.synced() {
			return &ClusterAccessError{What: "nodes", Host: listed.host, Err: err, Advice: "Nothing that reads the cluster can run until it answers"}
		}
		v := viewNodes(store.List())
		if v.done(waitFor) {
			tflog.Info(ctx, "Node pool partition ready", map[string]any{"node_pool": pool, "partition": v.id, "state": v.state, "nodes": v.nodes, "ready": v.ready})
			return nil
		}
		if now := fmt.Sprintf("%d nodes, %d Ready, partition state %q", v.nodes, v.ready, v.state); now != last {
			tflog.Info(ctx, "Waiting for node pool partition", map[string]any{"node_pool": pool, "progress": now, "wait_for": waitFor})
			last = now
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("after %s its nodes were not ready (%s; waiting for %s): %w", time.Since(started).Round(time.Second), last, waitFor, ctx.Err())
		case <-changed:
		}
	}
}

// watchNodes runs an informer over the nodes matching selector and signals
// every change, and a list or watch that had no answer (recorded in the
// returned informerSync, with the informer's first list).
func watchNodes(kube Cluster, selector string) (cache.Store, chan struct{}, <-chan struct{}, *informerSync) {
	changed := make(chan struct{}, 1)
	signal := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	listed := &informerSync{what: "nodes", resource: "nodes", host: hostOf(kube)}
	noAnswer := func(ctx context.Context, err error) error {
		if errors.Is(err, ErrNoAnswer) {
			listed.record(ctx, nil, err)
			signal()
		}
		return err
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector = selector
			list, err := kube.Nodes().List(ctx, o)
			return list, noAnswer(ctx, err)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = selector
			w, err := kube.Nodes().Watch(ctx, o)
			return w, noAnswer(ctx, err)
		},
	}
	store, controller := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: cache.ToListWatcherWithWatchListSemantics(lw, kube),
		ObjectType:    &corev1.Node{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { signal() },
			UpdateFunc: func(any, any) { signal() },
			DeleteFunc: func(any) { signal() },
		},
	})
	listed.synced = controller.HasSynced
	stop := make(chan struct{})
	go controller.Run(stop)
	return store, stop, changed, listed
}

// ReadNodePool reads the pool from GKE and its partition from the nodes
// (from the process-wide inventory, so that a plan of many pools lists
// the nodes once); ErrNotFound when the pool is gone.
func (e *Engine) ReadNodePool(ctx context.Context, id string) (*NodePool, error) {
	return e.readNodePool(ctx, id, false)
}

// poolNodes lists a pool's nodes: from the inventory, or straight from the
// API server when fresh (right after create) or without an inventory.
func (e *Engine) poolNodes(ctx context.Context, pool string, fresh bool) ([]*corev1.Node, error) {
	if !fresh && e.inventory != nil {
		inv, err := e.inventory(ctx)
		if err != nil {
			return nil, err
		}
		return inv.Nodes(ctx, map[string]string{LabelNodePool: pool})
	}
	kube, err := e.cluster(ctx)
	if err != nil {
		return nil, err
	}
	list, err := kube.Nodes().List(ctx, metav1.ListOptions{LabelSelector: LabelNodePool + "=" + pool})
	if err != nil {
		return nil, err
	}
	out := make([]*corev1.Node, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

func (e *Engine) readNodePool(ctx context.Context, id string, fresh bool) (*NodePool, error) {
	id, err := CanonicalNodePoolID(id)
	if err != nil {
		return nil, err
	}
	project, location, cluster, name, _ := ParseNodePoolID(id)
	var p *container.NodePool
	listed := false
	if !fresh && e.nodePools != nil {
		p, listed = e.nodePools.get(ctx, e.gke, id)
	}
	if !listed {
		p, err = e.gke.GetNodePool(ctx, id)
	}
	if IsNotFound(err) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading node pool %s: %s", id, apiMessage(err))
	}
	out := &NodePool{
		ID: id, Project: project, Location: location, Cluster: cluster, Name: name,
		Status: p.Status, NodeCount: p.InitialNodeCount,
	}
	if len(p.Locations) > 0 {
		out.Zone = p.Locations[0]
	}
	if p.PlacementPolicy != nil {
		out.Policy = p.PlacementPolicy.PolicyName
	}
	if m := p.Management; m != nil {
		out.AutoRepair, out.AutoUpgrade = m.AutoRepair, m.AutoUpgrade
	}
	if c := p.Config; c != nil {
		out.MachineType, out.Labels = c.MachineType, c.Labels
		for _, t := range c.Taints {
			out.Taints = append(out.Taints, Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
		if ra := c.ReservationAffinity; ra != nil && len(ra.Values) > 0 {
			out.ReservationPath = ra.Values[0]
			if m := reservationPathRE.FindStringSubmatch(ra.Values[0]); m != nil {
				out.Reservation, out.Block, out.SubBlock = m[2], m[3], m[4]
			}
		}
	}

	nodes, err := e.poolNodes(ctx, name, fresh)
	if err != nil {
		return nil, fmt.Errorf("listing the nodes of node pool %s: %w", id, err)
	}
	objs := make([]any, len(nodes))
	physical := ""
	for i, n := range nodes {
		objs[i] = n
		if physical == "" {
			physical = n.Labels[LabelTopologySubBlock]
		}
	}
	v := viewNodes(objs)
	out.PartitionID, out.PartitionState, out.NodeNames, out.ReadyNodes = v.id, v.state, v.names, int64(v.ready)
	if out.NodeNames == nil {
		out.NodeNames = []string{}
	}

	// A pool targeted at a block: find its sub-block from the nodes'
	// physical topology.
	if out.SubBlock == "" && out.Block != "" && physical != "" && out.Zone != "" {
		if block, err := e.ReservationBlock(ctx, project, out.Zone, out.Reservation, out.Block); err == nil {
			for _, s := range block.SubBlocks {
				if s.PhysicalSubBlock == physical {
					out.SubBlock = s.Name
				}
			}
		}
	}
	return out, nil
}

// DeleteNodePool deletes the pool and waits; a pool already gone is not an
// error.
func (e *Engine) DeleteNodePool(ctx context.Context, id string) error {
	id, err := CanonicalNodePoolID(id)
	if err != nil {
		return err
	}
	project, location, _, _, _ := ParseNodePoolID(id)
	tflog.Info(ctx, "Deleting sub-block node pool", map[string]any{"node_pool": id})
	if e.nodePools != nil {
		e.nodePools.invalidate(id)
	}
	op, err := e.gke.DeleteNodePool(ctx, id)
	if IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting node pool %s: %s", id, apiMessage(err))
	}
	if err := e.waitOperation(ctx, project, location, op, nil); err != nil {
		return fmt.Errorf("deleting node pool %s: %w", id, err)
	}
	return nil
}
