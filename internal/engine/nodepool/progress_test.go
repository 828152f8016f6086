package nodepool

import "testing"

func TestProgress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status             string
		canFinish, waiting bool
	}{
		{StatusProvisioning, true, true},
		{StatusRunning, true, false},
		{StatusReconciling, true, false},
		{StatusError, false, false},
		{StatusStopping, false, false},
	} {
		if got := Progress(tc.status); got.State != tc.status || got.CanFinish != tc.canFinish || got.Waiting != tc.waiting {
			t.Errorf("pool %s: %+v, want CanFinish %v and Waiting %v", tc.status, got, tc.canFinish, tc.waiting)
		}
	}
}
