// Package kueue owns the Kueue + TAS path: the Kueue objects the provider applies
// (a Topology, a ResourceFlavor, the slice AdmissionCheck, a ClusterQueue and its
// LocalQueues, and the optional flex-start overflow flavor), the checks before a
// plan and an apply, the quota made of node pools' chips, drift, read and delete.
// engine.New builds one Kueue over the engine's cluster reads. Of the engine it
// imports kernel, clusterread and reservation (for a pool's target).
package kueue

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The Kueue API the Kueue + TAS path uses: kueue.x-k8s.io/v1beta2 (Kueue
// v0.15 and later).
const (
	// KueueSliceController is the controllerName of GKE's slice admission
	// check: it creates a Slice for each admitted workload.
	KueueSliceController = "accelerator.gke.io/slice"
	// LabelQueueName is the label that puts a workload in a LocalQueue.
	LabelQueueName = "kueue.x-k8s.io/queue-name"
	// kueueFieldManager owns the fields the provider applies.
	kueueFieldManager = "terraform-provider-gke"
	// resourceTPU is the extended resource a tpu7x node has 4 of.
	resourceTPU   = "google.com/tpu"
	labelHostname = "kubernetes.io/hostname"
	// labelManagedBy marks the objects the provider applies.
	labelManagedBy = "app.kubernetes.io/managed-by"
	managedBy      = "terraform-provider-gke"
	// AnnotationKueueNodePools is set on the ClusterQueue: the node pools
	// whose chips make its quota, comma-separated in the configuration's
	// order, so that an import reads them back.
	AnnotationKueueNodePools = "gke.dynslice.io/node-pools"
)

// Kueue applies, reads and checks the Kueue objects of the engine's
// cluster.
type Kueue struct {
	// cluster returns the cluster's API clients.
	cluster func(ctx context.Context) (kernel.Cluster, error)
	// reads owns the reads of the cluster: the inventory, the node pool
	// list and the cluster's name.
	reads *clusterread.Reads
	// poll is the cadence of the reads of a ClusterQueue that is not
	// Active yet.
	poll kernel.Waiter
}

// New returns the Kueue of the cluster that reads is bound to; clients
// returns that cluster's API clients; poll is the cadence of its waits
// (zero fields: kernel's defaults).
func New(reads *clusterread.Reads, clients func(ctx context.Context) (kernel.Cluster, error), poll kernel.Waiter) *Kueue {
	return &Kueue{cluster: clients, reads: reads, poll: pollOf(poll)}
}

// KueueSlicing is the set of Kueue objects the Kueue + TAS path needs:
// a Topology, a ResourceFlavor on it, the slice AdmissionCheck, a
// ClusterQueue whose google.com/tpu quota is TPUQuota, and a LocalQueue in
// each namespace. Every object is named Name.
type KueueSlicing struct {
	Name       string
	SubSlicing bool
	Namespaces []string
	TPUQuota   int64
	// NodePools are the pools whose chips make TPUQuota, recorded on the
	// ClusterQueue (AnnotationKueueNodePools).
	NodePools []string
	// WorkloadTopologies are the topologies the queue's workloads will
	// ask for (of NodePools, the engine's cluster's): not applied; the
	// checks before an apply read them.
	WorkloadTopologies []string
	// Overflow is the optional flex-start flavor (overflow.go).
	Overflow *KueueOverflow
}

// TPUToleration is the toleration of the ResourceFlavor: GKE's TPU nodes
// carry the taint google.com/tpu=present:NoSchedule, and Kueue's Topology
// Aware Scheduling leaves out the nodes whose NoSchedule taints neither
// the pod set nor the flavor tolerates. Pod templates do not carry it
// (GKE adds it only when it creates a pod that asks for TPUs).
var TPUToleration = map[string]any{"key": resourceTPU, "operator": "Exists", "effect": "NoSchedule"}

// TopologyLevels are the Topology's levels, from the block down to the
// host: the 4x4x4 partition (sub-block), then, with sub-slicing, the
// sub-slice partitions from 2x4x4 to 2x2x1.
func (k KueueSlicing) TopologyLevels() []string {
	levels := []string{wellknown.LabelTopologyBlock, topology.PartitionIDLabel(topology.PartitionTopology)}
	if k.SubSlicing {
		for i := len(topology.SubSliceShapes) - 1; i >= 0; i-- {
			levels = append(levels, topology.PartitionIDLabel(topology.SubSliceShapes[i]))
		}
	}
	return append(levels, labelHostname)
}

// kueueObject is one object the path needs, in dependency order.
type kueueObject struct {
	resource, namespace string
	obj                 *unstructured.Unstructured
}

func (o kueueObject) String() string {
	if o.namespace != "" {
		return fmt.Sprintf("%s %s/%s", o.obj.GetKind(), o.namespace, o.obj.GetName())
	}
	return o.obj.GetKind() + " " + o.obj.GetName()
}

func newKueueObject(kind, resource, namespace, name string, spec map[string]any) kueueObject {
	meta := map[string]any{"name": name, "labels": map[string]any{labelManagedBy: managedBy}}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	return kueueObject{resource: resource, namespace: namespace, obj: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kernel.KueueGroup + "/" + kernel.KueueVersion, "kind": kind, "metadata": meta, "spec": spec,
	}}}
}

// objects are the Kueue objects of k, in the order they are applied (each
// after those it names); deletes go in the reverse order.
func (k KueueSlicing) objects() []kueueObject {
	levels := make([]any, 0, 8)
	for _, l := range k.TopologyLevels() {
		levels = append(levels, map[string]any{"nodeLabel": l})
	}
	out := []kueueObject{
		newKueueObject("Topology", "topologies", "", k.Name, map[string]any{"levels": levels}),
		newKueueObject("ResourceFlavor", "resourceflavors", "", k.Name, map[string]any{
			"nodeLabels":   map[string]any{wellknown.LabelAccelerator: topology.SliceType},
			"tolerations":  []any{maps.Clone(TPUToleration)},
			"topologyName": k.Name,
		}),
		newKueueObject("AdmissionCheck", "admissionchecks", "", k.Name, map[string]any{"controllerName": KueueSliceController}),
	}
	out = append(out, k.overflowObjects()...)
	cq := newKueueObject("ClusterQueue", "clusterqueues", "", k.Name, map[string]any{
		"namespaceSelector": map[string]any{},
		"resourceGroups": []any{map[string]any{
			"coveredResources": []any{resourceTPU},
			"flavors": []any{map[string]any{
				"name":      k.Name,
				"resources": []any{map[string]any{"name": resourceTPU, "nominalQuota": strconv.FormatInt(k.TPUQuota, 10)}},
			}},
		}},
		"admissionChecksStrategy": map[string]any{"admissionChecks": []any{map[string]any{"name": k.Name}}},
	})
	if len(k.NodePools) > 0 {
		cq.obj.SetAnnotations(map[string]string{AnnotationKueueNodePools: strings.Join(k.NodePools, ",")})
	}
	k.withOverflow(cq.obj)
	out = append(out, cq)
	for _, ns := range k.Namespaces {
		out = append(out, newKueueObject("LocalQueue", "localqueues", ns, k.Name, map[string]any{"clusterQueue": k.Name}))
	}
	return out
}

func (e *Kueue) kueueClient(ctx context.Context, o kueueObject) (dynamic.ResourceInterface, error) {
	c, err := e.cluster(ctx)
	if err != nil {
		return nil, err
	}
	r := c.Kueue(o.resource)
	if o.namespace != "" {
		return r.Namespace(o.namespace), nil
	}
	return r, nil
}

func sameQuantity(a, b any) bool {
	qa, err1 := resource.ParseQuantity(fmt.Sprint(a))
	qb, err2 := resource.ParseQuantity(fmt.Sprint(b))
	return err1 == nil && err2 == nil && qa.Cmp(qb) == 0
}

// DeleteKueueSlicing deletes the objects of k in reverse dependency order
// (LocalQueues first, the Topology last) and waits for each to be gone:
// Kueue keeps a ClusterQueue or ResourceFlavor while workloads use it:
// while the ClusterQueue has admitted workloads, nothing is deleted (a
// KueueWorkloadsAdmittedError, delete.go).
func (e *Kueue) DeleteKueueSlicing(ctx context.Context, k KueueSlicing) error {
	if held, err := e.admittedWorkloads(ctx, k.Name); err != nil {
		return err
	} else if held != nil {
		return held
	}
	objs := k.objects()
	for i := len(objs) - 1; i >= 0; i-- {
		if err := e.deleteKueueObject(ctx, objs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (e *Kueue) deleteKueueObject(ctx context.Context, o kueueObject) error {
	c, err := e.kueueClient(ctx, o)
	if err != nil {
		return err
	}
	tflog.Info(ctx, "Deleting Kueue object", map[string]any{"object": o.String()})
	if err := c.Delete(ctx, o.obj.GetName(), metav1.DeleteOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return kueueError(o, "deleting", err)
	}
	err = e.reads.WatchObject(ctx, c, o.obj.GetName(), func(_ *unstructured.Unstructured, gone bool) (bool, error) { return gone, nil })
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s is still there at the delete timeout: Kueue keeps it while workloads use it (it has a finalizer); "+
				"finish or delete those workloads and destroy again: %w", o, err)
		}
		return fmt.Errorf("waiting for %s to be deleted: %w", o, err)
	}
	return nil
}

// tpuQuota is the google.com/tpu of the named node pools of the engine's
// cluster: 4 chips for each node they ask for.
func (e *Kueue) tpuQuota(ctx context.Context, pools []string) (int64, error) {
	if e.reads.Ref().Name == "" {
		return 0, e.reads.Ref().Unnamed
	}
	cluster := e.reads.Name()
	list, err := e.reads.FreshNodePools(ctx, cluster)
	if err != nil {
		return 0, fmt.Errorf("listing the node pools of %s for the TPU quota: %s", cluster, kernel.APIMessage(err))
	}
	nodes := map[string]int64{}
	for _, p := range list {
		nodes[p.Name] = p.InitialNodeCount
	}
	var total int64
	var missing []string
	for _, p := range pools {
		n, ok := nodes[p]
		if !ok {
			missing = append(missing, p)
			continue
		}
		total += n * topology.ChipsPerHost
	}
	if len(missing) > 0 {
		return 0, missingPools(cluster, missing)
	}
	return total, nil
}

// ReadKueueSlicing reads back, for an import, the objects that
// ApplyKueueSlicing made under name: the node pools and the quota from the
// ClusterQueue, sub-slicing from the Topology's levels (the default, true,
// when the Topology is missing: the drift check then reports it), and the
// namespaces of the LocalQueues of that name that feed the ClusterQueue.
// A ClusterQueue that is missing, that the provider did not make, or that
// does not record its node pools is an error that says what to do.
func (e *Kueue) ReadKueueSlicing(ctx context.Context, name string) (KueueSlicing, error) {
	k := KueueSlicing{Name: name, SubSlicing: true}
	objs := k.objects()
	cqObj, topoObj := objs[len(objs)-1], objs[0] // no namespace: the ClusterQueue last
	c, err := e.kueueClient(ctx, cqObj)
	if err != nil {
		return k, err
	}
	cq, err := c.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return k, fmt.Errorf("ClusterQueue %s does not exist: there is no gke_kueue_slicing %q to import; declare it and apply to create it", name, name)
	}
	if err != nil {
		return k, kueueError(cqObj, "reading", err)
	}
	if k, err = queueReadBack(name, cq); err != nil {
		return k, err
	}
	if k.Overflow, err = e.readOverflowOf(ctx, name, cq); err != nil {
		return k, err
	}
	tc, err := e.kueueClient(ctx, topoObj)
	if err != nil {
		return k, err
	}
	switch topo, err := tc.Get(ctx, name, metav1.GetOptions{}); {
	case err == nil:
		k.SubSlicing = subSlicingOf(topo)
	case !apierrors.IsNotFound(err):
		return k, kueueError(topoObj, "reading", err)
	}
	cl, err := e.cluster(ctx)
	if err != nil {
		return k, err
	}
	queues, err := cl.Kueue("localqueues").List(ctx, metav1.ListOptions{LabelSelector: labelManagedBy + "=" + managedBy})
	if err != nil {
		return k, fmt.Errorf("listing LocalQueues: %w", err)
	}
	k.Namespaces = namespacesOf(name, queues.Items)
	return k, nil
}
