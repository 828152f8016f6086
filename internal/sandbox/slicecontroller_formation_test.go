package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Each documented SliceCreationFailed cause, with a message that says it.
// A partition count that does not match the topology is refused at
// admission before the controller sees it (TestSliceAdmissionRejects).
func TestSliceCreationFailedReasons(t *testing.T) {
	needSandbox(t)
	ids := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2")
	createSlice(t, "holder", "4x4x4", ids[:1], nil)
	waitSliceState(t, "holder", ReasonActive)

	cases := []struct {
		name, topo string
		ids        []string
		text       string
	}{
		{"missing-nodes", "4x4x4", []string{strings.Repeat("0", 32)}, "the nodes of partition 00000000000000000000000000000000 do not exist"},
		{"used-elsewhere", "4x4x8", ids, fmt.Sprintf("the nodes of partition %s are used by slice holder", ids[0])},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			createSlice(t, tc.name, tc.topo, tc.ids, nil)
			obj := waitSliceState(t, tc.name, ReasonSliceCreationFailed)
			if _, msg := slicecontroller.ReadyReason(obj); !strings.Contains(msg, tc.text) {
				t.Errorf("message %q, want %q", msg, tc.text)
			}
		})
	}
}

// Partitions in different blocks or reservations fail after ACTIVATING.
func TestSliceFailedAcrossBlocksAndReservations(t *testing.T) {
	needSandbox(t)
	a := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a1")
	b := partitionsOf(t, "tpu7x-reservation", "block-b", "sub-block-b1")
	c := partitionsOf(t, "tpu7x-reservation-2", "block-c", "sub-block-c1")
	// One after the other: both use a[0], and a slice that is ACTIVATING
	// holds its partitions (a FAILED one does not).
	for _, tc := range []struct{ name, other, text string }{
		{"across-blocks", b[0], "the partitions are not in the same reservation block"},
		{"across-reservations", c[0], "the partitions are not in the same reservation"},
	} {
		createSlice(t, tc.name, "4x4x8", []string{a[0], tc.other}, nil)
		obj := waitSliceState(t, tc.name, ReasonFailed)
		if _, msg := slicecontroller.ReadyReason(obj); !strings.Contains(msg, tc.text) {
			t.Errorf("%s: message %q, want %q", tc.name, msg, tc.text)
		}
	}
}

// With retry-on-failure, a slice whose partition is incomplete forms once
// the missing host is repaired.
func TestSliceRetryOnFailure(t *testing.T) {
	needSandbox(t)
	ids := partitionsOf(t, "tpu7x-reservation", "block-b", "sub-block-b3") // host 11 is unhealthy
	createSlice(t, "retrying", "4x4x4", ids, map[string]string{wellknown.AnnotationRetryOnFailure: "true"})
	obj := waitSliceState(t, "retrying", ReasonSliceCreationFailed)
	if _, msg := slicecontroller.ReadyReason(obj); !strings.Contains(msg, "is INCOMPLETE") {
		t.Errorf("message %q", msg)
	}
	if err := testSandbox.SetHostHealth(testContext(t), "tpu7x-reservation", "block-b", "sub-block-b3", 11, HostHealthy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = testSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-b", "sub-block-b3", 11, HostUnhealthy)
	})
	waitSliceState(t, "retrying", ReasonActive)

	// Without the annotation, the failure is final.
	createSlice(t, "not-retrying", "4x4x4", []string{strings.Repeat("f", 32)}, nil)
	waitSliceState(t, "not-retrying", ReasonSliceCreationFailed)
}

// Injected formation failures and activation delay. The delay is held by
// the test (Options.Delays): while it is, the slice is ACTIVATING and not
// marked ACTIVE; once it ends, the slice turns ACTIVE, right after
// ACTIVATING.
func TestSliceFormationFaults(t *testing.T) {
	needSandbox(t)
	ids := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a3")
	withFaults(t, Faults{FailSliceFormations: 1})
	createSlice(t, "doomed", "4x4x4", ids, nil)
	obj := waitSliceState(t, "doomed", ReasonFailed)
	if _, msg := slicecontroller.ReadyReason(obj); !strings.Contains(msg, "could not be formed") {
		t.Errorf("message %q", msg)
	}
	deleteSliceAndWait(t, "doomed")

	withFaults(t, Faults{SliceActivationDelayMs: 400})
	activation := holdDelays(t, DelaySliceActivation, "slow")
	rec := createSlice(t, "slow", "4x4x4", ids, nil)
	waitSliceState(t, "slow", ReasonActivating)
	d := activation.next(t)
	if d.For != 400*time.Millisecond {
		t.Errorf("the activation delay is %s, want the fault's 400ms", d.For)
	}
	if _, ok := testSandbox.SliceMarkedActive("slow"); ok {
		t.Error("the slice was marked ACTIVE while its activation delay was held")
	}
	d.end()
	waitSliceState(t, "slow", ReasonActive)
	if got := rec.seenUntil(t, ReasonActive); len(got) != 3 || got[1] != ReasonActivating {
		t.Errorf("states %v, want ACTIVATING right before ACTIVE", got)
	}
	activation.none(t)
}
