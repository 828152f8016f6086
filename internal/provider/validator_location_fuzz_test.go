package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
)

// A location as a user writes it: nothing panics, each kind's validator
// refuses exactly what location.Check refuses, a zone is refused where a
// region is wanted and the other way round, and a zone's region is a
// region.
func FuzzLocationValidator(f *testing.F) {
	for _, seed := range []string{"us-central1", "us-central1-a", "us-south1-ai1b", "", "US-CENTRAL1", "us-central1-", "-", "us--1", "europe-west4-b-c"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var accepted [3]bool
		for _, kind := range []location.Kind{location.RegionOrZone, location.RegionOnly, location.ZoneOnly} {
			var resp validator.StringResponse
			LocationValidator(kind).ValidateString(context.Background(), validator.StringRequest{Path: path.Root("location"), ConfigValue: types.StringValue(s)}, &resp)
			err := location.Check(s, kind)
			if resp.Diagnostics.HasError() != (err != nil) {
				t.Fatalf("%q (kind %d): validator errors %v, location.Check %v", s, kind, resp.Diagnostics, err)
			}
			accepted[kind] = err == nil
		}
		region, zone := accepted[location.RegionOnly], accepted[location.ZoneOnly]
		if region && zone || accepted[location.RegionOrZone] != (region || zone) {
			t.Fatalf("%q: region %v, zone %v, either %v", s, region, zone, accepted[location.RegionOrZone])
		}
		if zone {
			if r := location.RegionOf(s); location.Check(r, location.RegionOnly) != nil {
				t.Fatalf("zone %q is in %q, which is not a region", s, r)
			}
		}
	})
}
