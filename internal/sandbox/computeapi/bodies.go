package computeapi

import (
	"reflect"

	computev1 "google.golang.org/api/compute/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// The request bodies of the emulated Compute Engine API, read as Google's
// front end reads them (googleapi.AcceptBody): their Go types in
// google.golang.org/api and the fields the sandbox emulates; any other
// field that is set is logged as ignored, a field no API version defines
// refused.

// resourcePolicyInsert is the body of resourcePolicies.insert.
var resourcePolicyInsert = googleapi.BodySpec{
	Method: "compute resourcePolicies.insert", Type: reflect.TypeFor[computev1.ResourcePolicy](), Root: "resource_policy",
	Emulated: []string{
		"name", "description", "region", "workloadPolicy",
		// The other policy kinds are refused by the insert itself.
		"groupPlacementPolicy", "snapshotSchedulePolicy", "instanceSchedulePolicy", "diskConsistencyGroupPolicy",
		"kind", "id", "selfLink", "creationTimestamp", "status", "resourceStatus",
	},
}
