package engine

import "context"

// The Kueue + TAS path, forwarded to internal/engine/kueue.

// PlanKueueSlicing checks a Kueue slicing at plan time (kueue.Kueue's
// PlanKueueSlicing).
func (e *Engine) PlanKueueSlicing(ctx context.Context, p KueuePlan) KueueVerdict {
	return e.kueue.PlanKueueSlicing(ctx, p)
}

// ApplyKueueSlicing checks and applies the Kueue objects of k, deleting
// the dropped LocalQueues, and returns the applied TPU quota.
func (e *Engine) ApplyKueueSlicing(ctx context.Context, k KueueSlicing, dropped []string) (int64, error) {
	return e.kueue.ApplyKueueSlicing(ctx, k, dropped)
}

// KueueDrift lists the differences between k and the objects in the
// cluster.
func (e *Engine) KueueDrift(ctx context.Context, k KueueSlicing) ([]string, error) {
	return e.kueue.KueueDrift(ctx, k)
}

// ReadKueueSlicing reads the Kueue slicing named name back from the
// cluster.
func (e *Engine) ReadKueueSlicing(ctx context.Context, name string) (KueueSlicing, error) {
	return e.kueue.ReadKueueSlicing(ctx, name)
}

// DeleteKueueSlicing deletes the Kueue objects of k.
func (e *Engine) DeleteKueueSlicing(ctx context.Context, k KueueSlicing) error {
	return e.kueue.DeleteKueueSlicing(ctx, k)
}
