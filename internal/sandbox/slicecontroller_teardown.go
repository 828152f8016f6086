package sandbox

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
func (c *sliceController) deactivate(ctx context.Context, v sliceView) (time.Duration, error) {
	if !hasFinalizer(v.obj) {
		return 0, nil
	}
	switch v.state {
	case ReasonDeactivating:
		if err := c.labelNodes(ctx, v, false); err != nil {
			return 0, err
		}
		return sliceStepDelay, c.setState(ctx, v, ReasonIncomplete, "The slice is dismantled.")
	case ReasonIncomplete:
		c.world.mu.Lock()
		hold := c.world.faults.HoldSliceFinalizers
		c.world.mu.Unlock()
		if hold {
			return sliceRetryInterval, nil
		}
		var keep []string
		for _, f := range v.obj.GetFinalizers() {
			if f != wellknown.SliceFinalizer {
				keep = append(keep, f)
			}
		}
		v.obj.SetFinalizers(keep)
		_, err := c.slices.Update(ctx, v.obj, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			return 0, nil
		}
		return 0, ignoreConflict(err)
	default:
		return sliceStepDelay, c.setState(ctx, v, ReasonDeactivating, "The slice is being dismantled.")
	}
}

// dismantlingNote ends the message of a slice that is DEACTIVATING after a
// critical failure; the failure precedes it and becomes the FAILED message.
const dismantlingNote = "; the slice is being dismantled"

// startDismantling handles a critical failure of a formed slice (a
// partition turned UNHEALTHY or INCOMPLETE): as GKE's dynamic slicing guide
// documents, the slice passes through DEACTIVATING while it is dismantled,
// then stays FAILED until it is deleted.
func (c *sliceController) startDismantling(ctx context.Context, v sliceView, failure string) error {
	return c.transition(ctx, v, corev1.EventTypeWarning, ReasonDeactivating, failure+dismantlingNote)
}

// finishDismantling ends the DEACTIVATING of a slice that was not deleted:
// its nodes lose the slice labels (they are in no formed slice any more)
// and it becomes FAILED with the failure that started it.
func (c *sliceController) finishDismantling(ctx context.Context, v sliceView) error {
	if err := c.labelNodes(ctx, v, false); err != nil {
		return err
	}
	_, msg := readyReason(v.obj)
	return c.transition(ctx, v, corev1.EventTypeWarning, ReasonFailed, strings.TrimSuffix(msg, dismantlingNote))
}
