package nodepool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// gkeRefusal is GKE's answer to a delete of a node pool while the
// operation op is doing ("creating", "deleting") it (issues #975 and
// #10366 of hashicorp/terraform-provider-google).
func gkeRefusal(op, doing string) error {
	return &googleapi.Error{Code: http.StatusBadRequest, Message: fmt.Sprintf(
		"Operation %s is currently %s a node pool for cluster c. Please wait and try again once it is done.", op, doing)}
}

// infoLogs collects the messages and operations of the Info logs.
type infoLogs struct {
	mu    sync.Mutex
	lines []string
	// onWait, when set, is called at the log of the start of a wait.
	onWait func()
}

func (l *infoLogs) Write(p []byte) (int, error) {
	var entry struct {
		Level     string `json:"@level"`
		Message   string `json:"@message"`
		Operation string `json:"operation"`
	}
	if json.Unmarshal(p, &entry) == nil && entry.Level == "info" {
		l.mu.Lock()
		l.lines = append(l.lines, entry.Message+" ["+entry.Operation+"]")
		l.mu.Unlock()
		if l.onWait != nil && strings.Contains(entry.Message, "waiting for the operation") {
			l.onWait()
		}
	}
	return len(p), nil
}

func (l *infoLogs) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// A delete that GKE refuses while an operation on the pool runs waits for
// the operation, read at the waiter's cadence, and is sent again once it
// ends, however it ends; the wait is logged, naming the operation.
func TestDeleteWaitsForTheRunningOperation(t *testing.T) {
	t.Parallel()
	const running = "operation-1516271572246-49958a11"
	opPath := "projects/proj/locations/us-central1/operations/" + running
	for _, tc := range []struct {
		name       string
		refusals   []error
		ops        []*container.Operation
		wantEvents []string
	}{
		{name: "its create runs", refusals: []error{gkeRefusal(running, "creating")}, ops: []*container.Operation{
			{Name: running, OperationType: "CREATE_NODE_POOL", Status: "RUNNING"},
			{Name: running, OperationType: "CREATE_NODE_POOL", Status: "DONE"},
		}, wantEvents: []string{"delete", "getOperation", "getOperation", "delete"}},
		{name: "its create fails", refusals: []error{gkeRefusal(running, "creating")}, ops: []*container.Operation{
			{Name: running, OperationType: "CREATE_NODE_POOL", Status: "DONE", Error: &container.Status{Code: 13, Message: "no capacity"}},
		}, wantEvents: []string{"delete", "getOperation", "delete"}},
		{name: "a delete runs, and deletes it", refusals: []error{gkeRefusal(running, "deleting"), enginetest.NotFound(testPoolID)}, ops: []*container.Operation{
			{Name: running, OperationType: "DELETE_NODE_POOL", Status: "DONE"},
		}, wantEvents: []string{"delete", "getOperation", "delete"}},
		{name: "refused twice", refusals: []error{gkeRefusal(running, "creating"), gkeRefusal(running, "creating")}, ops: []*container.Operation{
			{Name: running, OperationType: "CREATE_NODE_POOL", Status: "DONE"},
		}, wantEvents: []string{"delete", "getOperation", "delete", "getOperation", "delete"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := enginetest.NewGKE()
			g.Pools[testPoolID] = storedPool("projects/proj/reservations/res/reservationBlocks/block-1")
			g.DeleteRefusals, g.Ops = tc.refusals, tc.ops
			logs := &infoLogs{}
			ctx := tflogtest.RootLogger(t.Context(), logs)
			if err := newTestPools(enginetest.NewCompute(), g, nil).Delete(ctx, testPoolID); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if got := g.EventLog(); !slices.Equal(got, tc.wantEvents) {
				t.Errorf("calls %v, want %v", got, tc.wantEvents)
			}
			for _, name := range g.OperationNames() {
				if name != opPath {
					t.Errorf("read operation %q, want %q", name, opPath)
				}
			}
			if strings.HasPrefix(tc.name, "its create") {
				if _, ok := g.Pools[testPoolID]; ok {
					t.Error("the pool is still there")
				}
			}
			if !strings.Contains(logs.all(), "waiting for the operation to end ["+running+"]") ||
				!strings.Contains(logs.all(), "The operation on the sub-block node pool ended: deleting it ["+running+"]") {
				t.Errorf("the Info logs do not show the wait for %s:\n%s", running, logs.all())
			}
		})
	}
}

// A delete whose timeout ends while the operation it waits for still runs
// fails, naming the operation and saying to run the destroy again; it
// never sent the delete again.
func TestDeleteGivesUpOnARunningOperation(t *testing.T) {
	t.Parallel()
	const running = "operation-1516271572246-49958a11"
	g := enginetest.NewGKE()
	g.Pools[testPoolID] = storedPool("projects/proj/reservations/res/reservationBlocks/block-1")
	g.DeleteRefusals = []error{gkeRefusal(running, "creating")}
	g.Ops = []*container.Operation{{Name: running, OperationType: "CREATE_NODE_POOL", Status: "RUNNING"}}
	// The delete's timeout ends once the wait has begun: no clock.
	ctx, expire := testsupport.Expirable(t.Context())
	ctx = tflogtest.RootLogger(ctx, &infoLogs{onWait: expire})
	err := newTestPools(enginetest.NewCompute(), g, nil).Delete(ctx, testPoolID)
	testsupport.WantContains(t, err, "deleting node pool "+testPoolID+": GKE refuses to delete it while operation "+running+" is creating a node pool for cluster c, and the delete's timeout ended first",
		"waiting for operation "+running, "Run `terraform destroy` (or the apply) again once the operation is done")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want one wrapping %v", err, context.DeadlineExceeded)
	}
	if n := g.Count("delete"); n != 1 {
		t.Errorf("sent %d deletes, want 1: %v", n, g.EventLog())
	}
	if _, ok := g.Pools[testPoolID]; !ok {
		t.Error("the pool is gone")
	}
}

// Only GKE's refusal for a running operation is waited on: another 400
// is the delete's error.
func TestRunningOperation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err         error
		name, doing string
	}{
		{gkeRefusal("operation-1", "creating"), "operation-1", "creating a node pool for cluster c"},
		{gkeRefusal("projects/p/locations/l/operations/operation-2", "deleting"), "operation-2", "deleting a node pool for cluster c"},
		{&googleapi.Error{Code: http.StatusBadRequest, Message: "Operation operation-3 is currently upgrading cluster c. Please wait and try again once it is done."},
			"operation-3", "upgrading cluster c"},
		{&googleapi.Error{Code: http.StatusBadRequest, Message: "Cluster is running incompatible operation"}, "", ""},
		{&googleapi.Error{Code: http.StatusConflict, Message: "Operation operation-4 is currently creating a node pool for cluster c."}, "", ""},
		{nil, "", ""},
	} {
		got, ok := runningOperation(tc.err)
		if ok != (tc.name != "") || got.name != tc.name || got.doing != tc.doing {
			t.Errorf("runningOperation(%v) = %+v, %v; want %q %q", tc.err, got, ok, tc.name, tc.doing)
		}
	}
}
