package clusterread

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Slice states: the reason of the Ready condition, as GKE's Slice custom
// resource reference lists them.
const (
	SliceNotCreated       = "SliceNotCreated"
	SliceCreationFailed   = "SliceCreationFailed"
	SliceActivating       = "ACTIVATING"
	SliceActive           = "ACTIVE"
	SliceActiveDegraded   = "ACTIVE_DEGRADED"
	SliceFailed           = "FAILED"
	SliceDeactivating     = "DEACTIVATING"
	SliceIncomplete       = "INCOMPLETE"
	conditionReady        = "Ready"
	SliceAPIVersion       = "accelerator.gke.io/v1beta1"
	FinalizerPatchTimeout = 30 * time.Second
)

// SliceSpec is a Slice as the user declares it.
type SliceSpec struct {
	Name, Type, Topology string
	PartitionIDs         []string
	RetryOnFailure       bool
	AllowDegraded        bool
}

// Condition is one status condition of a Slice.
type Condition struct {
	Type, Status, Reason, Message, LastTransitionTime string
}

// Slice is a Slice as the cluster reports it.
type Slice struct {
	Name, Type, Topology string
	// UID tells this Slice from earlier ones of the same name.
	UID            string
	PartitionIDs   []string
	RetryOnFailure bool
	// State is the Ready condition's reason; Message its message.
	State, Message string
	// Ready is the Ready condition's status.
	Ready      bool
	Conditions []Condition
	Deleting   bool
	// KueueWorkload is "namespace/name" of the Kueue workload whose
	// admission check created the Slice (and will delete it); empty for a
	// Slice that Kueue does not own. KueuePodSet is its pod set.
	KueueWorkload, KueuePodSet string
	// Adopted, set only by CreateSlice, says why the create adopted a
	// Slice that existed (matching the request) instead of creating it;
	// empty when it created the Slice.
	Adopted string
	// DeviceAccess, set only by a ReadSlice asked to (WithDeviceAccess),
	// is the access the partitions' nodes offer.
	DeviceAccess DeviceAccess
}

// KueueOwner is "namespace/name" of the Kueue workload that owns the
// Slice, or "".
func KueueOwner(u *unstructured.Unstructured) string {
	a := u.GetAnnotations()
	if a[wellknown.AnnotationOwnerWorkloadName] == "" {
		return ""
	}
	return a[wellknown.AnnotationOwnerWorkloadNamespace] + "/" + a[wellknown.AnnotationOwnerWorkloadName]
}

// ErrKueueOwned marks an operation refused because Kueue owns the Slice.
var ErrKueueOwned = errors.New("the Slice is managed by Kueue")

// KueueOwnedError says that Kueue's admission check owns a Slice: it
// creates and deletes it with its workload, so Terraform must not.
func KueueOwnedError(s *Slice) error {
	podSet := ""
	if s.KueuePodSet != "" {
		podSet = ", pod set " + s.KueuePodSet
	}
	return fmt.Errorf("%w: Slice %s was created by Kueue's slice admission check for workload %s%s; Kueue deletes it when the workload "+
		"ends, so Terraform neither adopts, changes nor deletes it. Manage that capacity through the workload (and gke_kueue_slicing), "+
		"or give this gke_tpu_slice another name", ErrKueueOwned, s.Name, s.KueueWorkload, podSet)
}

// SliceOf reads a Slice object.
func SliceOf(u *unstructured.Unstructured) *Slice {
	s := &Slice{Name: u.GetName(), UID: string(u.GetUID()), Deleting: u.GetDeletionTimestamp() != nil}
	s.Type, _, _ = unstructured.NestedString(u.Object, "spec", "type")
	s.Topology, _, _ = unstructured.NestedString(u.Object, "spec", "topology")
	s.PartitionIDs, _, _ = unstructured.NestedStringSlice(u.Object, "spec", "partitionIds")
	s.RetryOnFailure = u.GetAnnotations()[wellknown.AnnotationRetryOnFailure] == "true"
	s.KueueWorkload, s.KueuePodSet = KueueOwner(u), u.GetAnnotations()[wellknown.AnnotationOwnerPodSet]
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { v, _ := m[k].(string); return v }
		cond := Condition{Type: str("type"), Status: str("status"), Reason: str("reason"), Message: str("message"), LastTransitionTime: str("lastTransitionTime")}
		s.Conditions = append(s.Conditions, cond)
		if cond.Type == conditionReady {
			s.State, s.Message, s.Ready = cond.Reason, cond.Message, cond.Status == "True"
			if g, ok := m["observedGeneration"].(int64); ok && g < u.GetGeneration() {
				s.State = "" // the controller has not seen this generation yet
			}
		}
	}
	return s
}
