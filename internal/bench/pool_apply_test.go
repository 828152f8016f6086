package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

func TestPoolApply(t *testing.T) {
	t.Parallel()
	began := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return began.Add(time.Duration(s * float64(time.Second))) }
	ops := []sandbox.OperationRecord{
		{Name: "earlier", Type: "CREATE_NODE_POOL", Started: at(-100), Ended: at(-70), Done: true},
		{Name: "policy", Type: "insert", Started: at(0.5), Ended: at(1), Done: true},
	}
	for i := range smallPools {
		start := 2 + float64(i)*0.01
		ops = append(ops, sandbox.OperationRecord{Name: "op", Type: "CREATE_NODE_POOL", Started: at(start), Ended: at(start + 30 + float64(i)*0.05), Done: true})
	}
	p, err := poolApply(ops, began, at(34), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// The longest operation is the last: 30 + 15*0.05 = 30.75 s; it ended
	// at 2.15 + 30.75 = 32.9 s.
	if p.OperationMs != 30750 || p.WallMs != 34000 || p.OverheadMs != 3250 || p.BeforeMs != 2000 || p.AfterMs != 1100 {
		t.Errorf("poolApply = %+v", p)
	}
	if p.OverheadPct < 10.56 || p.OverheadPct > 10.57 {
		t.Errorf("overhead %.3f%%, want 3.25/30.75", p.OverheadPct)
	}

	ops[len(ops)-1].Done = false
	if _, err := poolApply(ops, began, at(34), 30*time.Second); err == nil {
		t.Error("an unfinished operation was accepted")
	}
	if _, err := poolApply(ops[:5], began, at(34), 30*time.Second); err == nil || !strings.Contains(err.Error(), "started 3 node pool operations") {
		t.Errorf("too few operations: %v", err)
	}
}
