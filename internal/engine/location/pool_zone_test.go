package location

import (
	"errors"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// A pool's zone must be in its cluster's region, whether the cluster's
// location is a region or a zone.
func TestCheckPoolZone(t *testing.T) {
	t.Parallel()
	for _, ok := range [][2]string{{"us-central1", "us-central1-a"}, {"us-central1-b", "us-central1-a"}, {"", "us-central1-a"}, {"us-central1", ""}} {
		if err := CheckPoolZone(ok[0], ok[1]); err != nil {
			t.Errorf("CheckPoolZone(%q, %q) = %v, want nil", ok[0], ok[1], err)
		}
	}
	err := CheckPoolZone("us-central1", "us-east5-b")
	var outside *ZoneOutsideRegionError
	if !errors.As(err, &outside) {
		t.Fatalf("a zone of another region: %v", err)
	}
	testsupport.WantContains(t, err, `zone "us-east5-b" is in region "us-east5", but the cluster's location is "us-central1"`,
		"must be in its cluster's region", `such as "us-central1-a"`)
	if err := CheckPoolZone("us-central1-a", "europe-west4-b"); !errors.As(err, &outside) {
		t.Errorf("a zonal cluster, a zone of another region: %v", err)
	}
}
