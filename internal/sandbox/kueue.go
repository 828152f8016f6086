package sandbox

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// KueueSliceController is the controllerName of the AdmissionCheck that
// makes Kueue create Slices.
const KueueSliceController = "accelerator.gke.io/slice"

// ErrNoFreePartitions is returned (wrapped, with what was free) when a
// Slice's partitions are to be chosen and not enough are free.
var ErrNoFreePartitions = errors.New("not enough free partitions")

// errKueueRequest marks a request that cannot be served as asked, and
// errNotKueueSlice a deletion of a Slice that Kueue did not create.
var (
	errKueueRequest  = errors.New("invalid Kueue slice request")
	errNotKueueSlice = errors.New("not a Kueue slice")
)

// KueueSlice is a Slice as Kueue's slice admission check asks for one: for
// one pod set of an admitted workload.
type KueueSlice struct {
	// Name of the Slice (cluster-scoped).
	Name string `json:"name"`
	// Namespace and Workload name the admitted Kueue Workload; PodSet is
	// its pod set the Slice is for.
	Namespace string `json:"namespace"`
	Workload  string `json:"workload"`
	PodSet    string `json:"podSet"`
	// Topology is the Slice's TPU7x topology: a super-slice (4x4x4 and
	// up) or a sub-slice (2x2x1, 2x2x2, 2x2x4, 2x4x4).
	Topology string `json:"topology"`
	// PartitionIDs are the partitions that topology-aware scheduling
	// assigned. Empty: the sandbox chooses free ones, as TAS would.
	PartitionIDs []string `json:"partitionIds,omitempty"`
}

// kueueAdmission serialises the choice of partitions with the creation of
// the Slice, so that two requests never choose the same free partitions.
type kueueAdmission struct{ mu sync.Mutex }

// KueueCreateSlice does what Kueue's slice admission check does for an
// admitted workload's pod set: it creates a tpu7x Slice with the owner
// annotations, which the slice-controller simulator then forms like any
// other. Without partition IDs it chooses free partitions of the
// topology's shape (see choosePartitions); it fails with
// ErrNoFreePartitions when there are not enough.
func (sb *Sandbox) KueueCreateSlice(ctx context.Context, req KueueSlice) (*unstructured.Unstructured, error) {
	var missing []string
	for _, f := range []struct{ name, value string }{
		{"name", req.Name}, {"namespace", req.Namespace}, {"workload", req.Workload}, {"podSet", req.PodSet}, {"topology", req.Topology},
	} {
		if f.value == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: missing %s", errKueueRequest, strings.Join(missing, ", "))
	}
	topo, err := topology.ParseTPU7x(req.Topology)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errKueueRequest, err)
	}
	kube, dyn, err := sb.kueueClients()
	if err != nil {
		return nil, err
	}
	sb.kueue.mu.Lock()
	defer sb.kueue.mu.Unlock()
	ids := req.PartitionIDs
	if len(ids) == 0 {
		if ids, err = choosePartitions(ctx, kube, dyn, topo); err != nil {
			return nil, err
		}
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": SliceGVR.GroupVersion().String(),
		"kind":       "Slice",
		"metadata": map[string]any{
			"name": req.Name,
			"annotations": map[string]any{
				wellknown.AnnotationOwnerWorkloadNamespace: req.Namespace,
				wellknown.AnnotationOwnerWorkloadName:      req.Workload,
				wellknown.AnnotationOwnerPodSet:            req.PodSet,
			},
		},
		"spec": map[string]any{"type": topology.SliceType, "topology": req.Topology, "partitionIds": toAnySlice(ids)},
	}}
	return dyn.Resource(SliceGVR).Create(ctx, obj, metav1.CreateOptions{})
}

// KueueDeleteSlice deletes a Slice that Kueue created, as Kueue does when
// the workload finishes or is evicted; the slice controller then dismantles
// it. It refuses a Slice without the owner annotations: Kueue deletes only
// its own.
func (sb *Sandbox) KueueDeleteSlice(ctx context.Context, name string) error {
	_, dyn, err := sb.kueueClients()
	if err != nil {
		return err
	}
	res := dyn.Resource(SliceGVR)
	obj, err := res.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if obj.GetAnnotations()[wellknown.AnnotationOwnerWorkloadName] == "" {
		return fmt.Errorf("%w: slice %s was not created by Kueue (it has no %s annotation)", errNotKueueSlice, name, wellknown.AnnotationOwnerWorkloadName)
	}
	// The UID precondition keeps a Slice of the same name made since the
	// Get from being deleted in its place.
	uid := obj.GetUID()
	return res.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
}

// kueueClients are clients of the API server itself: Kueue runs in the
// cluster, so its traffic is not client traffic through the proxy.
func (sb *Sandbox) kueueClients() (kubernetes.Interface, dynamic.Interface, error) {
	cfg := sb.directConfig()
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	return kube, dyn, err
}

// freePartition is a partition of one shape and what places it.
type freePartition struct {
	id, block, subBlock, firstNode string
}

// choosePartitions chooses free partitions for a Slice of topo, as
// topology-aware scheduling would from the node labels: for a super-slice
// A·B·C/64 free 4x4x4 partitions in one block
// (cloud.google.com/gce-topology-block), for a sub-slice one free partition
// of its shape. The choice is deterministic: the first block (by label
// value) with enough, and in it partitions by sub-block and first node.
//
// A partition is free when the slice controller would form it now (all its
// nodes exist and are Ready, its state label is HEALTHY, or DEGRADED for a
// 4x4x4), no node of it carries a slice label, and no node of it belongs to
// a partition of any shape that another Slice claims. A Slice claims its
// partitions from its creation (not only once ACTIVATING, as the controller
// counts), since a Slice not yet seen by the controller is about to take
// them, until it is deleted or has failed for good.
func choosePartitions(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, topo topology.Topology) ([]string, error) {
	nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: wellknown.LabelAccelerator + "=" + topology.SliceType})
	if err != nil {
		return nil, err
	}
	sliceList, err := dyn.Resource(SliceGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	claimed := map[string]bool{} // partition IDs (of any shape) that Slices claim
	for i := range sliceList.Items {
		if v := viewOf(&sliceList.Items[i]); claims(v) {
			for _, id := range v.partitions {
				claimed[id] = true
			}
		}
	}

	shape := topo.PartitionShape()
	byID := map[string][]*corev1.Node{}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if id := n.Labels[topology.PartitionIDLabel(shape)]; id != "" {
			byID[id] = append(byID[id], n)
		}
	}
	byBlock := map[string][]freePartition{}
	for id, ns := range byID {
		if partitionFree(shape, ns, claimed) {
			first := slices.MinFunc(ns, func(a, b *corev1.Node) int { return cmp.Compare(a.Name, b.Name) })
			block := first.Labels[wellknown.LabelTopologyBlock]
			byBlock[block] = append(byBlock[block], freePartition{id: id, block: block, subBlock: first.Labels[wellknown.LabelTopologySubBlock], firstNode: first.Name})
		}
	}
	blocks := make([]string, 0, len(byBlock))
	for b, free := range byBlock {
		blocks = append(blocks, b)
		slices.SortFunc(free, func(x, y freePartition) int {
			return cmp.Or(cmp.Compare(x.subBlock, y.subBlock), cmp.Compare(x.firstNode, y.firstNode))
		})
	}
	slices.Sort(blocks)
	want := topo.Partitions()
	most, mostBlock := 0, ""
	for _, b := range blocks {
		if free := byBlock[b]; len(free) >= want {
			ids := make([]string, want)
			for i := range ids {
				ids[i] = free[i].id
			}
			return ids, nil
		} else if len(free) > most {
			most, mostBlock = len(free), b
		}
	}
	if most == 0 {
		return nil, fmt.Errorf("%w: a %s slice needs %d free %s partition(s) in one block, and none is free", ErrNoFreePartitions, topo, want, shape)
	}
	return nil, fmt.Errorf("%w: a %s slice needs %d free %s partition(s) in one block, and the most in one block is %d (%s=%s)",
		ErrNoFreePartitions, topo, want, shape, most, wellknown.LabelTopologyBlock, mostBlock)
}

// claims says whether a Slice holds its partitions against new choices.
func claims(v sliceView) bool {
	if v.obj.GetDeletionTimestamp() != nil {
		return false
	}
	switch v.state {
	case ReasonFailed:
		return false
	case ReasonSliceCreationFailed:
		return v.retry // it takes them as soon as they can be formed
	}
	return true
}

// partitionFree applies choosePartitions' rule to the nodes of one
// partition of the shape.
func partitionFree(shape string, nodes []*corev1.Node, claimed map[string]bool) bool {
	if len(nodes) != topology.HostsOfShape(shape) {
		return false
	}
	state := nodes[0].Labels[topology.PartitionStateLabel(shape)]
	if !formable(shape, state) {
		return false
	}
	for _, n := range nodes {
		if !nodeReady(n) || n.Labels[wellknown.LabelSlice] != "" {
			return false
		}
		for _, s := range topology.PartitionShapes {
			if claimed[n.Labels[topology.PartitionIDLabel(s)]] {
				return false
			}
		}
	}
	return true
}

func toAnySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// handleKueueCreateSlice serves POST /sandbox/kueue/slices: the body is a
// KueueSlice, the answer the created Slice (201).
func (sb *Sandbox) handleKueueCreateSlice(w http.ResponseWriter, r *http.Request) {
	var req KueueSlice
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		badRequest(w, `the body must be {"name", "namespace", "workload", "podSet", "topology", "partitionIds" (optional)}: `+err.Error())
		return
	}
	obj, err := sb.KueueCreateSlice(r.Context(), req)
	if err != nil {
		writeKueueError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, obj.Object)
}

// handleKueueDeleteSlice serves DELETE /sandbox/kueue/slices/{name}.
func (sb *Sandbox) handleKueueDeleteSlice(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := sb.KueueDeleteSlice(r.Context(), name); err != nil {
		writeKueueError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"deleted": name})
}

// writeKueueError answers 409 when partitions are short or the Slice is
// not Kueue's, the API server's own status for its errors (a name taken,
// an invalid Slice, none found), else 400.
func writeKueueError(w http.ResponseWriter, err error) {
	var status apierrors.APIStatus
	switch {
	case errors.Is(err, ErrNoFreePartitions):
		writeGoogleError(w, http.StatusConflict, "ABORTED", err.Error(), "conflict")
	case errors.Is(err, errNotKueueSlice):
		writeGoogleError(w, http.StatusConflict, "FAILED_PRECONDITION", err.Error(), "conflict")
	case errors.As(err, &status) && status.Status().Code != 0:
		writeGoogleError(w, int(status.Status().Code), string(status.Status().Reason), err.Error(), "kubernetes")
	default:
		badRequest(w, err.Error())
	}
}
