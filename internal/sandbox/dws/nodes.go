package dws

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// requestKey is the label value that ties nodes to one request (a request
// deleted and created again under its name is another one).
func requestKey(namespace, name, uid string) string {
	sum := sha256.Sum256([]byte(namespace + "/" + name + "/" + uid))
	return hex.EncodeToString(sum[:])[:16]
}

func (r *request) key() string {
	return requestKey(r.obj.GetNamespace(), r.obj.GetName(), string(r.obj.GetUID()))
}

// createNodes creates the request's nodes in pool; those that exist stay.
func (c *Controller) createNodes(ctx context.Context, req *request, pool Pool) error {
	c.created[req.key()] = true
	for i := range req.nodeCount() {
		n := newNode(req, pool, i)
		if _, err := c.kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating node %s: %w", n.Name, err)
		}
	}
	return nil
}

// newNode is the i-th node of a request in pool, labelled and tainted as
// GKE's queued-provisioning TPU nodes are. kwok (which manages every node
// with a node pool label) makes it Ready.
func newNode(req *request, pool Pool, i int) *corev1.Node {
	name := fmt.Sprintf("gke-%s-%s-%d", pool.Name, req.key()[:8], i)
	labels := map[string]string{
		LabelNodePool:    pool.Name,
		LabelQueued:      "true",
		LabelAccelerator: pool.Accelerator,
		LabelTopology:    pool.Topology,
		LabelMachineType: pool.MachineType,
		LabelZone:        pool.Zone,
		LabelHostname:    name,
		LabelRequest:     req.key(),
	}
	if pool.FlexStart {
		labels[LabelFlexStart] = "true"
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("224"),
		corev1.ResourceMemory: resource.MustParse("960Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
		ResourceTPU:           resource.MustParse(strconv.Itoa(pool.ChipsPerNode)),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      labels,
			Annotations: map[string]string{AnnotationRequest: req.id()},
		},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{
			{Key: TaintQueued, Value: "true", Effect: corev1.TaintEffectNoSchedule},
			{Key: TaintTPU, Value: "present", Effect: corev1.TaintEffectNoSchedule},
		}},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity.DeepCopy()},
	}
}

// deleteNodes removes the request's nodes, if the controller created
// some that are still there.
func (c *Controller) deleteNodes(ctx context.Context, req *request) error {
	if !c.created[req.key()] {
		return nil
	}
	return c.deleteByKey(ctx, req.key())
}

func (c *Controller) deleteByKey(ctx context.Context, key string) error {
	sel := metav1.ListOptions{LabelSelector: LabelRequest + "=" + key}
	nodes, err := c.kube.CoreV1().Nodes().List(ctx, sel)
	if err != nil {
		return err
	}
	for _, n := range nodes.Items {
		if err := c.kube.CoreV1().Nodes().Delete(ctx, n.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting node %s: %w", n.Name, err)
		}
	}
	delete(c.created, key)
	return nil
}

// runEnded says whether the request's run has ended: pods consumed it
// (Kueue annotates them with its name) and every one of them has ended.
func (c *Controller) runEnded(ctx context.Context, req *request) (bool, error) {
	pods, err := c.kube.CoreV1().Pods(req.obj.GetNamespace()).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	consumers := 0
	for _, p := range pods.Items {
		if p.Annotations[AnnotationConsume] != req.obj.GetName() {
			continue
		}
		consumers++
		if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			return false, nil
		}
	}
	return consumers > 0, nil
}

// sweep deletes the nodes of requests that are gone (live holds the keys
// of those that are not).
func (c *Controller) sweep(ctx context.Context, live map[string]bool) error {
	for key := range c.created {
		if live[key] {
			continue
		}
		if err := c.deleteByKey(ctx, key); err != nil {
			return err
		}
	}
	return nil
}
