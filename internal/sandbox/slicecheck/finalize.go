package slicecheck

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// finalize deletes the Slices of a Workload that no longer runs, once its
// pods have ended, and lets the Workload go.
func (c *Check) finalize(ctx context.Context, v wlView, own []*unstructured.Unstructured) (time.Duration, error) {
	if !slices.Contains(v.obj.GetFinalizers(), sliceCheckFinalizer) {
		return 0, nil // the check never made Slices for it
	}
	var live []*unstructured.Unstructured
	for _, s := range own {
		if s.GetDeletionTimestamp() == nil {
			live = append(live, s)
		}
	}
	if len(live) > 0 {
		done, err := c.ownerPodsEnded(ctx, v)
		if err != nil {
			return 0, err
		}
		if !done {
			return c.opts.OwnerPodsPoll, nil
		}
		if err := c.deleteSlices(ctx, live); err != nil {
			return 0, err
		}
	}
	c.log.Printf("workload %s/%s: its Slices are gone (%s): removing the finalizer", v.namespace, v.name, v.finalize)
	v.obj.SetFinalizers(slices.DeleteFunc(v.obj.GetFinalizers(), func(f string) bool { return f == sliceCheckFinalizer }))
	_, err := c.dyn.Resource(WorkloadGVR).Namespace(v.namespace).Update(ctx, v.obj, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	return 0, ignoreConflict(err)
}

// ownerPodsEnded says whether every pod of the Workload's Job, JobSet or
// LeaderWorkerSet has ended (true when it has no owner of those kinds).
func (c *Check) ownerPodsEnded(ctx context.Context, v wlView) (bool, error) {
	owner := v.owner
	if !supportedOwner(owner) {
		return true, nil
	}
	var selector string
	switch owner.Kind {
	case "Job":
		selector = "batch.kubernetes.io/job-name=" + owner.Name
	case "JobSet":
		selector = "jobset.sigs.k8s.io/jobset-name=" + owner.Name
	case "LeaderWorkerSet":
		selector = "leaderworkerset.sigs.k8s.io/name=" + owner.Name
	}
	pods, err := c.kube.CoreV1().Pods(v.namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return false, err
	}
	for i := range pods.Items {
		if p := pods.Items[i].Status.Phase; p != corev1.PodSucceeded && p != corev1.PodFailed {
			return false, nil
		}
	}
	return true, nil
}

// deleteSlices deletes Slices (each only if it is still the one read).
func (c *Check) deleteSlices(ctx context.Context, list []*unstructured.Unstructured) error {
	for _, s := range list {
		c.log.Printf("deleting Slice %s of workload %s/%s", s.GetName(), s.GetAnnotations()[wellknown.AnnotationOwnerWorkloadNamespace], s.GetAnnotations()[wellknown.AnnotationOwnerWorkloadName])
		uid := s.GetUID()
		err := c.dyn.Resource(slicecontroller.SliceGVR).Delete(ctx, s.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("deleting Slice %s: %w", s.GetName(), err)
		}
	}
	return nil
}

// ignoreConflict treats a write conflict as done: the informer brings the
// newer object and the workload is reconciled again.
func ignoreConflict(err error) error {
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
