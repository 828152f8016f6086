package provider

import (
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
)

// zonalTarget is the project and zone of the reservation that an action
// or a data source names (what: "the action", "the data source"): its
// own, or the provider's (its location when that is a zone). One that is
// missing is an error on its attribute, saying where to set it.
func zonalTarget(cfg clients.Config, project, zone types.String, what string, diags *diag.Diagnostics) (string, string) {
	p, z := project.ValueString(), zone.ValueString()
	if p == "" {
		p = cfg.Project
	}
	if z == "" && location.IsZone(cfg.Location) {
		z = cfg.Location
	}
	if p == "" {
		diags.AddAttributeError(path.Root("project"), "Missing Project", "set project on "+what+" or on the provider")
	}
	if z == "" {
		diags.AddAttributeError(path.Root("zone"), "Missing Zone", "set zone on "+what+" (reservations are zonal), or a zonal location on the provider")
	}
	return p, z
}

// reservationBlockAttributes are the attributes of a data source that
// reads a reservation block, more and the four that name it: project and
// zone (the provider's by default: zonalTarget), reservation and
// reservation_block.
func reservationBlockAttributes(more map[string]schema.Attribute) map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"project": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Project of the reservation. Default: the provider's `project`."},
		"zone": schema.StringAttribute{
			Optional: true, Computed: true, Validators: []validator.String{LocationValidator(location.ZoneOnly)},
			MarkdownDescription: "Zone of the reservation. Default: the provider's `location` when it is a zone.",
		},
		"reservation":       schema.StringAttribute{Required: true, MarkdownDescription: "Name of the reservation."},
		"reservation_block": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the reservation block."},
	}
	maps.Copy(attrs, more)
	return attrs
}
