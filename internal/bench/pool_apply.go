package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// poolApply applies smallPools node pools at once with GKE operations
// that take operationTime, and compares its wall time with the operations.
func (m *meter) poolApply(ctx context.Context, operationTime time.Duration) (*PoolApply, error) {
	faults := m.sb.Faults()
	faults.OperationDelayMs = int(operationTime / time.Millisecond)
	m.sb.SetFaults(faults)
	began := time.Now()
	apply, err := m.apply(ctx, "apply", smallPools, 0, fmt.Sprintf("-parallelism=%d", smallPools))
	ended := time.Now()
	faults.OperationDelayMs = 0
	m.sb.SetFaults(faults)
	if err != nil {
		return nil, err
	}
	p, err := poolApply(m.sb.Operations(), began, ended, operationTime)
	if err != nil {
		return nil, err
	}
	p.GoogleRequests = apply.Google[0]
	return &p, nil
}

// poolApply compares the wall time of the pool apply that ran from began
// to ended with the GKE operations it started.
func poolApply(ops []sandbox.OperationRecord, began, ended time.Time, delay time.Duration) (PoolApply, error) {
	p := PoolApply{Pools: smallPools, DelayMs: ms(delay), WallMs: ms(ended.Sub(began))}
	var first, last time.Time
	n := 0
	for _, op := range ops {
		if op.Type != "CREATE_NODE_POOL" || op.Started.Before(began) {
			continue
		}
		if !op.Done || op.Error != "" {
			return p, fmt.Errorf("node pool operation %s did not succeed: %s", op.Name, op.Error)
		}
		n++
		p.OperationMs = max(p.OperationMs, ms(op.Ended.Sub(op.Started)))
		if first.IsZero() || op.Started.Before(first) {
			first = op.Started
		}
		if op.Ended.After(last) {
			last = op.Ended
		}
	}
	if n != smallPools {
		return p, fmt.Errorf("the apply started %d node pool operations, want %d", n, smallPools)
	}
	p.OverheadMs = p.WallMs - p.OperationMs
	p.OverheadPct = 100 * p.OverheadMs / p.OperationMs
	p.BeforeMs, p.AfterMs = ms(first.Sub(began)), ms(ended.Sub(last))
	return p, nil
}
