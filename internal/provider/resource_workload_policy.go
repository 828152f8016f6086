package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
	"github.com/dynslice/terraform-provider-gke/internal/engine/workloadpolicy"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

var (
	_ resource.Resource                   = (*workloadPolicyResource)(nil)
	_ resource.ResourceWithConfigure      = (*workloadPolicyResource)(nil)
	_ resource.ResourceWithImportState    = (*workloadPolicyResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*workloadPolicyResource)(nil)
	_ resource.ResourceWithValidateConfig = (*workloadPolicyResource)(nil)
	_ resource.ResourceWithIdentity       = (*workloadPolicyResource)(nil)
)

// NewWorkloadPolicyResource returns gke_workload_policy.
func NewWorkloadPolicyResource() resource.Resource { return &workloadPolicyResource{} }

type workloadPolicyResource struct{ provider *configured }

type workloadPolicyModel struct {
	ID                      types.String   `tfsdk:"id"`
	Name                    types.String   `tfsdk:"name"`
	Project                 types.String   `tfsdk:"project"`
	Region                  types.String   `tfsdk:"region"`
	Type                    types.String   `tfsdk:"type"`
	AcceleratorTopology     types.String   `tfsdk:"accelerator_topology"`
	AcceleratorTopologyMode types.String   `tfsdk:"accelerator_topology_mode"`
	Description             types.String   `tfsdk:"description"`
	SelfLink                types.String   `tfsdk:"self_link"`
	Timeouts                timeouts.Value `tfsdk:"timeouts"`
}

func (m workloadPolicyModel) timeoutsValue() timeouts.Value { return m.Timeouts }

// Default timeouts: Compute Engine inserts and deletes a resource policy
// in seconds.
const (
	defaultPolicyCreateTimeout = 20 * time.Minute
	defaultPolicyDeleteTimeout = 20 * time.Minute
)

func (r *workloadPolicyResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workload_policy"
}

func (r *workloadPolicyResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	replaceKeep := []planmodifier.String{stringplanmodifier.RequiresReplace(), stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A workload policy: the Compute Engine resource policy that places a TPU7x sub-block node pool. Dynamic slicing needs " +
			"`HIGH_THROUGHPUT`, accelerator topology `4x4x4` and mode `PROVISION_ONLY`, which are the defaults, so that GKE provisions the " +
			"nodes without forming ICI links (the Slice forms them). Resource policies are immutable: every change replaces the policy, " +
			"which GKE refuses while a node pool uses it.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "`projects/{project}/regions/{region}/resourcePolicies/{name}`.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the policy: 1-63 lower-case letters, digits or hyphens, starting with a letter. Changing it replaces the policy.",
				PlanModifiers:       replace,
				Validators:          []validator.String{stringvalidator.RegexMatches(workloadpolicy.ResourceNameRE, "must be 1-63 lower-case letters, digits or hyphens, start with a letter and not end with a hyphen")},
			},
			"project": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Project of the policy. Default: the provider's `project`. Changing it replaces the policy.",
				PlanModifiers:       replaceKeep,
			},
			"region": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Region of the policy, where the reservation's zone is. Default: the region of the provider's `location`. Changing it replaces the policy.",
				Validators:          []validator.String{LocationValidator(location.RegionOnly)},
				PlanModifiers:       replaceKeep,
			},
			"type": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Placement type: " + quoted(workloadpolicy.Types) + ". Default `HIGH_THROUGHPUT`, which dynamic slicing needs. Changing it replaces the policy.",
				PlanModifiers:       replaceKeep,
				Validators:          []validator.String{stringvalidator.OneOf(workloadpolicy.Types...)},
			},
			"accelerator_topology": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Accelerator topology of each node pool placed by the policy, only with `HIGH_THROUGHPUT`. Default `" + topology.PartitionTopology +
					"` with `HIGH_THROUGHPUT` (one sub-block: dynamic slicing always uses it), none otherwise. Changing it replaces the policy.",
				PlanModifiers: replaceKeep,
			},
			"accelerator_topology_mode": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "How the accelerator topology is provisioned: " + quoted(workloadpolicy.TopologyModes) + ". `PROVISION_ONLY` provisions the nodes " +
					"without forming ICI links and starts incremental provisioning; it needs `accelerator_topology`. Default `PROVISION_ONLY` when there is an " +
					"accelerator topology. Changing it replaces the policy.",
				PlanModifiers: replaceKeep,
				Validators:    []validator.String{stringvalidator.OneOf(workloadpolicy.TopologyModes...)},
			},
			"description": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Free text. Changing it replaces the policy.",
				PlanModifiers:       replace,
			},
			"self_link": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "URL of the policy, the form GKE's placement policy also accepts.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeoutsBlock(ctx, timeouts.Opts{Create: true, Delete: true, CreateDescription: "Default 20m.", DeleteDescription: "Default 20m."}),
		},
	}
}

// IdentitySchema implements resource.ResourceWithIdentity.
func (r *workloadPolicyResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = policyIdentitySchema()
}

func (r *workloadPolicyResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.provider = c
}

// withDefaults fills the engine's documented defaults into known-but-null
// inputs.
func (m *workloadPolicyModel) withDefaults() {
	d := workloadpolicy.Spec{
		Type: m.Type.ValueString(), AcceleratorTopology: m.AcceleratorTopology.ValueString(), AcceleratorTopologyMode: m.AcceleratorTopologyMode.ValueString(),
	}.WithDefaults()
	for _, f := range []struct {
		field *types.String
		value string
	}{{&m.Type, d.Type}, {&m.AcceleratorTopology, d.AcceleratorTopology}, {&m.AcceleratorTopologyMode, d.AcceleratorTopologyMode}} {
		if f.field.IsNull() && f.value != "" {
			*f.field = types.StringValue(f.value)
		}
	}
}

func (m workloadPolicyModel) spec() workloadpolicy.Spec {
	return workloadpolicy.Spec{
		Project: m.Project.ValueString(), Region: m.Region.ValueString(), Name: m.Name.ValueString(),
		Description: m.Description.ValueString(), Type: m.Type.ValueString(),
		AcceleratorTopology: m.AcceleratorTopology.ValueString(), AcceleratorTopologyMode: m.AcceleratorTopologyMode.ValueString(),
	}
}

// ValidateConfig applies the documented workload policy rules at plan time.
func (r *workloadPolicyResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m workloadPolicyModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.Name.IsUnknown() || m.Type.IsUnknown() || m.AcceleratorTopology.IsUnknown() || m.AcceleratorTopologyMode.IsUnknown() {
		return
	}
	m.withDefaults()
	spec := m.spec()
	if !workloadpolicy.ResourceNameRE.MatchString(spec.Name) || !slices.Contains(workloadpolicy.Types, spec.Type) ||
		(spec.AcceleratorTopologyMode != "" && !slices.Contains(workloadpolicy.TopologyModes, spec.AcceleratorTopologyMode)) {
		return // the attribute's own validator says so: one error for one mistake
	}
	if err := workloadpolicy.Check(spec); err != nil {
		resp.Diagnostics.AddError("Invalid Workload Policy", err.Error())
		return
	}
	if err := workloadpolicy.CheckDynamicSlicing(spec); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("accelerator_topology"), "Invalid Workload Policy", err.Error())
	}
}

// ModifyPlan fills the defaults (project and region from the provider) so
// that the plan shows them.
func (r *workloadPolicyResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	var m workloadPolicyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var cfg workloadPolicyModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	// Computed inputs the user left out are unknown in the plan; treat
	// them as null for the defaults, unless the state already has them.
	for _, f := range []struct {
		plan   *types.String
		config types.String
	}{
		{&m.Type, cfg.Type}, {&m.AcceleratorTopology, cfg.AcceleratorTopology}, {&m.AcceleratorTopologyMode, cfg.AcceleratorTopologyMode},
		{&m.Project, cfg.Project}, {&m.Region, cfg.Region},
	} {
		if f.config.IsNull() && f.plan.IsUnknown() {
			*f.plan = types.StringNull()
		}
	}
	m.withDefaults()
	if r.provider != nil {
		defaults := r.provider.Config()
		if m.Project.IsNull() && defaults.Project != "" {
			m.Project = types.StringValue(defaults.Project)
		}
		if m.Region.IsNull() && defaults.Location != "" {
			m.Region = types.StringValue(location.RegionOf(defaults.Location))
		}
	}
	if m.Project.IsNull() {
		m.Project = types.StringUnknown()
	}
	if m.Region.IsNull() {
		m.Region = types.StringUnknown()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, m)...)
}

func (r *workloadPolicyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c := begin[workloadPolicyModel](ctx, r.provider, req.Plan, &resp.Diagnostics, opCreate, defaultPolicyCreateTimeout)
	if c == nil {
		return
	}
	defer c.done()
	m, e := c.Model, c.Engine
	if m.Project.ValueString() == "" || m.Region.ValueString() == "" {
		resp.Diagnostics.AddError("Missing Project or Region", "set project and region on the resource, or project and location on the provider")
		return
	}
	spec, insert := m.spec(), ""
	policy, err := e.Policies().Create(c.Ctx, spec, func(op string) {
		insert = op
		insertStarted(ctx, spec, m, op, resp)
	})
	if err != nil && insert == "" {
		addError(&resp.Diagnostics, err, subjectPolicy, "Cannot Create Workload Policy")
		return
	}
	if err != nil {
		insertUnfinished(ctx, c, spec, insert, err, resp)
		return
	}
	resp.Diagnostics.Append(setInsertOperation(ctx, resp.Private, "")...)
	resp.Diagnostics.Append(resp.State.Set(ctx, policyModel(policy, m.Timeouts))...)
	setIdentity(ctx, resp.Identity, policyIdentity(policy.Project, policy.Region, policy.Name), &resp.Diagnostics)
}

func (r *workloadPolicyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c := begin[workloadPolicyModel](ctx, r.provider, req.State, &resp.Diagnostics, opNone, 0)
	if c == nil {
		return
	}
	m, e := c.Model, c.Engine
	project, region, name, err := workloadpolicy.ParseID(m.ID.ValueString(), m.Project.ValueString(), m.Region.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Invalid Workload Policy ID", err.Error())
		return
	}
	policy, err := e.Policies().Read(ctx, project, region, name)
	if errors.Is(err, kernel.ErrNotFound) && insertStillRunning(ctx, e, m.ID.ValueString(), project, region, req, resp) {
		setIdentity(ctx, resp.Identity, policyIdentity(project, region, name), &resp.Diagnostics)
		return
	}
	if errors.Is(err, kernel.ErrNotFound) {
		// Terraform shows it in the plan as a create: no warning needed.
		tflog.Info(ctx, "Workload policy gone; removing it from the state", map[string]any{"workload_policy": m.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		setIdentity(ctx, resp.Identity, policyIdentity(project, region, name), &resp.Diagnostics) // the framework wants one even so
		return
	}
	if err != nil {
		addError(&resp.Diagnostics, err, subjectPolicy, "Cannot Read Workload Policy")
		return
	}
	// It exists: an insert the create did not see end no longer matters.
	resp.Diagnostics.Append(setInsertOperation(ctx, resp.Private, "")...)
	resp.Diagnostics.Append(resp.State.Set(ctx, policyModel(policy, m.Timeouts))...)
	setIdentity(ctx, resp.Identity, policyIdentity(policy.Project, policy.Region, policy.Name), &resp.Diagnostics)
}

// Update is never called with a change: every input forces replacement.
func (r *workloadPolicyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m workloadPolicyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	// Set even when Terraform keeps none (before 1.12): the framework wants one.
	setIdentity(ctx, resp.Identity, policyIdentity(m.Project.ValueString(), m.Region.ValueString(), m.Name.ValueString()), &resp.Diagnostics)
}

func (r *workloadPolicyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := begin[workloadPolicyModel](ctx, r.provider, req.State, &resp.Diagnostics, opDelete, defaultPolicyDeleteTimeout)
	if c == nil {
		return
	}
	defer c.done()
	m, e := c.Model, c.Engine
	// A policy whose insert the create did not see end is deleted once the
	// insert has made it.
	insert := insertOperation(ctx, req.Private)
	if err := e.Policies().DeleteAfterInsert(c.Ctx, m.Project.ValueString(), m.Region.ValueString(), m.Name.ValueString(), insert); err != nil {
		addError(&resp.Diagnostics, err, subjectPolicy, "Cannot Delete Workload Policy")
	}
}

var policyIDHint = regexp.MustCompile(`resourcePolicies/`)

// ImportState takes a self link, projects/P/regions/R/resourcePolicies/N
// or a name (with the provider's project and location), or an identity.
func (r *workloadPolicyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" {
		var id policyIdentityModel
		if !fromIdentity(ctx, req.Identity, &id, &resp.Diagnostics) {
			return
		}
		var err error
		if req.ID, err = policyIDFromIdentity(id, configOf(r.provider)); err != nil {
			resp.Diagnostics.AddError("Invalid Import Identity", err.Error())
			return
		}
	}
	var project, region string
	if r.provider != nil && !policyIDHint.MatchString(req.ID) {
		project, region = r.provider.Config().Project, location.RegionOf(r.provider.Config().Location)
	}
	project, region, name, err := workloadpolicy.ParseID(req.ID, project, region)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", err.Error())
		return
	}
	m := workloadPolicyModel{
		ID:      types.StringValue(fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", project, region, name)),
		Project: types.StringValue(project), Region: types.StringValue(region), Name: types.StringValue(name),
		Type: types.StringNull(), AcceleratorTopology: types.StringNull(), AcceleratorTopologyMode: types.StringNull(),
		Description: types.StringNull(), SelfLink: types.StringNull(), Timeouts: nullPolicyTimeouts(),
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// nullPolicyTimeouts is an unset timeouts block.
func nullPolicyTimeouts() timeouts.Value {
	return timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "delete": types.StringType})}
}

// policyModel is the state of a policy as read, with the timeouts as
// configured.
func policyModel(p *workloadpolicy.Policy, t timeouts.Value) workloadPolicyModel {
	if t.IsNull() || t.IsUnknown() {
		t = nullPolicyTimeouts()
	}
	orNull := orNullString
	return workloadPolicyModel{
		ID:                      types.StringValue(p.Path()),
		Name:                    types.StringValue(p.Name),
		Project:                 types.StringValue(p.Project),
		Region:                  types.StringValue(p.Region),
		Type:                    orNull(p.Type),
		AcceleratorTopology:     orNull(p.AcceleratorTopology),
		AcceleratorTopologyMode: orNull(p.AcceleratorTopologyMode),
		Description:             orNull(p.Description),
		SelfLink:                orNull(p.SelfLink),
		Timeouts:                t,
	}
}
