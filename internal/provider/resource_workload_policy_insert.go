package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/workloadpolicy"
)

// A workload policy whose create did not see its insert end (its timeout
// ran out, Terraform was interrupted, or a read after it failed) is in
// the state, as it is when it exists and as planned while its insert
// runs, with the insert's operation in the resource's private state
// (issue 56). Read keeps it while the insert runs, even though Compute
// does not have it yet; delete, when it does not find it, waits for the
// insert to end and deletes what it made. Nothing the insert makes is left
// behind without Terraform knowing it.

// privateInsertOperation is the private state key of the insert's
// operation, {"name": "operation-…"}.
const privateInsertOperation = "insert_operation"

// privateState is a resource's private state (the framework's
// ProviderData, which the requests and responses carry).
type privateState interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

type insertOperationValue struct {
	Name string `json:"name"`
}

// setInsertOperation records the insert's operation op in p, or removes
// it when op is "".
func setInsertOperation(ctx context.Context, p privateState, op string) diag.Diagnostics {
	var value []byte
	if op != "" {
		value, _ = json.Marshal(insertOperationValue{Name: op})
	}
	return p.SetKey(ctx, privateInsertOperation, value)
}

// insertOperation is the insert's operation p records, or "".
func insertOperation(ctx context.Context, p privateState) string {
	raw, _ := p.GetKey(ctx, privateInsertOperation)
	var v insertOperationValue
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v.Name
}

// insertStarted records a policy as planned as soon as Compute accepted
// its insert, op, before the wait: a failure or timeout then leaves it in
// the state (tainted), an interrupt untainted (insertUnfinished).
func insertStarted(ctx context.Context, spec workloadpolicy.Spec, m workloadPolicyModel, op string, resp *resource.CreateResponse) {
	resp.Diagnostics.Append(resp.State.Set(ctx, policyModel(&workloadpolicy.Policy{Spec: spec}, m.Timeouts))...)
	setIdentity(ctx, resp.Identity, policyIdentity(spec.Project, spec.Region, spec.Name), &resp.Diagnostics)
	resp.Diagnostics.Append(setInsertOperation(ctx, resp.Private, op)...)
}

// insertUnfinished ends a create that failed after Compute accepted the
// insert op. An insert that ended in failure made nothing: the policy
// leaves the state. Otherwise the policy is recorded as it is (or as
// planned while the insert runs) by the interrupted-create protocol, and
// the error says where it stands.
func insertUnfinished(ctx context.Context, c *handlerCall[workloadPolicyModel], spec workloadpolicy.Spec, op string, err error, resp *resource.CreateResponse) {
	if isA[*kernel.OperationError](err) {
		resp.State.RemoveResource(ctx)
		resp.Diagnostics.Append(setInsertOperation(ctx, resp.Private, "")...)
		addError(&resp.Diagnostics, err, subjectPolicy, "Cannot Create Workload Policy")
		return
	}
	var stands string
	progress, warned := recordInterrupted(ctx, "Workload Policy", spec.Path(), func(rctx context.Context) (kernel.Progress, error) {
		got, p, why, rerr := policyStanding(rctx, c.Engine, spec, op)
		if got != nil {
			resp.Diagnostics.Append(resp.State.Set(ctx, policyModel(got, c.Model.Timeouts))...)
		}
		stands = why
		return p, rerr
	}, &resp.Diagnostics)
	switch {
	case warned:
	case c.timedOut(ctx):
		keep := "the next apply then keeps it as it is"
		if stands == "" {
			stands = existsAs(progress.State)
		} else {
			keep += ", once its insert has made it"
		}
		addCreateTimedOut(&resp.Diagnostics, err, subjectPolicy, c.timeout, timedOutCreate{
			object: "Workload policy " + spec.Path(), stands: stands, keep: keep,
		})
	default:
		addError(&resp.Diagnostics, err, subjectPolicy, "Cannot Create Workload Policy")
	}
}

// policyStanding is where a policy whose insert op a create did not see
// end stands: the policy when it exists, its progress, and, when it does
// not exist, why ("does not exist yet (its insert, operation …, is
// RUNNING)").
func policyStanding(ctx context.Context, e *engine.Engine, spec workloadpolicy.Spec, op string) (*workloadpolicy.Policy, kernel.Progress, string, error) {
	got, err := e.Policies().Read(ctx, spec.Project, spec.Region, spec.Name)
	if err == nil {
		return got, kernel.Progress{State: got.Status, CanFinish: true}, "", nil
	}
	if !errors.Is(err, kernel.ErrNotFound) {
		return nil, kernel.Progress{}, "", err
	}
	running, status, err := e.Policies().InsertRunning(ctx, spec.Project, spec.Region, op)
	if err != nil {
		return nil, kernel.Progress{}, "", err
	}
	return nil, kernel.Progress{State: "its insert " + status, CanFinish: running, Waiting: running},
		fmt.Sprintf("does not exist yet (its insert, operation %s, is %s)", op, status), nil
}

// insertStillRunning says, for a policy that Compute does not have,
// whether the insert its private state records is still running: the
// policy then stays in the state, with a warning. A failed read of the
// operation keeps it too, with the error.
func insertStillRunning(ctx context.Context, e *engine.Engine, id, project, region string, req resource.ReadRequest, resp *resource.ReadResponse) bool {
	op := insertOperation(ctx, req.Private)
	if op == "" {
		return false
	}
	running, status, err := e.Policies().InsertRunning(ctx, project, region, op)
	if err != nil {
		addError(&resp.Diagnostics, err, subjectPolicy, "Cannot Read Workload Policy")
		return true
	}
	if !running {
		return false
	}
	resp.Diagnostics.AddWarning("Workload Policy Not Created Yet", fmt.Sprintf(
		"Workload policy %s does not exist yet: its insert, operation %s, is %s. It stays in the state while the insert runs; "+
			"`terraform destroy` waits for the insert to end and deletes what it made.", id, op, status))
	return true
}
