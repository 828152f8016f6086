package kueue

import (
	"context"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The overflow flavor of the Kueue + TAS path: capacity of GKE's Dynamic
// Workload Scheduler (flex-start node pools with queued provisioning) on
// the same ClusterQueue as the reservation. Kueue's ProvisioningRequest
// admission check asks GKE for the nodes of each workload admitted on it;
// those nodes are single node pools of one TPU topology, never partitions
// of a reservation block, so no Slice forms on them.
const (
	// KueueProvisioningController is the controllerName of Kueue's
	// ProvisioningRequest admission check.
	KueueProvisioningController = "kueue.x-k8s.io/provisioning-request"
	// ClassQueuedProvisioning is GKE's provisioning class for DWS.
	ClassQueuedProvisioning = "queued-provisioning.gke.io"
	// LabelQueued and TaintQueued are what GKE puts on a node that DWS
	// provisioned (the taint's value is "true", effect NoSchedule).
	LabelQueued = "cloud.google.com/gke-queued"
	TaintQueued = "cloud.google.com/gke-queued"
	// LabelTPUTopology is a TPU node's topology label.
	LabelTPUTopology = "cloud.google.com/gke-tpu-topology"
	// OverflowSuffix ends the names of the overflow's objects.
	OverflowSuffix = "-flex"
	// AnnotationKueueOverflowPools and AnnotationKueueOverflowTopology are
	// set on the ClusterQueue when it has an overflow flavor, so that an
	// import reads them back.
	AnnotationKueueOverflowPools    = "gke.dynslice.io/overflow-node-pools"
	AnnotationKueueOverflowTopology = "gke.dynslice.io/overflow-topology"
	// paramMaxRunDuration is the ProvisioningRequest parameter that bounds
	// how long DWS nodes live, in seconds.
	paramMaxRunDuration = "maxRunDurationSeconds"
	// DefaultMaxRunDuration is GKE's maximum run duration of DWS nodes.
	DefaultMaxRunDuration = 7 * 24 * time.Hour
	// DefaultOverflowRetries is Kueue's default retry count of a failed
	// ProvisioningRequest.
	DefaultOverflowRetries = 3
)

// KueueOverflow is the optional second flavor of a KueueSlicing: the
// flex-start node pools with queued provisioning that take what the
// reservation does not.
type KueueOverflow struct {
	// NodePools are the flex-start queued pools, by name; all of
	// Topology (a multi-host TPU pool is one slice of its topology).
	NodePools []string
	Topology  string
	// TPUQuota is the flavor's google.com/tpu nominal quota, in chips.
	TPUQuota int64
	// MaxRunDuration bounds the life of the nodes DWS provisions.
	MaxRunDuration time.Duration
	// Retries is the ProvisioningRequestConfig's retryStrategy
	// backoffLimitCount: how many times Kueue asks again after a failed
	// request before it rejects the admission check.
	Retries int64
}

// OverflowName is the name of the overflow's ResourceFlavor,
// ProvisioningRequestConfig and AdmissionCheck.
func (k KueueSlicing) OverflowName() string { return k.Name + OverflowSuffix }

// QueuedToleration tolerates the taint GKE puts on nodes DWS provisioned.
var QueuedToleration = map[string]any{"key": TaintQueued, "operator": "Equal", "value": "true", "effect": "NoSchedule"}

// OverflowNodeLabels are the overflow flavor's nodeLabels: the nodes of a
// queued pool of the topology (Kueue puts them in the pods' node selector
// and in the ProvisioningRequest's pod template).
func (o KueueOverflow) OverflowNodeLabels() map[string]string {
	return map[string]string{wellknown.LabelAccelerator: topology.SliceType, LabelTPUTopology: o.Topology, LabelQueued: "true"}
}

// overflowObjects are the overflow's flavor, ProvisioningRequestConfig and
// AdmissionCheck, in the order they are applied (before the ClusterQueue
// that names them).
func (k KueueSlicing) overflowObjects() []kueueObject {
	o := k.Overflow
	if o == nil {
		return nil
	}
	labels := map[string]any{}
	for key, v := range o.OverflowNodeLabels() {
		labels[key] = v
	}
	name := k.OverflowName()
	maxRun := o.MaxRunDuration
	if maxRun == 0 {
		maxRun = DefaultMaxRunDuration
	}
	return []kueueObject{
		newKueueObject("ResourceFlavor", "resourceflavors", "", name, map[string]any{
			"nodeLabels":  labels,
			"tolerations": []any{maps.Clone(QueuedToleration), maps.Clone(TPUToleration)},
		}),
		newKueueObject("ProvisioningRequestConfig", "provisioningrequestconfigs", "", name, map[string]any{
			"provisioningClassName": ClassQueuedProvisioning,
			"managedResources":      []any{resourceTPU},
			"parameters":            map[string]any{paramMaxRunDuration: strconv.FormatInt(int64(maxRun/time.Second), 10)},
			"retryStrategy":         map[string]any{"backoffLimitCount": o.Retries},
		}),
		newKueueObject("AdmissionCheck", "admissionchecks", "", name, map[string]any{
			"controllerName": KueueProvisioningController,
			"parameters":     map[string]any{"apiGroup": kernel.KueueGroup, "kind": "ProvisioningRequestConfig", "name": name},
		}),
	}
}

// withOverflow adds the overflow to the ClusterQueue's spec: its flavor
// after the reservation's (Kueue tries flavors in order), each admission
// check on its own flavor only, and a flavor fungibility that moves to
// the next flavor rather than borrow or preempt.
func (k KueueSlicing) withOverflow(cq *unstructured.Unstructured) {
	o := k.Overflow
	if o == nil {
		return
	}
	spec, _ := cq.Object["spec"].(map[string]any)
	groups, _ := spec["resourceGroups"].([]any)
	group, _ := groups[0].(map[string]any)
	flavors, _ := group["flavors"].([]any)
	group["flavors"] = append(flavors, map[string]any{
		"name":      k.OverflowName(),
		"resources": []any{map[string]any{"name": resourceTPU, "nominalQuota": strconv.FormatInt(o.TPUQuota, 10)}},
	})
	spec["admissionChecksStrategy"] = map[string]any{"admissionChecks": []any{
		map[string]any{"name": k.Name, "onFlavors": []any{k.Name}},
		map[string]any{"name": k.OverflowName(), "onFlavors": []any{k.OverflowName()}},
	}}
	spec["flavorFungibility"] = map[string]any{"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}
	annotations := cq.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[AnnotationKueueOverflowPools] = strings.Join(o.NodePools, ",")
	annotations[AnnotationKueueOverflowTopology] = o.Topology
	cq.SetAnnotations(annotations)
}

// readOverflow reads back the overflow of an imported ClusterQueue (nil
// when it records none) and, from its ProvisioningRequestConfig (prc, nil
// when missing), the run duration and retries.
func readOverflow(name string, cq, prc *unstructured.Unstructured) *KueueOverflow {
	pools := cq.GetAnnotations()[AnnotationKueueOverflowPools]
	if pools == "" {
		return nil
	}
	o := &KueueOverflow{NodePools: strings.Split(pools, ","), Topology: cq.GetAnnotations()[AnnotationKueueOverflowTopology],
		MaxRunDuration: DefaultMaxRunDuration, Retries: DefaultOverflowRetries}
	o.TPUQuota = flavorQuota(cq, name+OverflowSuffix)
	if prc != nil {
		if s, ok, _ := unstructured.NestedString(prc.Object, "spec", "parameters", paramMaxRunDuration); ok {
			// A number of seconds no duration holds (not above 0, or
			// beyond 292 years) keeps the default: the drift check
			// reports the config's value.
			if secs, err := strconv.ParseInt(s, 10, 64); err == nil && secs > 0 && secs <= math.MaxInt64/int64(time.Second) {
				o.MaxRunDuration = time.Duration(secs) * time.Second
			}
		}
		if n, ok, _ := unstructured.NestedInt64(prc.Object, "spec", "retryStrategy", "backoffLimitCount"); ok {
			o.Retries = n
		}
	}
	return o
}

// flavorQuota is the google.com/tpu nominal quota of a flavor of the
// ClusterQueue (0 when it has none).
func flavorQuota(cq *unstructured.Unstructured, flavor string) int64 {
	asMap := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	groups, _, _ := unstructured.NestedSlice(cq.Object, "spec", "resourceGroups")
	for _, g := range groups {
		flavors, _, _ := unstructured.NestedSlice(asMap(g), "flavors")
		for _, f := range flavors {
			if asMap(f)["name"] != flavor {
				continue
			}
			resources, _, _ := unstructured.NestedSlice(asMap(f), "resources")
			for _, r := range resources {
				rm := asMap(r)
				if rm["name"] != resourceTPU {
					continue
				}
				if q, err := resource.ParseQuantity(fmt.Sprint(rm["nominalQuota"])); err == nil {
					return q.Value()
				}
			}
		}
	}
	return 0
}

// readOverflowOf reads back the overflow of the ClusterQueue cq of an
// import: nil when it records none; its ProvisioningRequestConfig, when
// missing, leaves the defaults (the drift check then reports it).
func (e *Kueue) readOverflowOf(ctx context.Context, name string, cq *unstructured.Unstructured) (*KueueOverflow, error) {
	if cq.GetAnnotations()[AnnotationKueueOverflowPools] == "" {
		return nil, nil
	}
	o := newKueueObject("ProvisioningRequestConfig", "provisioningrequestconfigs", "", name+OverflowSuffix, nil)
	c, err := e.kueueClient(ctx, o)
	if err != nil {
		return nil, err
	}
	prc, err := c.Get(ctx, o.obj.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		prc = nil
	case err != nil:
		return nil, kueueError(o, "reading", err)
	}
	return readOverflow(name, cq, prc), nil
}
