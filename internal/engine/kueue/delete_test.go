package kueue

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

func workloadWith(conditions map[string]string) *unstructured.Unstructured {
	var conds []any
	for t, s := range conditions {
		conds = append(conds, map[string]any{"type": t, "status": s})
	}
	return &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": conds}}}
}

// A Workload holds its ClusterQueue's quota while admitted or with quota
// reserved, until it finishes.
func TestHoldsQuota(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		conditions map[string]string
		want       bool
	}{
		"pending":        {map[string]string{"QuotaReserved": "False"}, false},
		"quota reserved": {map[string]string{"QuotaReserved": "True"}, true},
		"admitted":       {map[string]string{"QuotaReserved": "True", "Admitted": "True"}, true},
		"finished":       {map[string]string{"QuotaReserved": "True", "Admitted": "True", "Finished": "True"}, false},
		"evicted":        {map[string]string{"QuotaReserved": "False", "Admitted": "False", "Evicted": "True"}, false},
	} {
		if got := holdsQuota(workloadWith(tc.conditions)); got != tc.want {
			t.Errorf("%s: holdsQuota = %v, want %v", name, got, tc.want)
		}
	}
}

// The refusal names the workloads, the rule and what to do.
func TestKueueWorkloadsAdmittedError(t *testing.T) {
	t.Parallel()
	err := &KueueWorkloadsAdmittedError{Queue: "q", Workloads: []string{"team-a/job-x-1", "team-b/job-y-2"}}
	testsupport.WantContains(t, err, "ClusterQueue q has 2 admitted workload(s): team-a/job-x-1, team-b/job-y-2",
		"Kueue keeps a ClusterQueue while workloads hold its quota", "Nothing was deleted", "then destroy again")
}
