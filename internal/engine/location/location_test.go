package location

import (
	"strings"
	"testing"
)

func TestCheckLocation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		kind  Kind
		want  string // empty: accepted
	}{
		{"us-central1", RegionOrZone, ""},
		{"us-central1-a", RegionOrZone, ""},
		{"northamerica-northeast2-b", RegionOrZone, ""},
		{"us-south1-ai1b", RegionOrZone, ""},
		{"europe-west4", RegionOnly, ""},
		{"us-central1-c", ZoneOnly, ""},
		{"us-central1-a-b", RegionOrZone, "is not a Google Cloud location name"},
		{"us-central", RegionOrZone, "is not a Google Cloud location name"},
		{"uscentral1", RegionOrZone, "is not a Google Cloud location name"},
		{"us-central1-", RegionOrZone, "is not a Google Cloud location name"},
		{"US-CENTRAL1", RegionOrZone, `location names are lower case, such as "us-central1"`},
		{" us-central1", RegionOrZone, "remove them"},
		{"", RegionOrZone, "the value is empty"},
		{"us-central1-a", RegionOnly, `is a zone, not a region: write its region, "us-central1"`},
		{"us-central1", ZoneOnly, `is a region, not a zone`},
	} {
		err := Check(tc.value, tc.kind)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%q, %d) = %v, want nil", tc.value, tc.kind, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Check(%q, %d) = %v, want an error containing %q", tc.value, tc.kind, err, tc.want)
		}
	}
}

func TestRegionOfAndIsZone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		location, region string
		zone             bool
	}{
		{"us-central1-a", "us-central1", true},
		{"europe-west4-b", "europe-west4", true},
		{"northamerica-northeast1-c", "northamerica-northeast1", true},
		{"us-central1-ai1a", "us-central1", true},
		{"us-central1", "us-central1", false},
		{"us-east5", "us-east5", false},
		{"us-central1-1", "us-central1-1", false},
		{"global", "global", false},
		{"", "", false},
	} {
		if got := RegionOf(tc.location); got != tc.region {
			t.Errorf("RegionOf(%q) = %q, want %q", tc.location, got, tc.region)
		}
		if got := IsZone(tc.location); got != tc.zone {
			t.Errorf("IsZone(%q) = %v, want %v", tc.location, got, tc.zone)
		}
	}
}
