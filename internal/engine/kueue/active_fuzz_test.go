package kueue

import (
	"testing"
)

// Any JSON as a ClusterQueue: reading its Active condition never panics,
// reads the same of the object encoded and decoded again, and a first
// Active condition put before the others is the one read.
func FuzzActiveCondition(f *testing.F) {
	f.Add(seedObject(f, "ClusterQueue", map[string]any{"conditions": []any{condition("Active", "True", "Ready", "Can admit new workloads")}}))
	f.Add(seedObject(f, "ClusterQueue", map[string]any{"conditions": []any{
		condition("Active", "False", "AdmissionCheckInactive", "Can't admit new workloads: references inactive AdmissionCheck(s): [train]."),
		condition("Active", "True", "Ready", "")}}))
	f.Add(seedObject(f, "ClusterQueue", map[string]any{"conditions": []any{"x", map[string]any{"type": "Active", "status": true, "reason": 5}}}))
	f.Add(seedObject(f, "ClusterQueue", map[string]any{"conditions": map[string]any{"type": "Active"}}))
	f.Add(seedObject(f, "ClusterQueue", nil))
	f.Add([]byte(`{"kind":"ClusterQueue","status":"Active"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cq := decoded(data)
		if cq == nil {
			return
		}
		active, reason, message := activeCondition(cq)
		if a, r, m := activeCondition(again(t, cq)); a != active || r != reason || m != message {
			t.Fatalf("%s: read (%t, %q, %q), and (%t, %q, %q) once encoded and decoded again", data, active, reason, message, a, r, m)
		}
		status, ok := cq.Object["status"].(map[string]any)
		if !ok {
			return
		}
		conds, _ := status["conditions"].([]any)
		status["conditions"] = append([]any{condition("Active", "False", "Stopped", "by the test")}, conds...)
		if a, r, m := activeCondition(cq); a || r != "Stopped" || m != "by the test" {
			t.Fatalf("%s: with a first Active condition put before, read (%t, %q, %q)", data, a, r, m)
		}
	})
}
