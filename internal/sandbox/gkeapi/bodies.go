package gkeapi

import (
	"net/http"
	"reflect"
	"strings"

	containerapi "google.golang.org/api/container/v1"
	containerbeta "google.golang.org/api/container/v1beta1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// The request bodies of the emulated GKE API, read as Google's front end
// reads them (googleapi.AcceptBody): their Go types in google.golang.org/api and
// the fields the sandbox emulates; any other field that is set is logged
// as ignored, a field no API version defines refused.

// Request bodies of the emulated GKE API.
var (
	nodePoolFields = []string{
		"nodePool.name", "nodePool.initialNodeCount", "nodePool.locations",
		"nodePool.config.machineType", "nodePool.config.labels", "nodePool.config.reservationAffinity",
		"nodePool.config.resourceLabels",
		"nodePool.placementPolicy.policyName", "nodePool.placementPolicy.type",
		// Set by GKE: what a client sends is overwritten.
		"nodePool.status", "nodePool.statusMessage", "nodePool.selfLink", "nodePool.instanceGroupUrls",
		"nodePool.podIpv4CidrSize", "nodePool.conditions", "nodePool.etag",
		// The deprecated request fields that repeat the URL's names.
		"parent", "projectId", "zone", "clusterId",
	}
	nodePoolUpdateFields = []string{"labels", "taints", "resourceLabels", "name", "projectId", "zone", "clusterId", "nodePoolId"}
	// management is recorded and echoed (at create and by setManagement)
	// but nothing repairs or upgrades nodes: logged as ignored both ways.
	nodePoolMgmtFields = []string{"name", "projectId", "zone", "clusterId", "nodePoolId"}

	nodePoolCreate = map[bool]googleapi.BodySpec{
		false: {Method: "container nodePools.create", Type: reflect.TypeFor[containerapi.CreateNodePoolRequest](), Emulated: nodePoolFields},
		true:  {Method: "container v1beta1 nodePools.create", Type: reflect.TypeFor[containerbeta.CreateNodePoolRequest](), Emulated: nodePoolFields},
	}
	nodePoolUpdate = map[bool]googleapi.BodySpec{
		false: {Method: "container nodePools.update", Type: reflect.TypeFor[containerapi.UpdateNodePoolRequest](), Emulated: nodePoolUpdateFields},
		true:  {Method: "container v1beta1 nodePools.update", Type: reflect.TypeFor[containerbeta.UpdateNodePoolRequest](), Emulated: nodePoolUpdateFields},
	}
	nodePoolSetManagement = map[bool]googleapi.BodySpec{
		false: {Method: "container nodePools.setManagement", Type: reflect.TypeFor[containerapi.SetNodePoolManagementRequest](), Emulated: nodePoolMgmtFields},
		true:  {Method: "container v1beta1 nodePools.setManagement", Type: reflect.TypeFor[containerbeta.SetNodePoolManagementRequest](), Emulated: nodePoolMgmtFields},
	}
)

// isBeta says whether a GKE request came in on v1beta1, whose messages
// define more fields than v1's.
func isBeta(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/v1beta1/")
}
