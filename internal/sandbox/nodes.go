package sandbox

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
)

// nodeName is the Kubernetes name of a pool's node on host i, in GKE's
// style: gke-<cluster>-<pool>-<hash>-<suffix>.
func (w *world) nodeName(pool string, host int) string {
	return fmt.Sprintf("gke-%s-%s-%s-h%02d", w.inv.Cluster, pool, opaqueID("pool", pool)[:8], host)
}

// hostSnapshot is what reconciling a pool needs, copied under the lock.
type hostSnapshot struct {
	pool      string
	nodeCount int
	subBlock  subBlockState // a copy
	labels    map[string]string
}

func (w *world) snapshot(pool *nodePool) hostSnapshot {
	w.mu.Lock()
	defer w.mu.Unlock()
	return hostSnapshot{pool: pool.Name, nodeCount: pool.NodeCount, subBlock: *pool.SubBlock, labels: pool.Labels}
}

// partitionState is the state GKE publishes for a pool's partition, from
// the nodes that exist: UNSET with fewer than 16 nodes requested,
// INCOMPLETE while some are missing, then the worst host health.
func partitionState(nodeCount int, present map[int]bool, hosts [HostsPerSubBlock]string) string {
	if nodeCount < HostsPerSubBlock {
		return PartitionUnset
	}
	if len(present) < HostsPerSubBlock {
		return PartitionIncomplete
	}
	state := PartitionHealthy
	for i := range present {
		switch hosts[i] {
		case HostUnhealthy:
			return PartitionUnhealthy
		case HostDegraded:
			state = PartitionDegraded
		}
	}
	return state
}

// reconcileNodes makes the pool's Nodes match its sub-block: a node for
// every requested host that is not UNHEALTHY (incremental provisioning:
// the others come when their host is repaired), Ready unless its host is
// UNHEALTHY, and the partition labels on all of them. It is idempotent.
func (w *world) reconcileNodes(ctx context.Context, pool *nodePool) error {
	pool.reconcileMu.Lock()
	defer pool.reconcileMu.Unlock()
	snap := w.snapshot(pool)

	existing, err := w.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: LabelNodePool + "=" + snap.pool})
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
	state := partitionState(snap.nodeCount, present, snap.subBlock.Hosts)

	for h := range present {
		node := byHost[h]
		if node == nil {
			node, err = w.kube.CoreV1().Nodes().Create(ctx, w.newNode(snap, h, state), metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("creating node for host %d of pool %s: %w", h, snap.pool, err)
			}
			if err != nil {
				continue
			}
		} else if node.Labels[LabelPartitionState] != state {
			// A patch, not an update: the slice controller labels the same
			// nodes concurrently.
			patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, LabelPartitionState, state)
			if node, err = w.kube.CoreV1().Nodes().Patch(ctx, node.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
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
				setNodeStatus(fresh, ready)
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

func (w *world) newNode(snap hostSnapshot, host int, state string) *corev1.Node {
	name := w.nodeName(snap.pool, host)
	sb := &snap.subBlock
	labels := map[string]string{
		LabelNodePool:                     snap.pool,
		LabelAccelerator:                  "tpu7x",
		LabelTopologyMode:                 "PROVISION_ONLY",
		LabelPartitionID:                  sb.PartitionID(),
		LabelPartitionState:               state,
		LabelTopologyBlock:                blockTopologyID(sb),
		LabelTopologySubBlock:             subBlockTopologyID(sb),
		LabelTopologyHost:                 opaqueID("host", sb.Reservation, sb.Block, sb.Name, strconv.Itoa(host))[:16],
		LabelInstanceType:                 MachineType,
		LabelZone:                         w.inv.Zone,
		LabelHostname:                     name,
		"cloud.google.com/machine-family": "tpu7x",
	}
	for k, v := range snap.labels {
		labels[k] = v
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: labels,
			Annotations: map[string]string{
				AnnotationCreatedByMIG: fmt.Sprintf("projects/%s/zones/%s/instanceGroupManagers/gke-%s-%s-%s-grp",
					w.inv.ProjectNumber, w.inv.Zone, w.inv.Cluster, snap.pool, opaqueID("pool", snap.pool)[:8]),
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

func setNodeStatus(n *corev1.Node, ready bool) {
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
	setNodeSystemStatus(n)
}

// deleteNodes removes every Node of a pool.
func (w *world) deleteNodes(ctx context.Context, pool string) error {
	return w.kube.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: LabelNodePool + "=" + pool})
}

var (
	metaGet    = metav1.GetOptions{}
	metaDelete = metav1.DeleteOptions{}
)
