package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
)

func (r *subBlockNodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c := begin[subBlockNodePoolModel](ctx, r.provider, req.Plan, &resp.Diagnostics, opCreate, defaultNodePoolCreateTimeout)
	if c == nil {
		return
	}
	defer c.done()
	m := c.Model
	spec, diags := m.spec(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	pool, err := c.Engine.NodePools().Create(c.Ctx, spec, func(id string) {
		// Record the pool before any wait: a failure or a timeout then
		// leaves it in the state (tainted), an interrupt (not tainted,
		// see recordFailedCreate), never orphaned.
		m.ID = types.StringValue(id)
		m.ReservationPath = types.StringValue(spec.Target.Path())
		m.SubBlock = types.StringValue(spec.Target.SubBlock)
		m.Status, m.PartitionID, m.PartitionState = types.StringValue(nodepool.StatusProvisioning), types.StringNull(), types.StringNull()
		m.NodeNames, m.ReadyNodeCount = types.ListValueMust(types.StringType, nil), types.Int64Value(0)
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		setIdentity(ctx, resp.Identity, poolIdentityModel{Project: m.Project, Location: m.Location, Cluster: m.Cluster, Name: m.Name}, &resp.Diagnostics)
	})
	if err != nil {
		// A create refused before anything was made (another pool of the
		// name, another creator at work) records nothing.
		if refused(err) || m.ID.IsNull() || m.ID.IsUnknown() {
			addError(&resp.Diagnostics, err, subjectNodePool, "Cannot Create Sub-Block Node Pool")
			return
		}
		progress, warned := r.recordFailedCreate(ctx, c.Engine, m, resp)
		switch {
		case warned:
		case c.timedOut(ctx):
			addCreateTimedOut(&resp.Diagnostics, err, subjectNodePool, c.timeout, timedOutCreate{
				object: "Node pool " + m.ID.ValueString(), stands: existsAs(progress.State),
				keep: "while it is still provisioning, the next apply then waits for it to finish (within timeouts.create, which you may raise) " +
					"instead of recreating it",
			})
		default:
			addError(&resp.Diagnostics, err, subjectNodePool, "Cannot Create Sub-Block Node Pool")
		}
		return
	}
	if pool.Adopted != "" {
		resp.Diagnostics.AddWarning("Existing Node Pool Adopted", pool.Adopted)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, poolModel(pool, m))...)
	setIdentity(ctx, resp.Identity, poolIdentity(pool), &resp.Diagnostics)
}

// recordFailedCreate records a pool whose create failed or was interrupted
// after GKE accepted it, as it is now (ERROR after a failed operation), by
// the interrupted-create protocol: an interrupted pool that can still
// finish is not tainted, and the next apply waits for it. It returns
// where the pool stands and whether it warned of an interrupt.
func (r *subBlockNodePoolResource) recordFailedCreate(ctx context.Context, e *engine.Engine, m subBlockNodePoolModel, resp *resource.CreateResponse) (kernel.Progress, bool) {
	return recordInterrupted(ctx, "Node Pool", m.ID.ValueString(), func(rctx context.Context) (kernel.Progress, error) {
		pool, err := e.NodePools().Read(rctx, m.ID.ValueString())
		if err != nil {
			return kernel.Progress{}, err
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, poolModel(pool, m))...)
		return nodepool.Progress(pool.Status), nil
	}, &resp.Diagnostics)
}

func (r *subBlockNodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c := begin[subBlockNodePoolModel](ctx, r.provider, req.State, &resp.Diagnostics, opNone, 0)
	if c == nil {
		return
	}
	m := c.Model
	pool, err := c.Engine.NodePools().Read(ctx, m.ID.ValueString(), nodepool.SummariseUnhealthy)
	if errors.Is(err, kernel.ErrNotFound) {
		// Terraform shows it in the plan as a create: no warning needed.
		tflog.Info(ctx, "Node pool gone; removing it from the state", map[string]any{"node_pool": m.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		setIdentity(ctx, resp.Identity, poolIdentityOfID(m.ID.ValueString()), &resp.Diagnostics) // the framework wants one even so
		return
	}
	if err != nil {
		addError(&resp.Diagnostics, err, subjectNodePool, "Cannot Read Sub-Block Node Pool")
		return
	}
	if pool.UnhealthySummary != "" {
		// One summary of every unhealthy partition per plan, not one
		// warning per pool.
		resp.Diagnostics.AddWarning("Partitions Not Healthy", pool.UnhealthySummary)
	}
	setRefreshed(ctx, &resp.State, m, poolModel(pool, m), &resp.Diagnostics)
	setIdentity(ctx, resp.Identity, poolIdentity(pool), &resp.Diagnostics)
}

// Update changes the nodes' labels and taints, the pool's GCP labels and
// its auto-repair and auto-upgrade in place, as GKE does; waits and
// timeouts touch nothing. Every other input forces replacement.
func (r *subBlockNodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state subBlockNodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Set even when Terraform keeps none (before 1.12): the framework wants one.
	setIdentity(ctx, resp.Identity, poolIdentityOfID(state.ID.ValueString()), &resp.Diagnostics)
	from, diags := state.spec(ctx)
	resp.Diagnostics.Append(diags...)
	to, diags := plan.spec(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.provisioning() {
		// An interrupted create: wait for it, within the create timeout.
		c := begin[subBlockNodePoolModel](ctx, r.provider, req.Plan, &resp.Diagnostics, opCreate, defaultNodePoolCreateTimeout)
		if c == nil {
			return
		}
		defer c.done()
		pool, err := c.Engine.NodePools().Resume(c.Ctx, from)
		if err != nil {
			addError(&resp.Diagnostics, err, subjectNodePool, "Node Pool Did Not Finish")
			return
		}
		state = poolModel(pool, state)
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	}
	if from.SameInPlaceSettings(to) {
		state.WaitFor, state.Timeouts = plan.WaitFor, plan.Timeouts
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		return
	}
	c := begin[subBlockNodePoolModel](ctx, r.provider, req.Plan, &resp.Diagnostics, opUpdate, defaultNodePoolUpdateTimeout)
	if c == nil {
		return
	}
	defer c.done()
	pool, err := c.Engine.NodePools().Update(c.Ctx, from, to)
	if err != nil {
		addError(&resp.Diagnostics, err, subjectNodePool, "Cannot Update Sub-Block Node Pool")
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, poolModel(pool, plan))...)
}

func (r *subBlockNodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := begin[subBlockNodePoolModel](ctx, r.provider, req.State, &resp.Diagnostics, opDelete, defaultNodePoolDeleteTimeout)
	if c == nil {
		return
	}
	defer c.done()
	if err := c.Engine.NodePools().Delete(c.Ctx, c.Model.ID.ValueString()); err != nil {
		addError(&resp.Diagnostics, err, subjectNodePool, "Cannot Delete Sub-Block Node Pool")
	}
}

// ImportState takes the GKE node pool ID, or an identity.
func (r *subBlockNodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" {
		var id poolIdentityModel
		if !fromIdentity(ctx, req.Identity, &id, &resp.Diagnostics) {
			return
		}
		var err error
		if req.ID, err = poolIDFromIdentity(id, configOf(r.provider)); err != nil {
			resp.Diagnostics.AddError("Invalid Import Identity", err.Error())
			return
		}
	}
	id, err := nodepool.CanonicalID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("wait_for_partition"), nodepool.WaitLabelled)...)
}
