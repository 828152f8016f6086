// Package computeapi is the sandbox's emulated Compute Engine API: its
// routes, the JSON of its resources, its checks of requests and its
// operations, over the emulated world (package cloud), which it shares with
// the emulated GKE API. Package sandbox serves its Handler behind
// googleapi.Front.
package computeapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// The emulated Compute Engine API (compute/v1, REST and JSON as the
// cloud.google.com/go/compute/apiv1 clients speak it). It serves what the
// provider uses:
//
//	regions/R/resourcePolicies             insert, get, list, delete (workload policies only)
//	regions/R/operations/O[/wait]          get, wait
//	zones/Z/operations/O[/wait]            get, wait
//	zones/Z/reservations[/R]               list, get
//	zones/Z/reservations/R/reservationBlocks[/B]                          list, get
//	zones/Z/reservations/R/reservationBlocks/B/reservationSubBlocks[/S]   list, get
//	reservationSubBlocks/S/reservationSlots[/N]                           list, get, update (slots.go)
//	reservationSubBlocks/S/reservationSlots/N/getHealth, .../getVersion
//	zones/Z/instanceGroupManagers[/M]      list, get (the node pools' groups, read-only)
//	zones/Z/instanceGroupManagers/M/listManagedInstances                  list
//	aggregated/resourcePolicies, aggregated/reservations                  list
//	aggregated/instanceGroupManagers                                      list
//	reservationBlocks/B/performMaintenance, reservationSubBlocks/S/performMaintenance,
//	reservationSubBlocks/S/reportFaulty, zones/Z/instances/I/reportHostAsFaulty  (maintenance.go, faulty.go)
//
// everything under /compute/v1/projects/P/. Anything else is a 404 in the
// Google error shape. A sub-block's parent, reservations/R/reservationBlocks/B,
// may come as one escaped path segment, as gcloud sends it.

// computeLinkBase is where Compute Engine self links start.
const computeLinkBase = googleapi.ComputeLinkBase

// API serves the emulated Compute Engine API over the world.
type API struct{ *cloud.World }

// New returns the Compute Engine API of the world w.
func New(w *cloud.World) *API { return &API{w} }

// computeTimeFormat is how Compute Engine writes times (RFC 3339 with
// milliseconds and a numeric zone).
const computeTimeFormat = "2006-01-02T15:04:05.000-07:00"

// Paging limits of Compute Engine list methods.
const (
	computeDefaultPageSize = 500
	computeMaxPageSize     = 500
)

// computeID is a stable numeric resource ID (Compute Engine IDs are
// uint64, written as decimal strings in JSON).
func computeID(parts ...string) string {
	n, _ := strconv.ParseUint(cloud.OpaqueID(append([]string{"id"}, parts...)...)[:16], 16, 64)
	return strconv.FormatUint(n, 10)
}

// Handler serves the emulated Compute Engine API.
func (w *API) Handler() http.Handler {
	mux := http.NewServeMux()
	const (
		region   = "/compute/v1/projects/{project}/regions/{region}"
		zone     = "/compute/v1/projects/{project}/zones/{zone}"
		policies = region + "/resourcePolicies"
		res      = zone + "/reservations/{reservation}"
		blocks   = res + "/reservationBlocks"
		subs     = blocks + "/{block}/reservationSubBlocks"
	)
	handle := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, w.inComputeScope(h)) }
	handle("POST "+policies, w.insertResourcePolicy)
	handle("GET "+policies, w.listResourcePolicies)
	handle("GET "+policies+"/{name}", w.getResourcePolicy)
	handle("DELETE "+policies+"/{name}", w.deleteResourcePolicy)
	handle("GET "+region+"/operations/{operation}", w.getComputeOperation)
	handle("POST "+region+"/operations/{operation}/wait", w.waitComputeOperation)
	handle("GET "+zone+"/operations/{operation}", w.getComputeOperation)
	handle("POST "+zone+"/operations/{operation}/wait", w.waitComputeOperation)
	handle("GET "+zone+"/reservations", w.listReservations)
	handle("GET "+res, w.getReservation)
	handle("GET "+blocks, w.listReservationBlocks)
	handle("GET "+blocks+"/{block}", w.getReservationBlock)
	handle("GET "+subs, w.listReservationSubBlocks)
	handle("GET "+subs+"/{subBlock}", w.getReservationSubBlock)
	handle("GET /compute/v1/projects/{project}/aggregated/resourcePolicies", w.aggregatedResourcePolicies)
	handle("GET /compute/v1/projects/{project}/aggregated/reservations", w.aggregatedReservations)
	handle("GET "+zone+"/instanceGroupManagers", w.listInstanceGroupManagers)
	handle("GET "+zone+"/instanceGroupManagers/{name}", w.getInstanceGroupManager)
	handle("POST "+zone+"/instanceGroupManagers/{name}/listManagedInstances", w.listManagedInstances)
	handle("GET /compute/v1/projects/{project}/aggregated/instanceGroupManagers", w.aggregatedInstanceGroupManagers)
	w.routeMaintenance(handle, zone, blocks, subs)
	w.routeSlots(handle, subs)
	// Everything else, including a known path with another method.
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		googleapi.WriteError(rw, http.StatusNotFound, "NOT_FOUND",
			fmt.Sprintf("The sandbox's Compute Engine API does not serve %s %s", r.Method, r.URL.Path), "notFound")
	})
	return googleapi.SlashesUnescaped(mux)
}

// inComputeScope answers 404 unless the request names the inventory's
// project and, where the path has them, its region and zone.
func (w *API) inComputeScope(next http.HandlerFunc) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		if p := r.PathValue("project"); p != w.Inv.Project {
			googleapi.WriteError(rw, http.StatusNotFound, "NOT_FOUND",
				fmt.Sprintf("The resource 'projects/%s' was not found (the sandbox project is %q)", p, w.Inv.Project), "notFound")
			return
		}
		if strings.Contains(r.Pattern, "{region}") && r.PathValue("region") != w.Inv.Region {
			googleapi.WriteError(rw, http.StatusNotFound, "NOT_FOUND",
				fmt.Sprintf("The resource 'projects/%s/regions/%s' was not found (the sandbox region is %q)", w.Inv.Project, r.PathValue("region"), w.Inv.Region), "notFound")
			return
		}
		if strings.Contains(r.Pattern, "{zone}") && r.PathValue("zone") != w.Inv.Zone {
			googleapi.WriteError(rw, http.StatusNotFound, "NOT_FOUND",
				fmt.Sprintf("The resource 'projects/%s/zones/%s' was not found (the sandbox zone is %q)", w.Inv.Project, r.PathValue("zone"), w.Inv.Zone), "notFound")
			return
		}
		next(rw, r)
	}
}

func (w *API) regionLink() string {
	return computeLinkBase + "projects/" + w.Inv.Project + "/regions/" + w.Inv.Region
}

func (w *API) zoneLink() string {
	return googleapi.ZoneLink(w.Inv.Project, w.Inv.Zone)
}

// ---- Paging ----

// computePage cuts one page out of n items as maxResults and pageToken
// ask: it returns the range [from, to) and the next page token ("" on the
// last page), or an error message for a 400.
func computePage(r *http.Request, n int) (from, to int, next, errMsg string) {
	q := r.URL.Query()
	if q.Get("filter") != "" || q.Get("orderBy") != "" {
		return 0, 0, "", "The sandbox's Compute Engine API does not support filter or orderBy on lists; list everything and filter in the client"
	}
	size := computeDefaultPageSize
	if s := q.Get("maxResults"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return 0, 0, "", fmt.Sprintf("Invalid value for field 'maxResults': '%s'. Must be a non-negative integer", s)
		}
		if v > 0 {
			size = min(v, computeMaxPageSize)
		}
	}
	if t := q.Get("pageToken"); t != "" {
		v, err := strconv.Atoi(strings.TrimPrefix(t, "offset-"))
		if err != nil || !strings.HasPrefix(t, "offset-") || v < 0 || v > n {
			return 0, 0, "", fmt.Sprintf("Invalid value for field 'pageToken': '%s'. Use the nextPageToken of the previous page", t)
		}
		from = v
	}
	to = min(from+size, n)
	if to < n {
		next = "offset-" + strconv.Itoa(to)
	}
	return from, to, next, ""
}

// writeComputeList answers a list request with one page of items.
func writeComputeList[T any](rw http.ResponseWriter, r *http.Request, kind, selfLink string, items []T) {
	from, to, next, msg := computePage(r, len(items))
	if msg != "" {
		googleapi.BadRequest(rw, msg)
		return
	}
	out := map[string]any{
		"kind":     kind,
		"id":       computeID("list", selfLink),
		"selfLink": selfLink,
		"items":    items[from:to],
	}
	if next != "" {
		out["nextPageToken"] = next
	}
	googleapi.WriteJSON(rw, http.StatusOK, out)
}
