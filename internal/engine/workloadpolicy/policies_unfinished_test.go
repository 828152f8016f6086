package workloadpolicy

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// pollingPolicies is the Policies New builds over c with the engine's
// waiter, polling every millisecond.
func pollingPolicies(c *enginetest.Compute) *Policies {
	return New(c, (&kernel.Waiter{Initial: time.Millisecond, Max: time.Millisecond}).WaitCompute)
}

const heldInsert = "operation-insert-held"

// A create whose insert outlives its context reports the insert's
// operation before the wait, and fails with an error that wraps the
// context's and names the operation, its type and its last status.
func TestCreateWorkloadPolicyOutlivedByItsInsert(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	held := &enginetest.Operation{OpName: heldInsert, OpType: "insert", DoneAt: 1 << 30}
	c.InsertOp = held
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	var started []string
	_, err := pollingPolicies(c).Create(ctx, validPolicy(), func(op string) {
		if held.Polls != 0 {
			t.Errorf("started was called after %d polls of the insert, want before the wait", held.Polls)
		}
		started = append(started, op)
	})
	if !slices.Equal(started, []string{heldInsert}) {
		t.Errorf("started with %v, want the insert's operation once", started)
	}
	testsupport.WantContains(t, err, "creating workload policy projects/proj/regions/us-central1/resourcePolicies/slice-policy: gave up after",
		"waiting for Compute operation "+heldInsert+" (insert), which was RUNNING: context deadline exceeded")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want it to wrap the context's", err)
	}
}

// An insert that ended in failure is an OperationError, and an insert
// refused outright starts nothing.
func TestCreateWorkloadPolicyInsertFailures(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	c.InsertOp, c.InsertOpMakesNothing = &enginetest.Operation{OpName: "operation-quota", DoneAt: 1, Failure: "Quota 'RESOURCE_POLICIES' exceeded."}, true
	started := 0
	_, err := pollingPolicies(c).Create(t.Context(), validPolicy(), func(string) { started++ })
	var opErr *kernel.OperationError
	if !errors.As(err, &opErr) || started != 1 {
		t.Errorf("a failed insert: %v, started %d times, want an OperationError after one start", err, started)
	}
	testsupport.WantContains(t, err, "creating workload policy projects/proj/regions/us-central1/resourcePolicies/slice-policy: operation operation-quota failed: Quota")

	c.InsertErr = errors.New("refused")
	if _, err := pollingPolicies(c).Create(t.Context(), validPolicy(), func(string) { started++ }); err == nil || started != 1 {
		t.Errorf("a refused insert: %v, started %d times, want an error and no start", err, started)
	}
}

// InsertRunning reads an unfinished insert: running, ended, or gone from
// Compute (ended long ago).
func TestInsertRunning(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	c.RegionOperations = map[string]*enginetest.Operation{
		"proj/us-central1/op-running": {OpName: "op-running", DoneAt: 1 << 30},
		"proj/us-central1/op-done":    enginetest.DoneOperation("op-done"),
	}
	e := pollingPolicies(c)
	for _, tc := range []struct {
		op      string
		running bool
		status  string
	}{{"op-running", true, "RUNNING"}, {"op-done", false, "DONE"}, {"op-unknown", false, "gone"}} {
		running, status, err := e.InsertRunning(t.Context(), testProject, testRegion, tc.op)
		if err != nil || running != tc.running || status != tc.status {
			t.Errorf("InsertRunning(%s) = %v, %q, %v; want %v, %q", tc.op, running, status, err, tc.running, tc.status)
		}
	}
}

// A delete after an unfinished insert deletes the policy when it exists;
// when it does not exist yet, it waits for the insert to end and deletes
// what the insert made.
func TestDeleteAfterInsert(t *testing.T) {
	t.Parallel()
	t.Run("the policy exists", func(t *testing.T) {
		t.Parallel()
		c := enginetest.NewCompute()
		e := pollingPolicies(c)
		if _, err := e.Create(t.Context(), validPolicy(), nil); err != nil {
			t.Fatal(err)
		}
		// Never read: the policy exists, whatever its insert does.
		if err := e.DeleteAfterInsert(t.Context(), testProject, testRegion, "slice-policy", heldInsert); err != nil || len(c.Deleted) != 1 {
			t.Errorf("DeleteAfterInsert = %v after %d deletes, want one delete", err, len(c.Deleted))
		}
	})
	t.Run("the insert is still running", func(t *testing.T) {
		t.Parallel()
		c := enginetest.NewCompute()
		insert := &enginetest.Operation{OpName: heldInsert, DoneAt: 3}
		c.RegionOperations = map[string]*enginetest.Operation{"proj/us-central1/" + heldInsert: insert}
		// The insert makes the policy when it ends.
		e := New(c, func(ctx context.Context, op kernel.Operation, err error) error {
			if err := pollingPolicies(c).wait(ctx, op, err); err != nil || op.Name() != heldInsert {
				return err
			}
			_, err = pollingPolicies(c).Create(ctx, validPolicy(), nil)
			return err
		})
		if err := e.DeleteAfterInsert(t.Context(), testProject, testRegion, "slice-policy", heldInsert); err != nil {
			t.Fatalf("DeleteAfterInsert: %v", err)
		}
		if insert.Polls != 3 || len(c.Deleted) != 2 || len(c.Policies) != 0 {
			t.Errorf("after %d polls of the insert and %d deletes %d policies are left, want the insert waited for and what it made deleted",
				insert.Polls, len(c.Deleted), len(c.Policies))
		}
	})
	t.Run("the insert fails", func(t *testing.T) {
		t.Parallel()
		c := enginetest.NewCompute()
		c.RegionOperations = map[string]*enginetest.Operation{"proj/us-central1/" + heldInsert: {OpName: heldInsert, DoneAt: 2, Failure: "quota"}}
		if err := pollingPolicies(c).DeleteAfterInsert(t.Context(), testProject, testRegion, "slice-policy", heldInsert); err != nil || len(c.Deleted) != 1 {
			t.Errorf("DeleteAfterInsert = %v after %d deletes, want nil after one: the insert made nothing", err, len(c.Deleted))
		}
	})
	t.Run("the insert outlives the delete", func(t *testing.T) {
		t.Parallel()
		c := enginetest.NewCompute()
		c.RegionOperations = map[string]*enginetest.Operation{"proj/us-central1/" + heldInsert: {OpName: heldInsert, OpType: "insert", DoneAt: 1 << 30}}
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		err := pollingPolicies(c).DeleteAfterInsert(ctx, testProject, testRegion, "slice-policy", heldInsert)
		testsupport.WantContains(t, err, "waiting for its insert to end first", "Compute operation "+heldInsert+" (insert), which was RUNNING")
	})
}
