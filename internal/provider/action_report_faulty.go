package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/day2"
	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

var (
	_ action.Action                   = (*reportFaultyAction)(nil)
	_ action.ActionWithValidateConfig = (*reportFaultyAction)(nil)
)

// defaultReportFaultyTimeout bounds gke_report_faulty unless its timeout
// says otherwise: a report's operation is short.
const defaultReportFaultyTimeout = 10 * time.Minute

// reportFaultyAction is gke_report_faulty.
type reportFaultyAction struct{ provider *configured }

type reportFaultyModel struct {
	Project            types.String `tfsdk:"project"`
	Zone               types.String `tfsdk:"zone"`
	Reservation        types.String `tfsdk:"reservation"`
	Block              types.String `tfsdk:"reservation_block"`
	SubBlock           types.String `tfsdk:"sub_block"`
	Instance           types.String `tfsdk:"instance"`
	Slot               types.String `tfsdk:"slot"`
	FailureComponent   types.String `tfsdk:"failure_component"`
	DisruptionSchedule types.String `tfsdk:"disruption_schedule"`
	FaultReasons       types.List   `tfsdk:"fault_reasons"`
	Timeout            types.String `tfsdk:"timeout"`
}

type faultReasonModel struct {
	Behavior    types.String `tfsdk:"behavior"`
	Description types.String `tfsdk:"description"`
}

// reasons are the fault reasons, nil while unknown.
func (m reportFaultyModel) reasons(ctx context.Context, diags *diag.Diagnostics) []faultReasonModel {
	if m.FaultReasons.IsNull() || m.FaultReasons.IsUnknown() {
		return nil
	}
	var out []faultReasonModel
	diags.Append(m.FaultReasons.ElementsAs(ctx, &out, false)...)
	return out
}

func (a *reportFaultyAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_report_faulty"
}

func (a *reportFaultyAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reports faulty TPU hardware to Google: a whole reservation sub-block (`reservationSubBlocks.reportFaulty`) or the host " +
			"of one VM (`instances.reportHostAsFaulty`), and waits for the Compute Engine operation. Set exactly one target: `sub_block` " +
			"(with `reservation` and `reservation_block`) or `instance` (a GKE node's name is its VM's). The reported hosts are taken out of " +
			"service at once (`disruption_schedule = \"IMMEDIATE\"`): the nodes on them go NotReady, their partitions UNHEALTHY, and slices " +
			"there stop. Google repairs them; for TPU hosts that takes days and VMs are not moved.\n\n" + actionsNeedTerraform,
		Attributes: map[string]schema.Attribute{
			"project": schema.StringAttribute{Optional: true, MarkdownDescription: "Project. Default: the provider's `project`."},
			"zone": schema.StringAttribute{Optional: true, Validators: []validator.String{LocationValidator(location.ZoneOnly)},
				MarkdownDescription: "Zone of the reservation or instance. Default: the provider's `location` when it is a zone."},
			"reservation":       schema.StringAttribute{Optional: true, MarkdownDescription: "Reservation of the sub-block. Required with `sub_block`."},
			"reservation_block": schema.StringAttribute{Optional: true, MarkdownDescription: "Reservation block of the sub-block. Required with `sub_block`."},
			"sub_block":         schema.StringAttribute{Optional: true, MarkdownDescription: "The reservation sub-block to report. Conflicts with `instance`."},
			"instance":          schema.StringAttribute{Optional: true, MarkdownDescription: "The VM whose host to report. Conflicts with `sub_block`."},
			"slot": schema.StringAttribute{Optional: true, MarkdownDescription: "A host of `sub_block` to report, by its reservation slot " +
				"(a `name` from data source `gke_reservation_slots`): the host of the VM running on it is reported (`instances.reportHostAsFaulty`), " +
				"not the whole sub-block. With `reservation`, `reservation_block` and `sub_block`; conflicts with `instance` and `failure_component`."},
			"failure_component": schema.StringAttribute{Optional: true, MarkdownDescription: fmt.Sprintf(
				"What failed in the sub-block: one of %s. Default `MULTIPLE_FAULTY_HOSTS`. Only with `sub_block`.", quoted(day2.SubBlockFailureComponents))},
			"disruption_schedule": schema.StringAttribute{Optional: true, MarkdownDescription: "When the VMs are disrupted: `IMMEDIATE`, the only value the API takes " +
				"for these reports. Default `IMMEDIATE`."},
			"fault_reasons": schema.ListNestedAttribute{
				Required: true,
				MarkdownDescription: fmt.Sprintf("Why the hardware is faulty, at least one. `behavior` is one of %s for a sub-block, one of %s for a host.",
					quoted(day2.SubBlockFaultBehaviors), quoted(day2.HostFaultBehaviors)),
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"behavior":    schema.StringAttribute{Required: true, MarkdownDescription: "The fault's behavior, as the Compute API names it."},
					"description": schema.StringAttribute{Optional: true, MarkdownDescription: "What was seen, in your words (for Google's support)."},
				}},
			},
			"timeout": schema.StringAttribute{Optional: true, Validators: []validator.String{durationValidator{}},
				MarkdownDescription: fmt.Sprintf("How long the action may take, such as `\"5m\"`. Default `%s`.", defaultReportFaultyTimeout)},
		},
	}
}

// ValidateConfig checks the target and values at plan, naming what to
// write instead.
func (a *reportFaultyAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var m reportFaultyModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	set := func(v types.String) bool { return !v.IsNull() }
	known := func(v types.String) bool { return !v.IsNull() && !v.IsUnknown() }
	switch {
	case set(m.SubBlock) && set(m.Instance):
		resp.Diagnostics.AddAttributeError(path.Root("instance"), "Conflicting Fault Targets",
			"gke_report_faulty reports one target: set sub_block (with reservation and reservation_block) to report a whole sub-block, "+
				"or instance to report one VM's host, not both.")
		return
	case !set(m.SubBlock) && !set(m.Instance):
		resp.Diagnostics.AddError("Missing Fault Target",
			"gke_report_faulty needs a target: sub_block (with reservation and reservation_block) for a whole sub-block, or instance for one VM's host.")
		return
	}
	behaviors := day2.SubBlockFaultBehaviors
	if set(m.Slot) && !set(m.SubBlock) {
		resp.Diagnostics.AddAttributeError(path.Root("slot"), "Missing sub_block",
			"slot names a host of a sub-block: set reservation, reservation_block and sub_block beside it.")
		return
	}
	if set(m.Slot) {
		behaviors = day2.HostFaultBehaviors
		if set(m.FailureComponent) {
			resp.Diagnostics.AddAttributeError(path.Root("failure_component"), "Attribute Not Used With slot",
				"failure_component applies to a sub-block report; a slot names one host, reported by its VM. Remove failure_component, or remove slot to report the whole sub-block.")
		}
	}
	if set(m.SubBlock) {
		for _, f := range []struct {
			v    types.String
			name string
		}{{m.Reservation, "reservation"}, {m.Block, "reservation_block"}} {
			if !set(f.v) {
				resp.Diagnostics.AddAttributeError(path.Root(f.name), "Missing "+f.name,
					fmt.Sprintf("sub_block needs %s: the sub-block is named by reservation, reservation_block and sub_block.", f.name))
			}
		}
		if !set(m.Slot) && known(m.FailureComponent) && !inList(m.FailureComponent.ValueString(), day2.SubBlockFailureComponents) {
			resp.Diagnostics.AddAttributeError(path.Root("failure_component"), "Invalid Failure Component",
				fmt.Sprintf("failure_component %q is not one the Compute API takes: write one of %s.", m.FailureComponent.ValueString(), oneOfList(day2.SubBlockFailureComponents)))
		}
	} else {
		behaviors = day2.HostFaultBehaviors
		for _, f := range []struct {
			v    types.String
			name string
		}{{m.Reservation, "reservation"}, {m.Block, "reservation_block"}, {m.FailureComponent, "failure_component"}} {
			if set(f.v) {
				resp.Diagnostics.AddAttributeError(path.Root(f.name), "Attribute Not Used With instance",
					fmt.Sprintf("%s applies to a sub-block report; a host report (instance) names only the VM. Remove %s, or report the sub-block with sub_block instead of instance.", f.name, f.name))
			}
		}
	}
	if known(m.DisruptionSchedule) && !inList(m.DisruptionSchedule.ValueString(), day2.DisruptionSchedules) {
		resp.Diagnostics.AddAttributeError(path.Root("disruption_schedule"), "Invalid Disruption Schedule",
			fmt.Sprintf("disruption_schedule %q is not taken by the Compute API for fault reports: write \"IMMEDIATE\" (or leave it out).", m.DisruptionSchedule.ValueString()))
	}
	reasons := m.reasons(ctx, &resp.Diagnostics)
	if !m.FaultReasons.IsNull() && !m.FaultReasons.IsUnknown() && len(reasons) == 0 {
		resp.Diagnostics.AddAttributeError(path.Root("fault_reasons"), "Missing Fault Reasons", "fault_reasons needs at least one { behavior = ..., description = ... }.")
	}
	for i, fr := range reasons {
		if known(fr.Behavior) && !inList(fr.Behavior.ValueString(), behaviors) {
			what := "a sub-block"
			if set(m.Instance) || set(m.Slot) {
				what = "a host"
			}
			resp.Diagnostics.AddAttributeError(path.Root("fault_reasons").AtListIndex(i).AtName("behavior"), "Invalid Fault Behavior",
				fmt.Sprintf("behavior %q is not one the Compute API takes for %s: write one of %s.", fr.Behavior.ValueString(), what, oneOfList(behaviors)))
		}
	}
}

func (a *reportFaultyAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	set := a.provider
	c := begin[reportFaultyModel](ctx, set, req.Config, &resp.Diagnostics, opNone, 0)
	if c == nil {
		return
	}
	m := c.Model
	project, zone := zonalTarget(set.Config(), m.Project, m.Zone, "the action", &resp.Diagnostics)
	ctx, cancel := actionContext(ctx, m.Timeout, defaultReportFaultyTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	r := day2.FaultReport{
		Project: project, Zone: zone,
		Reservation: m.Reservation.ValueString(), Block: m.Block.ValueString(), SubBlock: m.SubBlock.ValueString(),
		Instance: m.Instance.ValueString(), FailureComponent: m.FailureComponent.ValueString(),
		DisruptionSchedule: m.DisruptionSchedule.ValueString(),
	}
	if slot := m.Slot.ValueString(); slot != "" {
		vm, err := slotInstance(ctx, c.Engine.Reservations(), r, slot)
		if err != nil {
			addError(&resp.Diagnostics, err, subjectFaultReport, "Cannot Report Faulty Hardware")
			return
		}
		r.Instance, r.Reservation, r.Block, r.SubBlock = vm, "", "", ""
	}
	if r.SubBlock != "" && r.FailureComponent == "" {
		r.FailureComponent = "MULTIPLE_FAULTY_HOSTS"
	}
	if r.DisruptionSchedule == "" {
		r.DisruptionSchedule = "IMMEDIATE"
	}
	for _, fr := range m.reasons(ctx, &resp.Diagnostics) {
		r.Reasons = append(r.Reasons, day2.FaultReason{Behavior: fr.Behavior.ValueString(), Description: fr.Description.ValueString()})
	}
	progress := progressOf(ctx, resp)
	res, err := c.Engine.Day2().ReportFaulty(ctx, r, progress)
	if err != nil {
		summary := "Cannot Report Faulty Hardware"
		if timedOut(ctx) {
			summary = "Fault Report Timed Out"
		}
		addError(&resp.Diagnostics, err, subjectFaultReport, summary)
		return
	}
	progress("Reported " + res.Target + " as faulty; Google repairs the hosts and the nodes return when they are healthy")
	if len(res.Uses) > 0 {
		lines := make([]string, len(res.Uses))
		for i, u := range res.Uses {
			lines[i] = "  " + u.String()
		}
		resp.Diagnostics.AddWarning("Workloads on the Reported Sub-Block Stopped",
			fmt.Sprintf("%s was taken out of service, with what ran there:\n%s\nTheir nodes are NotReady and their partitions UNHEALTHY until Google repairs the hosts.",
				res.Target, strings.Join(lines, "\n")))
	}
}

// Configure implements action.ActionWithConfigure: it keeps the
// provider's configuration.
func (a *reportFaultyAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	a.provider = c
}

// slotInstance is the VM running on the reservation slot named slot of
// the report's sub-block: Compute Engine reports a host by its VM.
func slotInstance(ctx context.Context, res *reservation.Reservations, r day2.FaultReport, slot string) (string, error) {
	slots, err := res.ReadSlots(ctx, r.Project, r.Zone, r.Reservation, r.Block, r.SubBlock, false)
	if err != nil {
		return "", err
	}
	var names []string
	for _, s := range slots {
		if s.Name != slot {
			names = append(names, s.Name)
			continue
		}
		if s.Instance == "" {
			return "", fmt.Errorf("reservation slot %s of sub-block %s/%s/%s (host %s) runs no VM: Compute Engine reports a host by the VM on it "+
				"(instances.reportHostAsFaulty); report the whole sub-block (remove slot), or a slot that runs a VM", slot, r.Reservation, r.Block, r.SubBlock, s.PhysicalHost)
		}
		return s.Instance, nil
	}
	return "", fmt.Errorf("reservation slot %q was not found in sub-block %s/%s/%s; its slots are: %s", slot, r.Reservation, r.Block, r.SubBlock, strings.Join(names, ", "))
}
