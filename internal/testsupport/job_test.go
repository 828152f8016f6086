package testsupport

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestJobComplete(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		conds []batchv1.JobCondition
		want  bool
	}{
		{"no conditions", nil, false},
		{"complete", []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}, true},
		{"complete false", []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionFalse}}, false},
		{"failed", []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue}}, false},
		{"success criteria, then complete", []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue},
		}, true},
	} {
		job := &batchv1.Job{Status: batchv1.JobStatus{Conditions: c.conds}}
		if got := JobComplete(job); got != c.want {
			t.Errorf("%s: JobComplete = %v, want %v", c.name, got, c.want)
		}
	}
}
