package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
)

// A reservation's project and zone are the ones set, else the provider's
// project and its location when that is a zone; a region is no zone, and
// what is still missing is an error on its attribute naming where to set
// it.
func TestZonalTarget(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                  string
		cfg                   clients.Config
		project, zone         types.String
		wantProject, wantZone string
		wantErrors            []string
	}{
		{"own", clients.Config{Project: "pp", Location: "us-east5-a"}, types.StringValue("p"), types.StringValue("us-central1-a"), "p", "us-central1-a", nil},
		{"the provider's", clients.Config{Project: "pp", Location: "us-east5-a"}, types.StringNull(), types.StringNull(), "pp", "us-east5-a", nil},
		{"a region is no zone", clients.Config{Project: "pp", Location: "us-east5"}, types.StringNull(), types.StringNull(), "pp", "",
			[]string{"Missing Zone: set zone on the data source (reservations are zonal), or a zonal location on the provider"}},
		{"nothing", clients.Config{}, types.StringNull(), types.StringValue(""), "", "",
			[]string{"Missing Project: set project on the data source or on the provider", "Missing Zone: set zone on the data source (reservations are zonal), or a zonal location on the provider"}},
	} {
		var diags diag.Diagnostics
		p, z := zonalTarget(c.cfg, c.project, c.zone, "the data source", &diags)
		var got []string
		for _, d := range diags.Errors() {
			got = append(got, d.Summary()+": "+d.Detail())
		}
		if p != c.wantProject || z != c.wantZone || len(got) != len(c.wantErrors) {
			t.Errorf("%s: %q %q %q; want %q %q %q", c.name, p, z, got, c.wantProject, c.wantZone, c.wantErrors)
			continue
		}
		for i := range got {
			if got[i] != c.wantErrors[i] {
				t.Errorf("%s: error %q; want %q", c.name, got[i], c.wantErrors[i])
			}
		}
	}
}
