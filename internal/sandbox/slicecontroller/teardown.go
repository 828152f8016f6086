package slicecontroller

import (
	"context"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// deactivate walks a deleted slice through DEACTIVATING and INCOMPLETE,
// removes the slice labels from its nodes, then releases the finalizer.
func (c *Controller) deactivate(ctx context.Context, v View) (time.Duration, error) {
	if !hasFinalizer(v.Obj) {
		return 0, nil
	}
	switch v.State {
	case ReasonDeactivating:
		if err := c.labelNodes(ctx, v, false); err != nil {
			return 0, err
		}
		return sliceStepDelay, c.setState(ctx, v, ReasonIncomplete, "The slice is dismantled.")
	case ReasonIncomplete:
		if c.cloud.HoldSliceFinalizers() {
			return sliceRetryInterval, nil
		}
		var keep []string
		for _, f := range v.Obj.GetFinalizers() {
			if f != wellknown.SliceFinalizer {
				keep = append(keep, f)
			}
		}
		v.Obj.SetFinalizers(keep)
		_, err := c.slices.Update(ctx, v.Obj, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			return 0, nil
		}
		return 0, ignoreConflict(err)
	default:
		return sliceStepDelay, c.setState(ctx, v, ReasonDeactivating, "The slice is being dismantled.")
	}
}

// DismantlingNote ends the message of a slice that is DEACTIVATING after a
// critical failure; the failure precedes it and becomes the FAILED message.
const DismantlingNote = "; the slice is being dismantled"

// startDismantling handles a critical failure of a formed slice (a
// partition turned UNHEALTHY or INCOMPLETE): as GKE's dynamic slicing guide
// documents, the slice passes through DEACTIVATING while it is dismantled,
// then stays FAILED until it is deleted.
func (c *Controller) startDismantling(ctx context.Context, v View, failure string) error {
	return c.transition(ctx, v, corev1.EventTypeWarning, ReasonDeactivating, failure+DismantlingNote)
}

// finishDismantling ends the DEACTIVATING of a slice that was not deleted:
// its nodes lose the slice labels (they are in no formed slice any more)
// and it becomes FAILED with the failure that started it.
func (c *Controller) finishDismantling(ctx context.Context, v View) error {
	if err := c.labelNodes(ctx, v, false); err != nil {
		return err
	}
	_, msg := ReadyReason(v.Obj)
	return c.transition(ctx, v, corev1.EventTypeWarning, ReasonFailed, strings.TrimSuffix(msg, DismantlingNote))
}
