package kueue

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// workloadSeed is a Workload as Kueue writes it, admitted to queue train
// with the conditions given.
func workloadSeed(conds ...any) []byte {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
		"metadata": map[string]any{"name": "job-1-abc", "namespace": "team-a"},
		"spec":     map[string]any{"queueName": "train", "podSets": []any{map[string]any{"name": "main", "count": int64(16)}}},
		"status":   map[string]any{"admission": map[string]any{"clusterQueue": "train"}, "conditions": conds},
	}}
	b, _ := u.MarshalJSON()
	return b
}

// Any JSON as a Workload: whether it holds its queue's quota never
// panics, reads the same of the object encoded and decoded again; a
// Workload Finished holds none, one whose only condition is QuotaReserved
// holds it.
func FuzzHoldsQuota(f *testing.F) {
	f.Add(workloadSeed(condition("QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue train"),
		condition("Admitted", "True", "Admitted", "The workload is admitted")))
	f.Add(workloadSeed(condition("Admitted", "True", "Admitted", ""), condition("Finished", "True", "JobFinished", "")))
	f.Add(workloadSeed(condition("QuotaReserved", "False", "Pending", ""), "x", map[string]any{"type": 5, "status": true}))
	f.Add([]byte(`{"kind":"Workload","status":{"conditions":{"type":"Admitted","status":"True"}}}`))
	f.Add([]byte(`{"kind":"Workload","status":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w := decoded(data)
		if w == nil {
			return
		}
		holds := holdsQuota(w)
		if holdsQuota(again(t, w)) != holds {
			t.Fatalf("%s: holds the quota %t, and %t once encoded and decoded again", data, holds, !holds)
		}
		if status, ok := w.Object["status"].(map[string]any); ok {
			conds, _ := status["conditions"].([]any)
			status["conditions"] = append(conds, condition("Finished", "True", "JobFinished", ""))
			if holdsQuota(w) {
				t.Fatalf("%s: a Finished Workload holds its quota", data)
			}
			status["conditions"] = []any{condition("QuotaReserved", "True", "QuotaReserved", "")}
			if !holdsQuota(w) {
				t.Fatalf("%s: a Workload whose quota is reserved holds none", data)
			}
		}
	})
}
