package engine

import "testing"

func TestProgress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		what               string
		got                Progress
		canFinish, waiting bool
	}{
		{"slice not reported", SliceProgress("", false), true, true},
		{"slice not created", SliceProgress(SliceNotCreated, false), true, true},
		{"slice activating", SliceProgress(SliceActivating, false), true, true},
		{"slice creation failed", SliceProgress(SliceCreationFailed, false), false, false},
		{"slice creation failed, retried", SliceProgress(SliceCreationFailed, true), true, true},
		{"slice active", SliceProgress(SliceActive, false), false, false},
		{"slice failed", SliceProgress(SliceFailed, true), false, false},
	} {
		if tc.got.CanFinish != tc.canFinish || tc.got.Waiting != tc.waiting {
			t.Errorf("%s: %+v, want CanFinish %v and Waiting %v", tc.what, tc.got, tc.canFinish, tc.waiting)
		}
	}
	if d := SliceProgress("", false).Describe(); d != "state not yet reported" {
		t.Errorf("Describe of an unreported state = %q", d)
	}
}
