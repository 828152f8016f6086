package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// nodeName is the Kubernetes name of a pool's node on host i, in GKE's
// style: gke-<cluster>-<pool>-<hash>-<suffix>.
func (w *world) nodeName(pool string, host int) string {
	return fmt.Sprintf("%s-h%02d", w.migBase(pool), host)
}

// hostSnapshot is what reconciling a pool needs, copied under the lock.
type hostSnapshot struct {
	pool      string
	nodeCount int
	subBlock  subBlockState // a copy
	labels    map[string]string
	version   string // the cluster's GKE version, which the kubelets report
}

func (w *world) snapshot(pool *nodePool) hostSnapshot {
	w.mu.Lock()
	defer w.mu.Unlock()
	return hostSnapshot{pool: pool.Name, nodeCount: pool.NodeCount, subBlock: *pool.SubBlock, labels: pool.Labels, version: w.clusterVersion}
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
		if topology.SubPartitionIndex(h, shape) != idx {
			continue
		}
		if !present[h] {
			return wellknown.PartitionIncomplete
		}
		switch hosts[h] {
		case HostUnhealthy:
			state = wellknown.PartitionUnhealthy
		case HostDegraded:
			if shape == topology.PartitionTopology && state == wellknown.PartitionHealthy {
				state = wellknown.PartitionDegraded
			}
		}
	}
	return state
}

// partitionLabels are the partition ID and state labels of every shape
// for the node on host h.
func partitionLabels(sb *subBlockState, h, nodeCount int, present map[int]bool) map[string]string {
	out := make(map[string]string, 2*len(topology.PartitionShapes))
	for _, shape := range topology.PartitionShapes {
		idx := topology.SubPartitionIndex(h, shape)
		out[topology.PartitionIDLabel(shape)] = sb.SubPartitionID(shape, idx)
		out[topology.PartitionStateLabel(shape)] = shapeState(shape, idx, nodeCount, present, sb.Hosts)
	}
	return out
}

// reconcileNodes makes the pool's Nodes match its sub-block: a node for
// every requested host that is not UNHEALTHY (incremental provisioning:
// the others come when their host is repaired), Ready unless its host is
// UNHEALTHY, and the partition labels on all of them. It is idempotent.
func (w *world) reconcileNodes(ctx context.Context, pool *nodePool) error {
	pool.reconcileMu.Lock()
	defer pool.reconcileMu.Unlock()
	snap := w.snapshot(pool)

	existing, err := w.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + snap.pool})
	if err != nil {
		return err
	}
	byHost := map[int]*corev1.Node{}
	for i := range existing.Items {
		n := &existing.Items[i]
		if h, err := strconv.Atoi(n.Annotations[annotationHostIndex]); err == nil {
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
	for h := range present {
		node := byHost[h]
		labels := partitionLabels(&snap.subBlock, h, snap.nodeCount, present)
		if node == nil {
			node, err = w.kube.CoreV1().Nodes().Create(ctx, w.newNode(snap, h, labels), metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating node for host %d of pool %s: %w", h, snap.pool, err)
			}
			if err != nil {
				continue
			}
		} else if changed := changedLabels(node.Labels, labels); changed != nil {
			// A patch, not an update: the slice controller labels the same
			// nodes concurrently.
			patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": changed}})
			if err != nil {
				return err
			}
			if node, err = w.kube.CoreV1().Nodes().Patch(ctx, node.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
				return fmt.Errorf("labelling node %s: %w", byHost[h].Name, err)
			}
		}
		ready := snap.subBlock.Hosts[h] != HostUnhealthy
		if nodeReady(node) != ready {
			name := node.Name
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				fresh, err := w.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				setNodeStatus(fresh, ready, snap.version)
				_, err = w.kube.CoreV1().Nodes().UpdateStatus(ctx, fresh, metav1.UpdateOptions{})
				return err
			})
			if err != nil {
				return fmt.Errorf("updating status of node %s: %w", name, err)
			}
			if err := w.syncNodeTaints(ctx, name, ready); err != nil {
				return fmt.Errorf("updating taints of node %s: %w", name, err)
			}
		}
	}
	return nil
}

// annotationHostIndex records which host of the sub-block a node is on.
const annotationHostIndex = "sandbox.gke.dynslice.dev/host-index"

// changedLabels is the labels of want that have another value in have, or
// nil when none has.
func changedLabels(have, want map[string]string) map[string]string {
	var out map[string]string
	for k, v := range want {
		if have[k] != v {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

func (w *world) newNode(snap hostSnapshot, host int, partitions map[string]string) *corev1.Node {
	name := w.nodeName(snap.pool, host)
	sb := &snap.subBlock
	labels := map[string]string{
		wellknown.LabelNodePool:           snap.pool,
		wellknown.LabelAccelerator:        "tpu7x",
		wellknown.LabelTopologyMode:       "PROVISION_ONLY",
		wellknown.LabelTopologyBlock:      blockTopologyID(sb),
		wellknown.LabelTopologySubBlock:   subBlockTopologyID(sb),
		wellknown.LabelTopologyHost:       opaqueID("host", sb.Reservation, sb.Block, sb.Name, strconv.Itoa(host))[:16],
		wellknown.LabelInstanceType:       MachineType,
		wellknown.LabelZone:               w.inv.Zone,
		wellknown.LabelHostname:           name,
		"cloud.google.com/machine-family": "tpu7x",
	}
	for k, v := range partitions {
		labels[k] = v
	}
	for k, v := range snap.labels {
		labels[k] = v
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: labels,
			Annotations: map[string]string{
				wellknown.AnnotationCreatedByMIG: fmt.Sprintf("projects/%s/zones/%s/instanceGroupManagers/%s",
					w.inv.ProjectNumber, w.inv.Zone, w.migName(snap.pool)),
				annotationHostIndex: strconv.Itoa(host),
			},
		},
		Spec: corev1.NodeSpec{
			ProviderID: fmt.Sprintf("gce://%s/%s/%s", w.inv.Project, w.inv.Zone, name),
		},
	}
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func setNodeStatus(n *corev1.Node, ready bool, clusterVersion string) {
	status, reason := corev1.ConditionTrue, "KubeletReady"
	if !ready {
		status, reason = corev1.ConditionFalse, "HostUnhealthy"
	}
	now := metav1.Now()
	n.Status.Conditions = []corev1.NodeCondition{{
		Type: corev1.NodeReady, Status: status, Reason: reason,
		LastHeartbeatTime: now, LastTransitionTime: now,
	}}
	tpu := resource.MustParse("4")
	n.Status.Capacity = corev1.ResourceList{"google.com/tpu": tpu, corev1.ResourcePods: resource.MustParse("110")}
	n.Status.Allocatable = n.Status.Capacity
	setNodeSystemStatus(n, clusterVersion)
}

// deleteNodes removes every Node of a pool.
func (w *world) deleteNodes(ctx context.Context, pool string) error {
	return w.kube.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + pool})
}

var (
	metaGet    = metav1.GetOptions{}
	metaDelete = metav1.DeleteOptions{}
)
