package cloud

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dra"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// NodeName is the Kubernetes name of a pool's node on host i, in GKE's
// style: gke-<cluster>-<pool>-<hash>-<suffix>.
func (w *World) NodeName(pool string, host int) string {
	return fmt.Sprintf("%s-h%02d", w.MigBase(pool), host)
}

// hostSnapshot is what reconciling a pool needs, copied under the lock.
type hostSnapshot struct {
	pool      string
	nodeCount int
	subBlock  SubBlockState // a copy
	labels    map[string]string
	version   string // the cluster's GKE version, which the kubelets report
}

func (w *World) snapshot(pool *NodePool) hostSnapshot {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	return hostSnapshot{pool: pool.Name, nodeCount: pool.NodeCount, subBlock: *pool.SubBlock, labels: pool.Labels, version: w.ClusterVersion}
}

// shapeState is the state of partition idx of the shape, from its hosts:
// UNSET when the pool asked for fewer than 16 nodes, INCOMPLETE while one
// of its hosts has no node, UNHEALTHY when one of them is, DEGRADED (4x4x4
// only: degradation is of the sub-block's links, which sub-slices do not
// use) when one is degraded, else HEALTHY.
func shapeState(shape string, idx, nodeCount int, present map[int]bool, hosts [HostsPerSubBlock]string) string {
	if nodeCount < HostsPerSubBlock {
		return wellknown.PartitionUnset
	}
	state := wellknown.PartitionHealthy
	for h := range HostsPerSubBlock {
		if slicerules.SubPartitionIndex(h, shape) != idx {
			continue
		}
		if !present[h] {
			return wellknown.PartitionIncomplete
		}
		switch hosts[h] {
		case HostUnhealthy:
			state = wellknown.PartitionUnhealthy
		case HostDegraded:
			if shape == slicerules.SubBlockShape && state == wellknown.PartitionHealthy {
				state = wellknown.PartitionDegraded
			}
		}
	}
	return state
}

// partitionLabels are the partition ID and state labels of every shape
// for the node on host h.
func partitionLabels(sb *SubBlockState, h, nodeCount int, present map[int]bool) map[string]string {
	out := make(map[string]string, 2*len(slicerules.PartitionShapes))
	for _, shape := range slicerules.PartitionShapes {
		idx := slicerules.SubPartitionIndex(h, shape)
		out[slicerules.PartitionIDLabel(shape)] = sb.SubPartitionID(shape, idx)
		out[slicerules.PartitionStateLabel(shape)] = shapeState(shape, idx, nodeCount, present, sb.Hosts)
	}
	return out
}

// ReconcileNodes makes the pool's Nodes match its sub-block: a node for
// every requested host that is not UNHEALTHY (incremental provisioning:
// the others come when their host is repaired), the partition labels on all
// of them, and kwok's not-ready label on those of UNHEALTHY hosts. kwok,
// their kubelet, writes their Ready condition; ReconcileNodes returns once
// every node reports what its host's health says (Ready unless UNHEALTHY),
// so that an operation or a health change is done when its nodes show it.
// It is idempotent.
func (w *World) ReconcileNodes(ctx context.Context, pool *NodePool) error {
	if pool.Queued {
		return nil // its nodes are the emulated DWS's (package dws)
	}
	pool.ReconcileMu.Lock()
	defer pool.ReconcileMu.Unlock()
	snap := w.snapshot(pool)

	existing, err := w.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + snap.pool})
	if err != nil {
		return err
	}
	byHost := map[int]*corev1.Node{}
	for i := range existing.Items {
		n := &existing.Items[i]
		if h, err := strconv.Atoi(n.Annotations[AnnotationHostIndex]); err == nil {
			byHost[h] = n
		}
	}
	present := map[int]bool{}
	for h := range byHost {
		present[h] = true
	}
	for h := 0; h < snap.nodeCount && h < HostsPerSubBlock; h++ {
		if !present[h] && snap.subBlock.Hosts[h] != HostUnhealthy {
			present[h] = true
		}
	}
	wantReady := map[string]bool{}
	for h := range present {
		node := byHost[h]
		unhealthy := snap.subBlock.Hosts[h] == HostUnhealthy
		labels := partitionLabels(&snap.subBlock, h, snap.nodeCount, present)
		if node == nil {
			node, err = w.Kube.CoreV1().Nodes().Create(ctx, w.newNode(snap, h, labels), metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating node for host %d of pool %s: %w", h, snap.pool, err)
			}
			if err != nil {
				continue
			}
			if err := w.publishDeviceSlice(ctx, node, &snap.subBlock, h); err != nil {
				return err
			}
		}
		wantReady[node.Name] = !unhealthy
		notReady := ""
		if unhealthy {
			notReady = "true"
		}
		labels[LabelKwokNotReady] = notReady
		if changed := changedLabels(node.Labels, labels); changed != nil {
			// A patch, not an update: the slice controller labels the same
			// nodes concurrently. An empty value removes the label.
			patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": changed}})
			if err != nil {
				return err
			}
			if _, err = w.Kube.CoreV1().Nodes().Patch(ctx, node.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				return fmt.Errorf("labelling node %s: %w", node.Name, err)
			}
		}
	}
	return w.waitNodesReady(ctx, snap.pool, wantReady)
}

// NodeReadyTimeout bounds how long ReconcileNodes waits for kwok to report
// the nodes' readiness, unless World.NodeReadyTimeout says otherwise: long
// enough for a full pod's pools created ten at a time on two cores, where
// kwok and the controller manager lag.
const NodeReadyTimeout = 2 * time.Minute

// nodeReadyTimeout is World.NodeReadyTimeout, else NodeReadyTimeout.
func (w *World) nodeReadyTimeout() time.Duration {
	if w.NodeReadyTimeout > 0 {
		return w.NodeReadyTimeout
	}
	return NodeReadyTimeout
}

// waitNodesReady waits until each named node of the pool reports Ready as
// want says (kwok writes it), and says which do not when it gives up. A
// node that should be Ready is waited for until the node lifecycle
// controller has also taken off the not-ready taint that every new node
// gets, when that controller runs: a pool is ready when pods can land on
// its nodes. The nodes are read by name, 4 times a second, in name order,
// and a round stops at the first node not yet as wanted (the pool is not
// ready while one is not): a list by label would make the API server (its
// watch cache off) read every node of the cluster from etcd, and reading
// all 16 nodes of each of ten pools being made, 4 times a second, is 640
// reads a second on a cluster of thousands of nodes. When it gives up, it
// reads every node still pending to name them.
func (w *World) waitNodesReady(ctx context.Context, pool string, want map[string]bool) error {
	if len(want) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, w.nodeReadyTimeout())
	defer cancel()
	pending := make([]string, 0, len(want))
	for name := range want {
		pending = append(pending, name)
	}
	sort.Strings(pending)
	for {
		var err error
		pending, _, err = w.nodesAsWanted(ctx, pending, want, true)
		if len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			// One more read of every pending node, to name them all.
			named, cancelNamed := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
			_, wrong, lastErr := w.nodesAsWanted(named, pending, want, false)
			cancelNamed()
			if lastErr == nil {
				lastErr = err
			}
			detail := fmt.Errorf("nodes not as their hosts' health says: %s", strings.Join(wrong, ", "))
			if lastErr != nil {
				detail = fmt.Errorf("%w; last error: %w", detail, lastErr)
			}
			return fmt.Errorf("waiting for kwok, the nodes' kubelet, to report the readiness of pool %s's nodes (and kube-controller-manager to untaint the Ready ones) for %s: %w (see %s)", pool, w.nodeReadyTimeout(), detail, w.PartLogs)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// nodesAsWanted reads the pending nodes by name, in order, and returns
// those still not as want says, with what is wrong with each it read and
// the last read error. With firstOnly it stops reading at the first node
// not as wanted (the rest stay pending, unread). A node not found is no
// longer waited for (deleted meanwhile: its pool deleted, its VM gone).
func (w *World) nodesAsWanted(ctx context.Context, pending []string, want map[string]bool, firstOnly bool) (left, wrong []string, err error) {
	for i, name := range pending {
		ready := want[name]
		n, gerr := w.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		var why string
		switch {
		case apierrors.IsNotFound(gerr):
			continue
		case gerr != nil:
			err = gerr
			why = name + " (not read)"
		case NodeReady(n) != ready:
			why = fmt.Sprintf("%s (Ready %v, want %v)", n.Name, NodeReady(n), ready)
		case ready && w.NodeLifecycle && HasTaint(n, corev1.TaintNodeNotReady):
			why = n.Name + " (Ready, still tainted " + corev1.TaintNodeNotReady + ")"
		default:
			continue
		}
		left, wrong = append(left, name), append(wrong, why)
		if firstOnly {
			return append(left, pending[i+1:]...), wrong, err
		}
	}
	return left, wrong, err
}

// AnnotationHostIndex records which host of the sub-block a node is on.
const AnnotationHostIndex = "sandbox.gke.dynslice.dev/host-index"

// changedLabels is the merge patch of the labels of want that have another
// value in have (an empty value in want: the label is removed), or nil when
// none has.
func changedLabels(have, want map[string]string) map[string]any {
	var out map[string]any
	for k, v := range want {
		old, ok := have[k]
		if (v == "" && ok) || (v != "" && old != v) {
			if out == nil {
				out = map[string]any{}
			}
			if v == "" {
				out[k] = nil
			} else {
				out[k] = v
			}
		}
	}
	return out
}

func (w *World) newNode(snap hostSnapshot, host int, partitions map[string]string) *corev1.Node {
	name := w.NodeName(snap.pool, host)
	sb := &snap.subBlock
	labels := map[string]string{
		wellknown.LabelNodePool:         snap.pool,
		wellknown.LabelAccelerator:      "tpu7x",
		wellknown.LabelTopologyMode:     "PROVISION_ONLY",
		wellknown.LabelTopologyBlock:    BlockTopologyID(sb),
		wellknown.LabelTopologySubBlock: SubBlockTopologyID(sb),
		wellknown.LabelTopologyHost:     HostTopologyID(sb, host),
		wellknown.LabelInstanceType:     MachineType,
		wellknown.LabelZone:             w.Inv.Zone,
		wellknown.LabelHostname:         name,
		"google.com/machine-family":     "tpu7x",
	}
	for k, v := range partitions {
		labels[k] = v
	}
	for k, v := range snap.labels {
		labels[k] = v
	}
	// A node registering on a sub-block with maintenance announced or in
	// progress carries its labels from the start, as GKE's do.
	for k, v := range MaintenanceLabels(sb.Maint) {
		labels[k] = v
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: labels,
			Annotations: map[string]string{
				wellknown.AnnotationCreatedByMIG: fmt.Sprintf("projects/%s/zones/%s/instanceGroupManagers/%s",
					w.Inv.ProjectNumber, w.Inv.Zone, w.MigName(snap.pool)),
				AnnotationHostIndex: strconv.Itoa(host),
			},
		},
		Spec: corev1.NodeSpec{
			ProviderID: fmt.Sprintf("gce://%s/%s/%s", w.Inv.Project, w.Inv.Zone, name),
			// What a GKE TPU node's kubelet registers with
			// (--register-with-taints).
			Taints: []corev1.Taint{{Key: TaintTPU, Value: "present", Effect: corev1.TaintEffectNoSchedule}},
		},
		Status: nodeRegistration(name, snap.version, labels[dra.LabelDriver] == "true"),
	}
	// kwok's node-not-ready stage says why, while the node has its label.
	n.Annotations[AnnotationNotReadyWhy] = "HostUnhealthy"
	n.Annotations[AnnotationNotReadyText] = "the TPU host is UNHEALTHY"
	return n
}

func HasTaint(n *corev1.Node, key string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// DeleteNodes removes every Node of a pool.
func (w *World) DeleteNodes(ctx context.Context, pool string) error {
	return w.Kube.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + pool})
}

// MachineType is the only machine type dynamic slicing accepts.
const MachineType = "tpu7x-standard-4t"

// The label and annotations of kwok's node-not-ready stage, which the
// nodes of UNHEALTHY hosts carry (kwok, their kubelet, then reports them
// NotReady).
const (
	LabelKwokNotReady      = "node-not-ready.stage.kwok.x-k8s.io"
	AnnotationNotReadyWhy  = "node-not-ready.stage.kwok.x-k8s.io/reason"
	AnnotationNotReadyText = "node-not-ready.stage.kwok.x-k8s.io/message"
)

// MigBase is the pool's instance name prefix: the base instance name of
// its group, and the name of its instance template.
func (w *World) MigBase(pool string) string {
	return fmt.Sprintf("gke-%s-%s-%s", w.Inv.Cluster, pool, OpaqueID("pool", pool)[:8])
}

// MigName is the name of the pool's instance group manager (and of its
// instance group).
func (w *World) MigName(pool string) string {
	return w.MigBase(pool) + "-grp"
}
