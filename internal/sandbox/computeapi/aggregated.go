package computeapi

import (
	"fmt"
	"net/http"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// Aggregated lists (projects/P/aggregated/...) answer for every region or
// zone of the project at once, as a map from scope ("regions/R", "zones/Z")
// to that scope's items. gcloud uses them whenever a list is not narrowed
// to one location (`gcloud compute resource-policies list`,
// `gcloud compute reservations list`). The sandbox has one region and one
// zone, so the map has one scope.

// noResultsWarning is what Compute Engine puts in place of the items of a
// scope that has none.
func noResultsWarning(scope string) map[string]any {
	return map[string]any{"warning": map[string]any{
		"code":    "NO_RESULTS_ON_PAGE",
		"message": fmt.Sprintf("There are no results for scope '%s' on this page.", scope),
		"data":    []map[string]string{{"key": "scope", "value": scope}},
	}}
}

// writeAggregatedList answers an aggregated list request with one page of
// the one scope's items, under the field name field ("resourcePolicies").
func writeAggregatedList[T any](rw http.ResponseWriter, r *http.Request, kind, selfLink, scope, field string, items []T) {
	from, to, next, msg := computePage(r, len(items))
	if msg != "" {
		googleapi.BadRequest(rw, msg)
		return
	}
	scoped := noResultsWarning(scope)
	if to > from {
		scoped = map[string]any{field: items[from:to]}
	}
	out := map[string]any{
		"kind":     kind,
		"id":       selfLink[len(computeLinkBase):],
		"selfLink": selfLink,
		"items":    map[string]any{scope: scoped},
	}
	if next != "" {
		out["nextPageToken"] = next
	}
	googleapi.WriteJSON(rw, http.StatusOK, out)
}

func (w *API) aggregatedLink(collection string) string {
	return computeLinkBase + "projects/" + w.Inv.Project + "/aggregated/" + collection
}

// aggregatedResourcePolicies is resourcePolicies.aggregatedList.
func (w *API) aggregatedResourcePolicies(rw http.ResponseWriter, r *http.Request) {
	writeAggregatedList(rw, r, "compute#resourcePolicyAggregatedList", w.aggregatedLink("resourcePolicies"),
		"regions/"+w.Inv.Region, "resourcePolicies", w.regionPolicies(w.Inv.Region))
}

// aggregatedReservations is reservations.aggregatedList.
func (w *API) aggregatedReservations(rw http.ResponseWriter, r *http.Request) {
	writeAggregatedList(rw, r, "compute#reservationAggregatedList", w.aggregatedLink("reservations"),
		"zones/"+w.Inv.Zone, "reservations", w.zoneReservations())
}
