package kueue

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The rule of a gke_kueue_slicing's delete: nothing is deleted while its
// ClusterQueue has admitted workloads. Kueue keeps a ClusterQueue (its
// finalizer) while workloads hold its quota, so a delete that went ahead
// would drop the LocalQueues at once, then leave the ClusterQueue
// Terminating (nothing new can be queued) and the rest in place.

// KueueWorkloadsAdmittedError is a delete refused before any object was
// deleted: the ClusterQueue has admitted workloads.
type KueueWorkloadsAdmittedError struct {
	// Queue is the ClusterQueue; Workloads are "namespace/name" of the
	// Workloads that hold its quota, sorted.
	Queue     string
	Workloads []string
}

func (e *KueueWorkloadsAdmittedError) Error() string { return e.Detail() }

// Detail names the workloads, the rule and what to do.
func (e *KueueWorkloadsAdmittedError) Detail() string {
	return fmt.Sprintf("ClusterQueue %s has %d admitted workload(s): %s. Kueue keeps a ClusterQueue while workloads hold its quota, so "+
		"deleting its objects now would delete the LocalQueues at once and leave the ClusterQueue Terminating (nothing new can be "+
		"queued) with the rest in place. Nothing was deleted. Let these workloads finish, or delete their jobs (kubectl delete "+
		"workloads.kueue.x-k8s.io -n NAMESPACE NAME deletes a Workload), then destroy again.",
		e.Queue, len(e.Workloads), strings.Join(e.Workloads, ", "))
}

// admittedWorkloads is the KueueWorkloadsAdmittedError of the Workloads
// that hold the quota of ClusterQueue queue (admitted, or with quota
// reserved, and not finished), or nil when there are none. A cluster
// that serves no Workloads has none.
func (e *Kueue) admittedWorkloads(ctx context.Context, queue string) (*KueueWorkloadsAdmittedError, error) {
	c, err := e.kueueClient(ctx, kueueObject{resource: "workloads"})
	if err != nil {
		return nil, err
	}
	list, err := c.List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil // Kueue is not installed: no workloads
	}
	if err != nil {
		return nil, kueueError(newKueueObject("Workload", "workloads", "", "", nil), "reading", err)
	}
	var held []string
	for i := range list.Items {
		w := &list.Items[i]
		if cq, _, _ := unstructured.NestedString(w.Object, "status", "admission", "clusterQueue"); cq == queue && holdsQuota(w) {
			held = append(held, w.GetNamespace()+"/"+w.GetName())
		}
	}
	if len(held) == 0 {
		return nil, nil
	}
	slices.Sort(held)
	return &KueueWorkloadsAdmittedError{Queue: queue, Workloads: held}, nil
}

// holdsQuota says whether the Workload holds its ClusterQueue's quota:
// QuotaReserved or Admitted true, and not Finished.
func holdsQuota(w *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(w.Object, "status", "conditions")
	status := map[string]string{}
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok {
			status[fmt.Sprint(m["type"])] = fmt.Sprint(m["status"])
		}
	}
	return status["Finished"] != "True" && (status["QuotaReserved"] == "True" || status["Admitted"] == "True")
}

// planKueueDestroy is the verdict of a plan that destroys the objects of
// ClusterQueue name: a KueueWorkloadsAdmittedError among the problems
// while it has admitted workloads. A cluster that cannot be read is not
// checked (the delete checks again).
func (e *Kueue) planKueueDestroy(ctx context.Context, name string) KueueVerdict {
	if _, known, _ := e.reads.Known(ctx); !known {
		return KueueVerdict{}
	}
	held, err := e.admittedWorkloads(ctx, name)
	if err != nil {
		tflog.Debug(ctx, "Admitted workloads not checked at plan", map[string]any{"queue": name, "error": err.Error()})
		return KueueVerdict{}
	}
	if held == nil {
		return KueueVerdict{}
	}
	return KueueVerdict{Problems: []error{held}}
}
