package sandbox

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// transition moves the slice to the state reason and records an Event of
// eventType that says so. The Event comes first, so that whoever sees the
// new state also finds its Event (the provider lists a failed slice's
// Events in its error). It is recorded once per transition: the
// controller's cache can still hold the slice's previous version when the
// slice is reconciled again (labelling its nodes re-queues it while its own
// status write is on the way), and the step is then repeated from that same
// version, with a write that conflicts and must not be announced again.
func (c *sliceController) transition(ctx context.Context, v sliceView, eventType, reason, message string) error {
	if c.firstAnnouncement(v, reason) {
		c.event(ctx, v, eventType, reason, message)
	}
	return c.setState(ctx, v, reason, message)
}

// firstAnnouncement reports whether the slice's transition to reason from
// the version v holds is announced for the first time, and notes it.
func (c *sliceController) firstAnnouncement(v sliceView, reason string) bool {
	key := v.obj.GetResourceVersion() + " " + reason
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.announced == nil {
		c.announced = map[types.UID]string{}
	}
	if c.announced[v.obj.GetUID()] == key {
		return false
	}
	c.announced[v.obj.GetUID()] = key
	return true
}

// dismantlingNote ends the message of a slice that is DEACTIVATING after a
// critical failure; the failure precedes it and becomes the FAILED message.
const dismantlingNote = "; the slice is being dismantled"

// startDismantling handles a critical failure of a formed slice (a
// partition turned UNHEALTHY or INCOMPLETE): as seeds/000 documents, the
// slice passes through DEACTIVATING while it is dismantled, then stays
// FAILED until it is deleted.
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
